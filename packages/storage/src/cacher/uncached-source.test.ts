import {
  findBuiltinResource,
  parseLabelSelector,
  type KubeObject,
  type Status,
  type WatchEvent,
} from '@listwatch/api';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryStorage } from '../memory/memory-storage.js';
import type { CacheWatcher } from './cache-watcher.js';
import { SelectionPredicate } from './predicate.js';
import { UncachedSource } from './uncached-source.js';

// --default-watch-cache-size 0: the same LIST/WATCH semantics, straight from storage.

const configmaps = findBuiltinResource('configmaps')!;
const key = (name: string) => `/registry/configmaps/ns/${name}`;
const cm = (name: string, labels: Record<string, string> = {}): KubeObject => ({
  metadata: { name, namespace: 'ns', labels },
});

async function take(watcher: CacheWatcher, count: number, ms = 2000): Promise<WatchEvent[]> {
  const out: WatchEvent[] = [];
  const deadline = Date.now() + ms;
  while (out.length < count && Date.now() < deadline) {
    const batch = await Promise.race([
      watcher.nextBatch(),
      new Promise<null>((r) => setTimeout(() => r(null), 100)),
    ]);
    if (batch) out.push(...batch.map((b) => b.encoded.event));
    else if (watcher.endReason) break;
  }
  return out;
}

const label = (e: WatchEvent) =>
  `${e.type}:${(e.object as KubeObject).metadata.name ?? (e.object as Status).code}`;

const open: { storage: MemoryStorage; source: UncachedSource }[] = [];
afterEach(async () => {
  for (const { storage, source } of open.splice(0)) {
    await source.stop();
    await storage.close();
  }
});

function setup() {
  const storage = new MemoryStorage({ compactionInterval: 0 });
  const source = new UncachedSource(storage, configmaps);
  open.push({ storage, source });
  return { storage, source };
}

describe('UncachedSource (watch cache disabled)', () => {
  it('lists straight from storage with limit, continue and remainingItemCount', async () => {
    const { storage, source } = setup();
    for (const n of ['a', 'b', 'c']) await storage.create(key(n), cm(n));
    const first = await source.list({ limit: 2 });
    expect(first.items.map((o) => o.metadata.name)).toEqual(['a', 'b']);
    expect(first.remainingItemCount).toBe(1);
    const rest = await source.list({ limit: 2, continue: first.continue! });
    expect(rest.items.map((o) => o.metadata.name)).toEqual(['c']);
  });

  it('a NotOlderThan list beyond the current revision is 504 Too large resource version', async () => {
    const { storage, source } = setup();
    const current = await storage.currentRevision();
    const err = (await source
      .list({ resourceVersion: String(current + 5) })
      .catch((e: unknown) => e)) as { status: Status };
    expect(err.status.code).toBe(504);
  });

  it('watches from resourceVersion 0 with synthetic ADDED, then changes with selector transitions', async () => {
    const { storage, source } = setup();
    await storage.create(key('a'), cm('a', { team: 'x' }));
    await storage.create(key('b'), cm('b', { team: 'y' }));
    const watcher = await source.watch({
      resourceVersion: '0',
      predicate: new SelectionPredicate(parseLabelSelector('team=x')),
    });
    await storage.update(key('b'), cm('b', { team: 'x' }));
    await storage.update(key('a'), cm('a', { team: 'y' }));
    expect((await take(watcher, 3)).map(label)).toEqual(['ADDED:a', 'ADDED:b', 'DELETED:a']);
  });

  it('a watch from a compacted resourceVersion ends with ERROR 410 Expired', async () => {
    const { storage, source } = setup();
    const a = await storage.create(key('a'), cm('a'));
    await storage.update(key('a'), cm('a', { v: '2' }));
    await storage.update(key('a'), cm('a', { v: '3' }));
    await storage.compact(await storage.currentRevision());
    const watcher = await source.watch({ resourceVersion: a.metadata.resourceVersion! });
    const events = await take(watcher, 1);
    expect(events.map(label)).toEqual(['ERROR:410']);
  });
});

describe('UncachedSource resourceVersion semantics', () => {
  it('a GET reads storage at any resourceVersion; one newer than storage is 504', async () => {
    const { storage, source } = setup();
    const a = await storage.create(key('a'), cm('a'));
    expect(await source.get({ namespace: 'ns', name: 'a', resourceVersion: '0' })).toEqual(a);
    const at = { namespace: 'ns', name: 'a', resourceVersion: a.metadata.resourceVersion! };
    expect(await source.get(at)).toEqual(a);
    expect(await source.get({ namespace: 'ns', name: 'b' })).toBeUndefined();
    const current = await storage.currentRevision();
    const err = (await source
      .get({ namespace: 'ns', name: 'a', resourceVersion: String(current + 5) })
      .catch((e: unknown) => e)) as { status: Status };
    expect(err.status.code).toBe(504);
  });

  it('sendInitialEvents=false from resourceVersion 0 sends only later changes, no history', async () => {
    const { storage, source } = setup();
    await storage.create(key('before'), cm('before'));
    const watcher = await source.watch({ sendInitialEvents: false, resourceVersion: '0' });
    await storage.create(key('after'), cm('after'));
    expect((await take(watcher, 1)).map(label)).toEqual(['ADDED:after']);
  });

  it('a watch-list not older than a future resourceVersion is 504, as a LIST is', async () => {
    const { storage, source } = setup();
    const current = await storage.currentRevision();
    const err = (await source
      .watch({ sendInitialEvents: true, resourceVersion: String(current + 5) })
      .catch((e: unknown) => e)) as { status: Status };
    expect(err.status.code).toBe(504);
  });
});
