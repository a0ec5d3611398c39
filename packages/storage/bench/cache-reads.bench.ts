// Watch-cache reads (KEP-4988): what the B+ tree store and its copy-on-write snapshots cost and
// what they save. Three figures:
// - apply_150k_vs_1k5: the cache's cost per event (store, window, snapshot) at 150,000 objects
//   over its cost at 1,500 (target ≤ 2: O(log n), where a sorted array was O(n));
// - snapshot_overhead: memory the snapshots hold after 75 s of 100 writes/s on 50,000 pods, as a
//   fraction of the store's (target ≤ 0.1); time is simulated, revisions are driven;
// - paginated LIST (limit 500) latency from the cache vs from each backend.
// `pnpm --filter @listwatch/storage bench:cache-reads [-- --scale=0.2] [--no-etcd]`; needs
// `node --expose-gc` for the memory figure (the script sets it). runCacheReads() returns the
// figures for a runner.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { findBuiltinResource, type KubeObject } from '@listwatch/api';
import { EtcdCluster, samplePod, tempDir } from '@listwatch/testing';
import {
  Cacher,
  Etcd3Storage,
  MemoryStorage,
  SqliteStorage,
  UncachedSource,
  type ListWatchSource,
  type Storage,
} from '../src/index.js';
import { WatchCache } from '../src/cacher/watch-cache.js';

const pods = findBuiltinResource('pods')!;

export interface CacheReadsOptions {
  /** Multiplies the object counts and the write count (1: the sizes). */
  scale?: number;
  /** Measure LIST latency from etcd too (starts a one-member etcd). */
  etcd?: boolean;
  /** Progress lines (stderr by default). */
  log?: (line: string) => void;
}

export interface CacheReadsResult {
  figures: {
    /** Cost per applied event at 150,000 objects over at 1,500 (× scale). */
    apply_150k_vs_1k5: number;
    /** Snapshot memory over store memory after 75 s of 100 writes/s on 50,000 pods (× scale). */
    snapshot_overhead: number | undefined;
    /** Full paginated LIST (limit 500), ms, by source. */
    list_ms: Record<string, number>;
  };
  targets: { apply_150k_vs_1k5: number; snapshot_overhead: number };
  /** The sizes actually used. */
  sizes: { applyLarge: number; applySmall: number; pods: number; writes: number; listed: number };
  rows: Record<string, string | number>[];
}

/** A small pod: what the cache computes per event does not depend on the payload. */
function smallPod(i: number, version: number): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `p-${i}`, namespace: `ns-${i % 16}`, labels: { app: `a${i % 7}` } },
    spec: { nodeName: `node-${i % 100}` },
    status: { phase: version % 2 ? 'Running' : 'Pending' },
  };
}

const podKey = (i: number) => `/registry/pods/ns-${i % 16}/p-${i}`;

