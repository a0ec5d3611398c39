import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// Where `pnpm demo` keeps its state: one folder, apps/demo-cluster/.data, whatever the working
// directory, with a directory of its own per kind of run so that a plain, a --secure and a
// scripted (--duration) run never read each other's objects or certificates.

/** apps/demo-cluster/.data */
export const DEMO_DATA_ROOT = fileURLToPath(new URL('../.data', import.meta.url));

export interface DataDirChoice {
  /** Where the apiserver stores its SQLite file (and --secure its PKI, in `pki/`). */
  path: string;
  /** Removed before the start: --reset, or a scripted run, which always starts afresh. */
  reset: boolean;
}

/**
 * The data directory of a run: `--data-dir` as given, else `.data/cluster`, `.data/secure`,
 * `.data/cluster-scenario` or `.data/secure-scenario` under the app. `--reset` empties only
 * these, never a directory the user named.
 */
export function chooseDataDir(run: {
  dataDir?: string | undefined;
  secure: boolean;
  scenario: boolean;
  reset: boolean;
}): DataDirChoice {
  if (run.dataDir !== undefined) {
    if (run.reset)
      throw new Error(
        `--reset empties only the demo's own data directories; remove ${run.dataDir} yourself`,
      );
    return { path: run.dataDir, reset: false };
  }
  const name = `${run.secure ? 'secure' : 'cluster'}${run.scenario ? '-scenario' : ''}`;
  return { path: `${DEMO_DATA_ROOT}/${name}`, reset: run.reset || run.scenario };
}

/** Empties a data directory chosen by chooseDataDir. */
export function resetDataDir(choice: DataDirChoice): void {
  if (choice.reset) rmSync(choice.path, { recursive: true, force: true });
}
