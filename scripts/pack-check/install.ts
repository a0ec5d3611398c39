// A fresh `npm init -y` project with the tarballs installed, as a user's: third-party
// dependencies from the registry, nothing from the monorepo.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readManifest, type Manifest } from '../release.js';
import { attempt, check, run } from './report.js';

/** Creates the project and installs the tarballs with the repository's TypeScript, Node types
 * and vitest; the result is checked by `checkInstall` (the linters run meanwhile). */
export async function installTarballs(
  project: string,
  tarballs: Map<string, string>,
  rootManifest: Manifest,
): Promise<{ ok: boolean; output: string }> {
  mkdirSync(project);
  await run('npm', ['init', '-y'], { cwd: project });
  const pkg = readManifest(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ ...pkg, type: 'module' }, null, 2));
  const devDeps = rootManifest.devDependencies as Record<string, string>;
  return attempt(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      ...tarballs.values(),
      `typescript@${devDeps.typescript}`,
      `@types/node@${devDeps['@types/node']}`,
      `vitest@${devDeps.vitest}`,
    ],
    { cwd: project, timeout: 300_000 },
  );
}

/** The install's rules; false when it failed (nothing after it can run). */
export async function checkInstall(
  project: string,
  install: { ok: boolean; output: string },
  names: string[],
): Promise<boolean> {
  check('npm installs every tarball into a fresh project', install.ok ? [] : [install.output]);
  if (!install.ok) return false;
  check(
    'a memory-storage install has no native build and no gRPC: better-sqlite3, etcd3 and @grpc/grpc-js are absent',
    ['better-sqlite3', 'etcd3', '@grpc/grpc-js'].filter((dep) =>
      existsSync(join(project, 'node_modules', dep)),
    ),
  );
  const requireAll = await attempt(
    process.execPath,
    ['--no-warnings', '-e', `for (const p of ${JSON.stringify(names)}) require(p);`],
    { cwd: project },
  );
  check(
    `every package loads with require() (Node ${process.versions.node}, require(esm))`,
    requireAll.ok ? [] : [requireAll.output],
  );
  return true;
}
