// `pnpm release`: builds every package and packs each public one into release/, as `pnpm publish`
// would upload it (workspace: ranges rewritten to versions, publishConfig applied). Publishing
// needs registry credentials; this stops at the tarballs.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('..', import.meta.url));

export interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  [field: string]: unknown;
}

export interface WorkspacePackage {
  dir: string;
  manifest: Manifest;
}

export const readManifest = (dir: string): Manifest =>
  JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;

/** Every package of the workspace (packages/*, apps/*), private ones included. */
export function workspacePackages(): WorkspacePackage[] {
  return ['packages', 'apps'].flatMap((group) =>
    readdirSync(join(root, group)).flatMap((name) => {
      const dir = join(root, group, name);
      try {
        return [{ dir, manifest: readManifest(dir) }];
      } catch {
        return [];
      }
    }),
  );
}

/** Builds (unless `build` is false) and packs the public packages into `dest`; name → tarball. */
export function release(dest: string, { build = true } = {}): Map<string, string> {
  if (build) {
    // From clean dist/ folders: tsc -b leaves the output of deleted sources behind.
    for (const { dir } of workspacePackages())
      rmSync(join(dir, 'dist'), { recursive: true, force: true });
    execFileSync('pnpm', ['exec', 'turbo', 'run', 'build', '--force'], {
      cwd: root,
      stdio: 'inherit',
    });
  }
  rmSync(dest, { recursive: true, force: true });
  mkdirSync(dest, { recursive: true });
  const tarballs = new Map<string, string>();
  for (const { dir, manifest } of workspacePackages()) {
    if (manifest.private) continue;
    const out = execFileSync('pnpm', ['pack', '--json', '--pack-destination', dest], {
      cwd: dir,
      encoding: 'utf8',
    });
    const { filename } = JSON.parse(out) as { filename: string };
    tarballs.set(manifest.name, filename);
  }
  return tarballs;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dest = join(root, 'release');
  for (const [name, file] of release(dest)) console.log(`${name}: ${file}`);
}
