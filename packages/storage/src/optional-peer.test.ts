import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from '@listwatch/testing';
import type Database from 'better-sqlite3';
import type * as Etcd3Module from 'etcd3';
import { afterAll, describe, expect, it } from 'vitest';
import { loadOptionalPeer } from './optional-peer.js';

// better-sqlite3 and etcd3 are optional peers: a memory-only install has neither, and opening
// their backend must say what to install. Node's own require, from a directory outside the
// workspace, is a project where they are not installed; in a process of its own, because
// pnpm's bin shims put every package of the workspace on NODE_PATH.
describe('optional storage backends', () => {
  const dir = tempDir('listwatch-optional-peer-');
  afterAll(() => dir.remove());
  const requireFrom = (project: string) => createRequire(join(project, 'index.js'));

  /** The error loading `name` for `backend` from an empty project raises, in a clean process. */
  function missing(name: string, backend: string): string {
    const project = join(dir.path, `empty-${name}`);
    mkdirSync(project);
    const script = [
      `import { createRequire } from 'node:module';`,
      `import { loadOptionalPeer } from ${JSON.stringify(new URL('./optional-peer.ts', import.meta.url).href)};`,
      `try {`,
      `  loadOptionalPeer(${JSON.stringify(name)}, ${JSON.stringify(backend)}, createRequire(${JSON.stringify(join(project, 'index.js'))}));`,
      `  console.log('loaded');`,
      `} catch (err) { console.log(err.message); }`,
    ].join('\n');
    return execFileSync(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      {
        cwd: fileURLToPath(new URL('..', import.meta.url)),
        env: { ...process.env, NODE_PATH: '' },
        encoding: 'utf8',
      },
    ).trim();
  }

  it('a backend whose package is not installed fails naming the package to install', () => {
    expect(missing('better-sqlite3', 'sqlite')).toBe(
      'the sqlite storage backend needs the package better-sqlite3, an optional peer dependency of @listwatch/storage that is not installed: npm i better-sqlite3',
    );
    expect(missing('etcd3', 'etcd3')).toMatch(
      /^the etcd3 storage backend needs the package etcd3,.*: npm i etcd3$/,
    );
  });

  it('an installed package that fails to load reports its own error, not a missing package', () => {
    const project = join(dir.path, 'broken');
    mkdirSync(join(project, 'node_modules', 'better-sqlite3'), { recursive: true });
    writeFileSync(
      join(project, 'node_modules', 'better-sqlite3', 'index.js'),
      "require('bindings-that-are-not-there');",
    );
    expect(() => loadOptionalPeer('better-sqlite3', 'sqlite', requireFrom(project))).toThrow(
      /Cannot find module 'bindings-that-are-not-there'/,
    );
  });

  it('an installed backend package loads', () => {
    const BetterSqlite = loadOptionalPeer<typeof Database>('better-sqlite3', 'sqlite');
    const db = new BetterSqlite(':memory:');
    expect(db.prepare('SELECT 1 AS one').get()).toEqual({ one: 1 });
    db.close();
    expect(typeof loadOptionalPeer<typeof Etcd3Module>('etcd3', 'etcd3').Etcd3).toBe('function');
  });
});
