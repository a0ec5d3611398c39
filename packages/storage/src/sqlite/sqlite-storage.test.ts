import { chmodSync, copyFileSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { tempDir } from '@listwatch/testing';
import { afterAll, describe, expect, it } from 'vitest';
import type { Storage } from '../storage.js';
import { isStorageError } from '../storage-error.js';
import { storageContract } from '../testing/contract.js';
import { SqliteStorage, type SqliteStorageOptions } from './sqlite-storage.js';

const dir = tempDir('listwatch-sqlite-');
afterAll(() => dir.remove());
let files = 0;
const nextFile = () => join(dir.path, `store-${files++}.db`);

function reopen(storage: Storage, options: Partial<SqliteStorageOptions> = {}): SqliteStorage {
  const { file } = storage as SqliteStorage;
  return new SqliteStorage({ file, compactionInterval: 0, prefix: storage.prefix, ...options });
}

storageContract('sqlite', {
  open: (options) =>
    Promise.resolve(new SqliteStorage({ file: nextFile(), compactionInterval: 0, ...options })),
  restart: async (storage) => {
    await storage.close();
    return reopen(storage);
  },
  writeRaw: async (storage, key, bytes) => {
    await storage.close();
    const db = new Database((storage as SqliteStorage).file);
    const rev = (db.prepare('SELECT MAX(rev) AS rev FROM kv_log').get() as { rev: number }).rev + 1;
    db.prepare(
      'INSERT INTO kv_log (rev, key, create_rev, prev_rev, deleted, value) VALUES (?, ?, ?, 0, 0, ?)',
    ).run(rev, key, rev, Buffer.from(bytes));
    db.prepare('INSERT INTO kv_current (key, rev) VALUES (?, ?)').run(key, rev);
    db.close();
    return reopen(storage);
  },
});

describe('sqlite: the file', () => {
  it('is owned by one storage at a time: a second one on the same file fails with Unreachable', async () => {
    const first = new SqliteStorage({ file: nextFile(), compactionInterval: 0 });
    try {
      let error: unknown;
      try {
        reopen(first);
      } catch (err) {
        error = err;
      }
      expect(isStorageError(error, 'Unreachable')).toBe(true);
      expect(String(error)).toContain('locked');
    } finally {
      await first.close();
    }
    const again = reopen(first);
    await again.close();
  });
});

// The database holds Secrets: like etcd's data dir (0700) and files (0600), never world-readable.
describe.skipIf(process.platform === 'win32')('sqlite: file permissions', () => {
  const mode = (path: string) => statSync(path).mode & 0o777;
  const dbFiles = (file: string) =>
    [file, `${file}-wal`, `${file}-shm`].filter((path) => existsSync(path));

  it('creates the missing directories 0700 and the database files 0600, whatever the umask', async () => {
    const previous = process.umask(0);
    try {
      const file = join(dir.path, 'umask-0', 'data', 'store.db');
      const storage = new SqliteStorage({ file, compactionInterval: 0 });
      try {
        await storage.create('/registry/secrets/ns/s', {
          metadata: { name: 's', namespace: 'ns' },
        });
        expect(mode(join(dir.path, 'umask-0'))).toBe(0o700);
        expect(mode(join(dir.path, 'umask-0', 'data'))).toBe(0o700);
        expect(dbFiles(file)).toContain(`${file}-wal`);
        for (const path of dbFiles(file)) expect([path, mode(path)]).toEqual([path, 0o600]);
      } finally {
        await storage.close();
      }
    } finally {
      process.umask(previous);
    }
  });

  it('tightens an existing world-readable database and its -wal and -shm files to 0600, and leaves an existing directory alone', async () => {
    const parent = join(dir.path, 'existing');
    mkdirSync(parent);
    chmodSync(parent, 0o755);
    const file = join(parent, 'store.db');
    // What an older release left behind after a crash: the files as a live WAL connection has
    // them (copied while it is open), readable by everyone.
    const scratch = join(dir.path, 'scratch.db');
    const live = new Database(scratch);
    live.pragma('journal_mode = WAL');
    live.exec('CREATE TABLE t (x); INSERT INTO t VALUES (1)');
    for (const suffix of ['', '-wal', '-shm']) {
      copyFileSync(`${scratch}${suffix}`, `${file}${suffix}`);
      chmodSync(`${file}${suffix}`, 0o644);
    }
    live.close();

    const storage = new SqliteStorage({ file, compactionInterval: 0 });
    try {
      expect(dbFiles(file)).toContain(`${file}-wal`);
      for (const path of dbFiles(file)) expect([path, mode(path)]).toEqual([path, 0o600]);
      expect(mode(parent)).toBe(0o755);
    } finally {
      await storage.close();
    }
  });
});

describe('sqlite: a large LIST', () => {
  const cm = (name: string, v: string) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'ns' },
    data: { v },
  });
  const key = (i: number) => `/registry/configmaps/ns/c${String(i).padStart(5, '0')}`;

  it('is read in batches at one revision: the event loop turns between them, and writes made meanwhile are not in it', async () => {
    const storage = new SqliteStorage({ file: nextFile(), compactionInterval: 0 });
    try {
      for (let i = 0; i < 1100; i += 275)
        await Promise.all(
          Array.from({ length: 275 }, (_, j) => storage.create(key(i + j), cm(`c${i + j}`, 'old'))),
        );
      const before = await storage.currentRevision();
      const events: string[] = [];
      // Written on the event loop's next turn, while the LIST is still reading.
      const writes = new Promise<void>((resolve) =>
        setImmediate(() => {
          events.push('writes');
          void Promise.all([
            storage.update(key(1099), cm('c1099', 'new')),
            storage.delete(key(1098)),
            storage.create(key(1100), cm('c1100', 'new')),
          ]).then(() => resolve());
        }),
      );
      const list = await storage.list('/registry/configmaps/');
      events.push('list');
      await writes;
      expect(events).toEqual(['writes', 'list']);
      expect(list.revision).toBe(before);
      expect(list.items).toHaveLength(1100);
      expect(list.items.at(-1)!['data']).toEqual({ v: 'old' });
      expect(list.items.map((o) => o.metadata.resourceVersion)).not.toContain(undefined);
      expect(new Set(list.keys).size).toBe(1100);
      // A limit past one batch (1,000 rows): the page and what remains after it, at one revision.
      const page = await storage.list('/registry/configmaps/', { limit: 1050, revision: before });
      expect(page.items).toHaveLength(1050);
      expect(page.keys.at(-1)).toBe(key(1049));
      expect(page.remaining).toBe(50);
      expect(page.more).toBe(true);
    } finally {
      await storage.close();
    }
  });
});