/** A watch cache of `n` small pods and a function timing `events` MODIFIED events on it (µs each). */
function applyBench(n: number): (events: number) => number {
  let clock = 0;
  const cache = new WatchCache(pods, {}, () => clock);
  cache.replace(
    Array.from({ length: n }, (_, i) => ({ key: podKey(i), object: smallPod(i, 0) })),
    1,
  );
  let revision = 1;
  let seed = 12345;
  const next = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff);
  return (events) => {
    const start = performance.now();
    for (let e = 0; e < events; e++) {
      const i = next() % n;
      clock += 10; // 100 writes/s: the window holds 75 s of them, each with its snapshot
      cache.apply({ type: 'MODIFIED', key: podKey(i), object: smallPod(i, ++revision), revision });
    }
    return ((performance.now() - start) * 1000) / events;
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;

/** µs per event at `small` and `large` objects: rounds alternate, medians (a shared machine). */
function applyCosts(small: number, large: number): { small: number; large: number } {
  const benches = { small: applyBench(small), large: applyBench(large) };
  benches.small(10_000); // warm-up: fills the window
  benches.large(10_000);
  const times = { small: [] as number[], large: [] as number[] };
  for (let round = 0; round < 5; round++) {
    times.small.push(benches.small(5_000));
    times.large.push(benches.large(5_000));
  }
  return { small: median(times.small), large: median(times.large) };
}

function heapUsed(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed;
}

/**
 * Store memory and the snapshots' extra memory after `writes` writes at 100/s (simulated clock) to
 * `count` pods: the same run with and without snapshots, the difference is what they hold.
 */
function snapshotMemory(count: number, writes: number): { store: number; snapshots: number } {
  const run = (snapshots: boolean) => {
    const before = heapUsed();
    let clock = 0;
    const cache = new WatchCache(pods, { snapshots }, () => clock);
    const key = (i: number) => `/registry/pods/ns-${i % 16}/pod-${i}`;
    cache.replace(
      Array.from({ length: count }, (_, i) => ({ key: key(i), object: samplePod(i) })),
      1,
    );
    const store = heapUsed() - before;
    let revision = 1;
    for (let w = 0; w < writes; w++) {
      const i = (w * 7919) % count;
      const object = samplePod(i);
      object.metadata.resourceVersion = String(++revision);
      clock += 10; // 100 writes/s
      cache.apply({ type: 'MODIFIED', key: key(i), object, revision });
    }
    const after = heapUsed();
    if (snapshots && cache.window.snapshotCount < writes)
      throw new Error(`window kept ${cache.window.snapshotCount} snapshots of ${writes}`);
    return { store, total: after - before };
  };
  const without = run(false);
  const withSnapshots = run(true);
  return { store: withSnapshots.store, snapshots: withSnapshots.total - without.total };
}

/** Milliseconds for one full paginated LIST (limit 500) through `source`, median of 3. */
async function paginatedList(source: ListWatchSource): Promise<{ ms: number; items: number }> {
  const times: number[] = [];
  let items = 0;
  for (let round = 0; round < 3; round++) {
    const start = performance.now();
    items = 0;
    let page = await source.list({ limit: 500 });
    for (;;) {
      items += page.items.length;
      if (!page.continue) break;
      page = await source.list({ limit: 500, continue: page.continue });
    }
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return { ms: times[1]!, items };
}

async function fill(storage: Storage, count: number): Promise<void> {
  const batch = 64;
  for (let i = 0; i < count; i += batch) {
    await Promise.all(
      Array.from({ length: Math.min(batch, count - i) }, (_, j) => {
        const object = samplePod(i + j);
        delete object.metadata.resourceVersion;
        const ns = object.metadata.namespace!;
        return storage.create(`${storage.prefix}/pods/${ns}/pod-${i + j}`, object);
      }),
    );
  }
}

export async function runCacheReads(options: CacheReadsOptions = {}): Promise<CacheReadsResult> {
  const scale = options.scale ?? 1;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const sizes = {
    applyLarge: Math.round(150_000 * scale),
    applySmall: Math.round(1_500 * scale),
    pods: Math.round(50_000 * scale),
    writes: Math.round(7_500 * scale),
    listed: Math.round(50_000 * scale),
  };
  const rows: Record<string, string | number>[] = [];

  log(`apply cost at ${sizes.applySmall} and ${sizes.applyLarge} objects…`);
  const { small, large } = applyCosts(sizes.applySmall, sizes.applyLarge);
  const applyRatio = large / small;
  rows.push(
    { measure: `apply µs/event at ${sizes.applySmall} objects`, value: small.toFixed(2) },
    { measure: `apply µs/event at ${sizes.applyLarge} objects`, value: large.toFixed(2) },
    { measure: 'apply_150k_vs_1k5 (target ≤ 2)', value: applyRatio.toFixed(2) },
  );

  let overhead: number | undefined;
  if ((globalThis as { gc?: unknown }).gc) {
    log(`snapshot memory: ${sizes.writes} writes to ${sizes.pods} pods…`);
    const memory = snapshotMemory(sizes.pods, sizes.writes);
    overhead = memory.snapshots / memory.store;
    rows.push(
      { measure: `store MB (${sizes.pods} pods)`, value: (memory.store / 1e6).toFixed(1) },
      {
        measure: `snapshots MB (${sizes.writes} revisions)`,
        value: (memory.snapshots / 1e6).toFixed(1),
      },
      { measure: 'snapshot_overhead (target ≤ 0.1)', value: overhead.toFixed(3) },
    );
  } else {
    rows.push({ measure: 'snapshot_overhead', value: 'skipped: run node with --expose-gc' });
  }

  const listMs: Record<string, number> = {};
  const dir = tempDir('listwatch-cache-reads-');
  const cluster = options.etcd === false ? undefined : await EtcdCluster.start();
  try {
    const backends: [string, () => Storage][] = [
      ['memory', () => new MemoryStorage({ compactionInterval: 0 })],
      [
        'sqlite',
        () => new SqliteStorage({ file: join(dir.path, 'list.db'), compactionInterval: 0 }),
      ],
    ];
    if (cluster) {
      backends.push([
        'etcd3',
        () =>
          new Etcd3Storage({
            endpoints: cluster.endpoints,
            prefix: '/bench',
            compactionInterval: 0,
          }),
      ]);
    }
    for (const [name, open] of backends) {
      log(`paginated LIST of ${sizes.listed} pods: ${name}…`);
      const storage = open();
      try {
        await fill(storage, sizes.listed);
        const direct = await paginatedList(new UncachedSource(storage, pods));
        listMs[name] = direct.ms;
        rows.push({ measure: `paginated LIST ms from ${name}`, value: direct.ms.toFixed(1) });
        if (name === 'memory') {
          const cacher = new Cacher({ storage, definition: pods });
          await cacher.start();
          const cached = await paginatedList(cacher);
          await cacher.stop();
          listMs['cache'] = cached.ms;
          rows.push({ measure: 'paginated LIST ms from the cache', value: cached.ms.toFixed(1) });
        }
      } finally {
        await storage.close();
      }
    }
  } finally {
    await cluster?.destroy();
    dir.remove();
  }
  return {
    figures: { apply_150k_vs_1k5: applyRatio, snapshot_overhead: overhead, list_ms: listMs },
    targets: { apply_150k_vs_1k5: 2, snapshot_overhead: 0.1 },
    sizes,
    rows,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
  const scale = Number(arg('scale') ?? '1');
  const result = await runCacheReads({ scale, etcd: !process.argv.includes('--no-etcd') });
  console.log(
    `\nWatch-cache reads (scale ${scale}: ${result.sizes.applyLarge} vs ${result.sizes.applySmall} objects applied, ${result.sizes.writes} writes on ${result.sizes.pods} pods, ${result.sizes.listed} pods listed)`,
  );
  console.table(result.rows);
}
