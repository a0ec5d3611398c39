import type { KubeObject } from '@listwatch/api';
import { describe, expect, it } from 'vitest';
import { MemoryStorage } from './memory/memory-storage.js';
import type { StorageEvent } from './storage.js';
import { WATCH_QUEUE_BOUND } from './watch-hub.js';
import type { WatchChannel } from './watch-channel.js';

// The in-process backends' watch queues are bounded: a consumer that falls behind costs at most
// WATCH_QUEUE_BOUND queued events, then catches up from the log with nothing lost, duplicated or
// reordered (etcd's unsynced watchers, mvcc/watchable_store.go), and gets 410 if the history it
// still needs was compacted.

const cm = (name: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'ns' },
});

/** The next `count` changes, without ending the watch (a `for await` break would close it). */
async function take(watch: AsyncIterable<StorageEvent>, count: number): Promise<StorageEvent[]> {
  const iterator = watch[Symbol.asyncIterator]();
  const events: StorageEvent[] = [];
  while (events.length < count) {
    const next = await iterator.next();
    if (next.done) break;
    if (next.value.type !== 'PROGRESS') events.push(next.value);
  }
  return events;
}

describe('a storage watch whose consumer falls behind', () => {
  const writes = WATCH_QUEUE_BOUND * 3;

  it('queues at most the bound, then delivers every write once, in order, from the log', async () => {
    const storage = new MemoryStorage({ compactionInterval: 0 });
    const watch = storage.watch('/registry/configmaps/');
    for (let i = 0; i < writes; i++)
      await storage.create(`/registry/configmaps/ns/c${i}`, cm(`c${i}`));
    expect((watch as WatchChannel).queued).toBe(WATCH_QUEUE_BOUND);
    const events = await take(watch, writes);
    expect(events.map((e) => (e.type === 'PROGRESS' ? '' : e.object.metadata.name))).toEqual(
      Array.from({ length: writes }, (_, i) => `c${i}`),
    );
    // Live again: the next write arrives as it is made.
    const next = take(watch, 1);
    await storage.create('/registry/configmaps/ns/live', cm('live'));
    expect((await next)[0]).toMatchObject({
      type: 'ADDED',
      object: { metadata: { name: 'live' } },
    });
    watch.close();
    await storage.close();
  });

  it('a watch from far back in history is served in bounded steps too', async () => {
    const storage = new MemoryStorage({ compactionInterval: 0 });
    const first = await storage.create('/registry/configmaps/ns/first', cm('first'));
    for (let i = 0; i < writes; i++)
      await storage.create(`/registry/configmaps/ns/c${i}`, cm(`c${i}`));
    const watch = storage.watch('/registry/configmaps/', {
      fromRevision: Number(first.metadata.resourceVersion),
    });
    expect((watch as WatchChannel).queued).toBe(WATCH_QUEUE_BOUND);
    expect((await take(watch, writes)).at(-1)).toMatchObject({
      object: { metadata: { name: `c${writes - 1}` } },
    });
    watch.close();
    await storage.close();
  });

  it('ends with 410 Expired after its queued events when the history it needs is compacted', async () => {
    const storage = new MemoryStorage({ compactionInterval: 0 });
    const watch = storage.watch('/registry/configmaps/');
    for (let i = 0; i < writes; i++)
      await storage.create(`/registry/configmaps/ns/c${i}`, cm(`c${i}`));
    await storage.compact(await storage.currentRevision());
    const seen: StorageEvent[] = [];
    const error = await (async () => {
      for await (const event of watch) seen.push(event);
    })().catch((e: unknown) => e);
    expect(seen).toHaveLength(WATCH_QUEUE_BOUND);
    expect(error).toMatchObject({ storageCode: 'Expired', code: 410 });
    await storage.close();
  });
});
