import { Etcd3Storage, MemoryStorage, SqliteStorage, type Storage } from '@listwatch/storage';
import { EtcdCluster, tempDir } from '@listwatch/testing';

/**
 * A storage backend the HTTP tests run the apiserver on (the apiserver's own suite does the
 * same), with its setup and teardown.
 */
export interface Backend {
  name: 'memory' | 'sqlite' | 'etcd3';
  /** Whether reopening `data` finds what was written before (memory forgets on close). */
  persistent: boolean;
  /**
   * A storage on the data named `data`: a later call with the same name reopens the same data
   * (sqlite: the same file; etcd: the same key prefix), as a restarted apiserver does.
   */
  open(data: string): Storage;
  setup(): Promise<void>;
  teardown(): Promise<void>;
}

/** memory, sqlite (a temp file) and a real etcd started by the harness. */
export function backends(): Backend[] {
  let dir: { path: string; remove(): void } | undefined;
  let etcd: EtcdCluster | undefined;
  // Automatic compaction off: tests compact when they mean to.
  const common = { compactionInterval: 0 };
  return [
    {
      name: 'memory',
      persistent: false,
      open: () => new MemoryStorage(common),
      setup: () => Promise.resolve(),
      teardown: () => Promise.resolve(),
    },
    {
      name: 'sqlite',
      persistent: true,
      // NORMAL survives a process crash, which is all a restart test needs, and spares fsyncs.
      open: (data) =>
        new SqliteStorage({ ...common, file: `${dir!.path}/${data}.db`, synchronous: 'NORMAL' }),
      setup: () => {
        dir = tempDir('listwatch-client-');
        return Promise.resolve();
      },
      teardown: () => Promise.resolve(dir?.remove()),
    },
    {
      name: 'etcd3',
      persistent: true,
      open: (data) =>
        new Etcd3Storage({ ...common, endpoints: etcd!.endpoints, prefix: `/client-${data}` }),
      setup: async () => {
        etcd = await EtcdCluster.start();
      },
      teardown: async () => {
        await etcd?.destroy();
      },
    },
  ];
}
