import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, tempDir } from '@listwatch/testing';
import { describe, expect, it } from 'vitest';
import { createStorage, SQLITE_FILE } from './create-storage.js';
import { Etcd3Storage } from './etcd3/etcd3-storage.js';
import { MemoryStorage } from './memory/memory-storage.js';
import { SqliteStorage } from './sqlite/sqlite-storage.js';
import { isStorageError } from './storage-error.js';

const object = { metadata: { name: 'a', namespace: 'ns' } };

describe('createStorage', () => {
  it('memory gives an empty in-process store under the requested prefix', async () => {
    const storage = createStorage({ backend: 'memory', prefix: '/custom' });
    expect(storage).toBeInstanceOf(MemoryStorage);
    expect(storage.prefix).toBe('/custom');
    await storage.create('/custom/configmaps/ns/a', object);
    await storage.close();
  });

  it('sqlite, the default, keeps state.db in the data dir and finds the data again on reopening', async () => {
    const dir = tempDir();
    try {
      const first = createStorage({ dataDir: join(dir.path, 'nested'), compactionInterval: 0 });
      expect(first).toBeInstanceOf(SqliteStorage);
      const stored = await first.create('/registry/configmaps/ns/a', object);
      await first.close();
      expect(existsSync(join(dir.path, 'nested', SQLITE_FILE))).toBe(true);
      const second = createStorage({ backend: 'sqlite', dataDir: join(dir.path, 'nested') });
      expect(await second.get('/registry/configmaps/ns/a')).toEqual(stored);
      await second.close();
    } finally {
      dir.remove();
    }
  });

  it('etcd3 talks to the given endpoints (here: nobody, so Unreachable)', async () => {
    const storage = createStorage({
      backend: 'etcd3',
      endpoints: [`http://127.0.0.1:${await freePort()}`],
      requestTimeout: 500,
      compactionInterval: 0,
    });
    expect(storage).toBeInstanceOf(Etcd3Storage);
    const err = await storage.get('/registry/configmaps/ns/a').catch((e: unknown) => e);
    expect(isStorageError(err, 'Unreachable')).toBe(true);
    await storage.close();
  });

  it('an unknown backend is refused, naming the known ones', () => {
    expect(() => createStorage({ backend: 'redis' as never })).toThrow(/memory, sqlite, etcd3/);
  });
});
