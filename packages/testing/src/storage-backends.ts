import { EtcdCluster } from './etcd-server.js';
import { tempDir } from './temp-dir.js';
import { currentTier } from './tiers.js';

export type StorageBackendName = 'memory' | 'sqlite' | 'etcd3';

/**
 * How to make each backend's storage, from the caller's storage classes: this package cannot
 * depend on @listwatch/storage, whose own tests use it.
 */
export interface StorageFactories<S> {
  memory(): S;
  /** A storage on the SQLite database `file`. */
  sqlite(file: string): S;
  /** A storage on the etcd cluster at `endpoints`, under the key prefix `prefix`. */
  etcd3(endpoints: string[], prefix: string): S;
}

/** One storage backend of a matrix, with its setup and teardown (beforeAll, afterAll). */
export interface StorageBackend<S> {
  name: StorageBackendName;
  /** Whether reopening `data` finds what was written before (memory forgets on close). */
  persistent: boolean;
  /**
   * A storage on the data named `data`: a later call with the same name reopens the same data
   * (sqlite: the same file; etcd: the same key prefix), as a restarted apiserver does.
   */
  open(data: string): S;
  setup(): Promise<void>;
  teardown(): Promise<void>;
}

/**
 * The storage-backend matrix: memory, sqlite (files in a temp dir) and etcd3 (a real etcd started
 * by setup()), for `describe.each`. In the unit tier it is memory and sqlite, in the etcd tier
 * etcd3 alone; the file must be listed in `backendMatrices` (tiers.ts) for that etcd3 run.
 */
export function storageBackends<S>(make: StorageFactories<S>): StorageBackend<S>[] {
  let dir: { path: string; remove(): void } | undefined;
  let etcd: EtcdCluster | undefined;
  const all: StorageBackend<S>[] = [
    {
      name: 'memory',
      persistent: false,
      open: () => make.memory(),
      setup: () => Promise.resolve(),
      teardown: () => Promise.resolve(),
    },
    {
      name: 'sqlite',
      persistent: true,
      open: (data) => make.sqlite(`${dir!.path}/${data}.db`),
      setup: () => {
        dir = tempDir('listwatch-sqlite-');
        return Promise.resolve();
      },
      teardown: () => Promise.resolve(dir?.remove()),
    },
    {
      name: 'etcd3',
      persistent: true,
      open: (data) => make.etcd3(etcd!.endpoints, `/${data}`),
      setup: async () => {
        etcd = await EtcdCluster.start();
      },
      teardown: async () => {
        await etcd?.destroy();
      },
    },
  ];
  const tier = currentTier();
  if (tier === 'unit') return all.filter((backend) => backend.name !== 'etcd3');
  if (tier === 'etcd') return all.filter((backend) => backend.name === 'etcd3');
  return all;
}
