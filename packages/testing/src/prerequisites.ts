import { spawnSync } from 'node:child_process';
import { ensureDebianPackage, PYTHON } from './debian-package.js';
import { findOnPath, isExecutable } from './programs.js';

/** Programs some test tiers need besides node (see tiers.ts). */
export type PrerequisiteName =
  'etcd' | 'kubectl' | 'curl' | 'openssl' | 'python3-kubernetes' | 'chromium';

export interface Prerequisite {
  name: PrerequisiteName;
  /** The Debian package that brings it: the test setup installs it with apt-get as root. */
  debianPackage?: string;
  /** How a person installs it. */
  install: string;
  present(): boolean;
}

/** `name` on PATH, or the executable `$override` names when set. */
const program = (name: string, override?: string) => (): boolean => {
  const path = override ? process.env[override] : undefined;
  return path ? isExecutable(path) : findOnPath(name) !== undefined;
};

export const prerequisites: Readonly<Record<PrerequisiteName, Prerequisite>> = {
  etcd: {
    name: 'etcd',
    debianPackage: 'etcd-server',
    install: 'sudo apt-get install -y etcd-server, or set ETCD_BIN',
    present: program('etcd', 'ETCD_BIN'),
  },
  kubectl: {
    name: 'kubectl',
    install: 'kubectl 1.32 or later from https://kubernetes.io/docs/tasks/tools/, or set KUBECTL',
    present: program('kubectl', 'KUBECTL'),
  },
  curl: {
    name: 'curl',
    debianPackage: 'curl',
    install: 'sudo apt-get install -y curl',
    present: program('curl'),
  },
  openssl: {
    name: 'openssl',
    debianPackage: 'openssl',
    install: 'sudo apt-get install -y openssl',
    present: program('openssl'),
  },
  'python3-kubernetes': {
    name: 'python3-kubernetes',
    debianPackage: 'python3-kubernetes',
    install: `sudo apt-get install -y python3-kubernetes (for ${PYTHON})`,
    present: () => spawnSync(PYTHON, ['-c', 'import kubernetes'], { stdio: 'ignore' }).status === 0,
  },
  chromium: {
    name: 'chromium',
    debianPackage: 'chromium',
    install:
      'sudo apt-get install -y chromium (browser tests drive /usr/bin/chromium, or CHROMIUM)',
    present: program('chromium', 'CHROMIUM'),
  },
};

/** `needs etcd (sudo apt-get install -y etcd-server, or set ETCD_BIN)` */
export function needsMessage(missing: readonly Prerequisite[]): string {
  return `needs ${missing.map((p) => `${p.name} (${p.install})`).join(', ')}`;
}

// One answer per prerequisite and run: every project of a tier runs the global setup.
const checked: Map<PrerequisiteName, boolean> = ((
  globalThis as { __listwatchPrerequisites?: Map<PrerequisiteName, boolean> }
).__listwatchPrerequisites ??= new Map());

/**
 * Makes sure of each prerequisite in `names`: a missing one with a Debian package is installed
 * with apt-get when running as root. Returns the ones still missing.
 */
export function ensurePrerequisites(
  names: readonly PrerequisiteName[],
  log: (line: string) => void = () => {},
): Prerequisite[] {
  const missing: Prerequisite[] = [];
  for (const name of names) {
    const prerequisite = prerequisites[name];
    let ok = checked.get(name);
    if (ok === undefined) {
      ok = prerequisite.present();
      if (!ok && prerequisite.debianPackage && process.getuid?.() === 0) {
        try {
          ensureDebianPackage(prerequisite.debianPackage, () => prerequisite.present(), '', log);
          ok = true;
        } catch (err) {
          log(`could not install ${prerequisite.debianPackage}: ${String(err)}`);
        }
      }
      checked.set(name, ok);
    }
    if (!ok) missing.push(prerequisite);
  }
  return missing;
}
