// `storage`: write throughput (1 and 16 writers) and watch replay per backend, side by side in
// one run, in the runner's process (etcd in its own, started by the test harness).
import { join } from 'node:path';
import { EtcdCluster, tempDir } from '@listwatch/testing';
import type { KubeObject } from '@listwatch/api';
import type { Scenario } from '../../../bench/lib.js';
import { timedLoops } from '../../../bench/proc.js';
import {
  Etcd3Storage,
  MemoryStorage,
  SqliteStorage,
  type Storage,
  type StorageWatch,
} from '../src/index.js';

let PHASE_MS = 2_000;
const CONCURRENCY = 16;

/** A ConfigMap of about 1 KiB, the size of a small real object. */
function object(name: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'bench', labels: { app: 'bench', tier: 'storage' } },
    data: { payload: 'x'.repeat(900) },
  };
}

let seq = 0;
const key = (s: Storage) => {
  const name = `o${seq++}`;
  return [`${s.prefix}/configmaps/bench/${name}`, name] as const;
};

/** Creates objects with `writers` concurrent loops for PHASE_MS; returns writes per second. */
async function writes(storage: Storage, writers: number): Promise<number> {
  const { ops, seconds } = await timedLoops(writers, PHASE_MS, async () => {
    const [k, name] = key(storage);
    await storage.create(k, object(name));
    return 1;
  });
  return ops / seconds;
}

/** Delivers every change since `from` through one watch; returns events per second. */
async function watchReplay(
  storage: Storage,
  from: number,
): Promise<{ rate: number; events: number }> {
  const target = await storage.currentRevision();
  const start = performance.now();
  const watch: StorageWatch = storage.watch(`${storage.prefix}/configmaps`, { fromRevision: from });
  let events = 0;
  for await (const event of watch) {
    if (event.type === 'PROGRESS') continue;
    events++;
    if (event.revision >= target) break;
  }
  return { rate: events / ((performance.now() - start) / 1000), events };
}

type Row = Record<string, number>;

/** Each phase gets a fresh store from `open`, so no phase runs on another's leftovers. */
async function measure(backend: string, open: () => Storage): Promise<Row> {
  const key = backend.split(' ')[0]!.replace(/[^a-z0-9]+/gi, '_');
  const first = open();
  const sequential = await writes(first, 1);
  await first.close();
  const second = open();
  const from = await second.currentRevision();
  const concurrent = await writes(second, CONCURRENCY);
  const replay = await watchReplay(second, from);
  await second.close();
  return {
    [`${key}_writes_per_s_1_writer`]: sequential,
    [`${key}_writes_per_s_${CONCURRENCY}_writers`]: concurrent,
    [`${key}_watch_replay_events_per_s`]: replay.rate,
  };
}

export const scenario: Scenario = {
  name: 'storage',
  title: `storage backends: writes/s with 1 and ${CONCURRENCY} writers, watch replay events/s`,
  processes: () => 'the runner (storage in-process) + etcd (1 member, its own process)',
  rounds: (ctx) => (ctx.quick ? 1 : 3),
  async open(ctx) {
    PHASE_MS = ctx.quick ? 500 : 2_000;
    const dir = tempDir('listwatch-bench-');
    const cluster = await EtcdCluster.start();
    let files = 0;
    let prefixes = 0;
    return {
      async round() {
        const metrics: Row = {
          ...(await measure('memory', () => new MemoryStorage({ compactionInterval: 0 }))),
          ...(await measure(
            'sqlite_full (synchronous=FULL)',
            () =>
              new SqliteStorage({ file: join(dir.path, `${files++}.db`), compactionInterval: 0 }),
          )),
          ...(await measure(
            'sqlite_normal (synchronous=NORMAL)',
            () =>
              new SqliteStorage({
                file: join(dir.path, `${files++}.db`),
                compactionInterval: 0,
                synchronous: 'NORMAL',
              }),
          )),
          ...(await measure(
            'etcd3 (1 member, --unsafe-no-fsync)',
            () =>
              new Etcd3Storage({
                endpoints: cluster.endpoints,
                prefix: `/bench-${prefixes++}`,
                compactionInterval: 0,
              }),
          )),
        };
        return { metrics };
      },
      async close() {
        await cluster.destroy();
        dir.remove();
      },
    };
  },
};
