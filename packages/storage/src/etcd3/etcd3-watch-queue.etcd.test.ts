import type { KubeObject } from '@listwatch/api';
import { EtcdCluster } from '@listwatch/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StorageChange, StorageEvent } from '../storage.js';
import type { WatchChannel } from '../watch-channel.js';
import { Etcd3Storage } from './etcd3-storage.js';

// The etcd3 backend bounds each watch's queue as the in-process backends do (watch-hub.ts): a
// consumer that falls behind costs at most the bound (plus what etcd sends before it takes the
// cancel); the etcd watch is canceled and re-created from the last queued revision once the consumer drains, so etcd serves
// the rest from its history (mvcc/watchable_store.go's unsynced watchers) — nothing lost,
// duplicated or reordered — or 410 if that history was compacted meanwhile.

const BOUND = 50;
const WRITES = BOUND * 8;

const cm = (name: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'ns' },
});

async function take(watch: AsyncIterable<StorageEvent>, count: number): Promise<StorageChange[]> {
  const iterator = watch[Symbol.asyncIterator]();
  const events: StorageChange[] = [];
  while (events.length < count) {
    const next = await iterator.next();
    if (next.done) break;
    if (next.value.type !== 'PROGRESS') events.push(next.value);
  }
  return events;
}

/**
 * Resolves once the watch holds the bound: etcd3-watch.ts drops its etcd stream in the same
 * response that reaches it (`pause`), so from then on the queue cannot grow until it drains.
 */
async function paused(watch: AsyncIterable<StorageEvent>): Promise<void> {
  await expect
    .poll(() => (watch as WatchChannel).queued, { timeout: 20_000, interval: 10 })
    .toBeGreaterThanOrEqual(BOUND);
}

let cluster: EtcdCluster;
let stores = 0;
beforeAll(async () => {
  cluster = await EtcdCluster.start();
});
afterAll(() => cluster?.destroy());

function open(): Etcd3Storage {
  return new Etcd3Storage({
    endpoints: cluster.endpoints,
    prefix: `/queue-${stores++}/registry`,
    compactionInterval: 0,
    watchQueueBound: BOUND,
  });
}

describe('etcd3: a storage watch whose consumer falls behind', () => {
  it('queues at most the bound while writes go on, then delivers every write once, in order, and is live again', async () => {
    const storage = open();
    const watch = storage.watch(`${storage.prefix}/configmaps/`);
    const prefix = `${storage.prefix}/configmaps/ns`;
    let peak = 0;
    for (let i = 0; i < WRITES; i++) {
      await storage.create(`${prefix}/c${i}`, cm(`c${i}`));
      peak = Math.max(peak, (watch as WatchChannel).queued);
    }
    await paused(watch);
    peak = Math.max(peak, (watch as WatchChannel).queued);
    expect(peak).toBeGreaterThanOrEqual(BOUND);
    // The bound, plus what etcd had sent before it took the cancel (more on a busy machine): far
    // from every write, which an unbounded queue would hold.
    expect(peak).toBeLessThan(WRITES / 2);
    const events = await take(watch, WRITES);
    expect(events.map((e) => e.object.metadata.name)).toEqual(
      Array.from({ length: WRITES }, (_, i) => `c${i}`),
    );
    for (let i = 1; i < events.length; i++)
      expect(events[i]!.revision).toBe(events[i - 1]!.revision + 1);
    const next = take(watch, 1);
    await storage.create(`${prefix}/live`, cm('live'));
    expect((await next)[0]).toMatchObject({
      type: 'ADDED',
      object: { metadata: { name: 'live' } },
    });
    watch.close();
    await storage.close();
  });

  it('ends with 410 Expired after its queued events when the history it still needs is compacted', async () => {
    const storage = open();
    const watch = storage.watch(`${storage.prefix}/configmaps/`);
    const prefix = `${storage.prefix}/configmaps/ns`;
    for (let i = 0; i < WRITES; i++) await storage.create(`${prefix}/c${i}`, cm(`c${i}`));
    await paused(watch);
    await storage.compact(await storage.currentRevision());
    const seen: StorageEvent[] = [];
    const error = await (async () => {
      for await (const event of watch) if (event.type !== 'PROGRESS') seen.push(event);
    })().catch((e: unknown) => e);
    expect(seen.length).toBeGreaterThanOrEqual(BOUND);
    expect(seen.length).toBeLessThan(WRITES);
    expect(error).toMatchObject({ storageCode: 'Expired', code: 410 });
    await storage.close();
  });
});
