// Watch-cache fan-out: one storage write stream delivered to 1000 watchers, each event encoded
// once and shared (kube's cachingObject) vs encoded again for every watcher — the ratio in one
// run. `pnpm --filter @listwatch/storage bench`.
import { findBuiltinResource, type KubeObject } from '@listwatch/api';
import { encodeWatchEvent, samplePod } from '@listwatch/codec';
import { Cacher, MemoryStorage, type CacheWatcher } from '../src/index.js';

const WATCHERS = 1000;
const EVENTS = 200;
const pods = findBuiltinResource('pods')!;

type Mode = 'encode once' | 'encode per watcher';

async function run(mode: Mode): Promise<{ seconds: number; bytes: number; deliveries: number }> {
  const storage = new MemoryStorage({ compactionInterval: 0 });
  const cacher = new Cacher({
    storage,
    definition: pods,
    watcherCapacity: EVENTS + 10,
    blockedBudgetMs: 60_000,
  });
  await cacher.start();
  const watchers: CacheWatcher[] = [];
  for (let i = 0; i < WATCHERS; i++)
    watchers.push(await cacher.watch({ resourceVersion: String(cacher.revision) }));
  const objects: KubeObject[] = Array.from({ length: EVENTS }, (_, i) => samplePod(i));
  for (const o of objects) delete o.metadata.resourceVersion;
  let bytes = 0;
  let deliveries = 0;
  const start = performance.now();
  for (const [i, o] of objects.entries())
    await storage.create(`/registry/pods/${o.metadata.namespace}/${o.metadata.name ?? i}`, o);
  // Every watcher drains its events into "the socket": the bytes it would write.
  await Promise.all(
    watchers.map(async (w) => {
      let got = 0;
      while (got < EVENTS) {
        const batch = await w.nextBatch();
        if (!batch) break;
        for (const e of batch) {
          const out =
            mode === 'encode once'
              ? e.encoded.bytes('json')
              : encodeWatchEvent(e.encoded.event, 'json');
          bytes += out.length;
        }
        got += batch.length;
        deliveries += batch.length;
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  await cacher.stop();
  await storage.close();
  return { seconds, bytes, deliveries };
}

const rows: Record<string, string>[] = [];
const results: Partial<Record<Mode, number>> = {};
for (const mode of ['encode per watcher', 'encode once'] as const) {
  process.stderr.write(`fan-out: ${mode}, ${WATCHERS} watchers × ${EVENTS} pod events…\n`);
  const r = await run(mode);
  results[mode] = r.deliveries / r.seconds;
  rows.push({
    mode,
    'deliveries/s': Math.round(r.deliveries / r.seconds).toLocaleString('en-US'),
    'MB/s': (r.bytes / 1e6 / r.seconds).toFixed(0),
    seconds: r.seconds.toFixed(2),
  });
}
console.log(`\nWatch-cache fan-out to ${WATCHERS} watchers (${EVENTS} Pod events of ~4.9 KB)`);
console.table(rows);
console.log(
  `encode once vs encode per watcher: ${(results['encode once']! / results['encode per watcher']!).toFixed(1)}× (target ≥ 6×)`,
);
