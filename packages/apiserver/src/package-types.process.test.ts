import { tempDir } from '@listwatch/testing';
import { execFile } from 'node:child_process';
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

// A consumer type-checks the published declarations with skipLibCheck off, so every module they
// import must come with types from what the package declares as `dependencies` (the
// DefinitelyTyped rule for libraries whose .d.ts reference @types packages).

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const root = fileURLToPath(new URL('../../../', import.meta.url));
const tsc = require.resolve('typescript/bin/tsc');

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
}

const readManifest = (dir: string): Manifest =>
  JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;

/** The workspace's packages by name. */
function workspacePackages(): Map<string, string> {
  const packages = new Map<string, string>();
  for (const name of readdirSync(join(root, 'packages'))) {
    const dir = join(root, 'packages', name);
    try {
      packages.set(readManifest(dir).name, dir);
    } catch {
      // not a package
    }
  }
  return packages;
}

/** Links `target` at `path`, making the parent directories. */
function link(target: string, path: string): void {
  mkdirSync(dirname(path), { recursive: true });
  symlinkSync(realpathSync(target), path, 'junction');
}

/**
 * A consumer project with `@listwatch/apiserver` installed from its packed tarball, and the
 * workspace packages it depends on from theirs. Each package gets only its declared
 * `dependencies`, linked from the workspace's install (offline); devDependencies are not there,
 * as in a user's node_modules.
 */
async function installPacked(consumer: string, tarballs: string): Promise<void> {
  const workspace = workspacePackages();
  const pending = ['@listwatch/apiserver'];
  const installed = new Set<string>();
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (installed.has(name)) continue;
    installed.add(name);
    const source = workspace.get(name)!;
    const { stdout } = await run('pnpm', ['pack', '--json', '--pack-destination', tarballs], {
      cwd: source,
    });
    const { filename } = JSON.parse(stdout) as { filename: string };
    const dir = join(consumer, 'node_modules', name);
    mkdirSync(dir, { recursive: true });
    await run('tar', ['-xzf', filename, '-C', dir, '--strip-components=1']);
    for (const dep of Object.keys(readManifest(dir).dependencies ?? {})) {
      if (workspace.has(dep)) pending.push(dep);
      else link(join(source, 'node_modules', dep), join(dir, 'node_modules', dep));
    }
  }
}

describe('the published declarations', () => {
  const dir = tempDir('listwatch-consumer-');
  afterAll(() => dir.remove());

  it('type-check in a strict consumer project without skipLibCheck, under node16 and bundler resolution', async () => {
    await run('pnpm', ['--filter', '@listwatch/apiserver', 'build'], { cwd: root });
    const consumer = join(dir.path, 'consumer');
    await installPacked(consumer, join(dir.path, 'tarballs'));
    // The consumer's own: Node's types, as any Node project has.
    link(join(root, 'node_modules', '@types', 'node'), join(consumer, 'node_modules/@types/node'));
    writeFileSync(
      join(consumer, 'package.json'),
      JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
    );
    writeFileSync(
      join(consumer, 'index.ts'),
      [
        "import { createApp, startApiServer, type ApiServerOptions } from '@listwatch/apiserver';",
        'export const start: typeof startApiServer = startApiServer;',
        'export const app: typeof createApp = createApp;',
        'export type Options = ApiServerOptions;',
        '',
      ].join('\n'),
    );
    for (const resolution of ['node16', 'bundler'] as const) {
      const config = `tsconfig.${resolution}.json`;
      writeFileSync(
        join(consumer, config),
        JSON.stringify({
          compilerOptions: {
            target: 'ES2022',
            module: resolution === 'node16' ? 'node16' : 'preserve',
            moduleResolution: resolution,
            strict: true,
            skipLibCheck: false,
            noEmit: true,
            types: ['node'],
          },
          files: ['index.ts'],
        }),
      );
      const result = await run(process.execPath, [tsc, '-p', config], { cwd: consumer }).then(
        ({ stdout }) => stdout,
        (err: { stdout?: string; message: string }) => err.stdout || err.message,
      );
      expect({ resolution, errors: result }).toEqual({ resolution, errors: '' });
    }
  }, 120_000);
});
