import {
  ApiError,
  findBuiltinResource,
  INITIAL_EVENTS_END_ANNOTATION,
  parseFieldSelector,
  parseLabelSelector,
  type KubeObject,
  type Status,
  type WatchEvent,
} from '@listwatch/api';
import { EtcdCluster, tempDir } from '@listwatch/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Etcd3Storage } from '../etcd3/etcd3-storage.js';
import { MemoryStorage } from '../memory/memory-storage.js';
import { SqliteStorage } from '../sqlite/sqlite-storage.js';
import type { Storage } from '../storage.js';
import { FaultInjectingStorage } from '../testing/fault-injecting-storage.js';
import type { CacheWatcher } from './cache-watcher.js';
import { Cacher, type CacherOptions } from './cacher.js';
import { SelectionPredicate } from './predicate.js';

// Semantics from k8s.io/apiserver/pkg/storage/cacher (cacher.go, watch_cache.go,
// cache_watcher.go).

const configmaps = findBuiltinResource('configmaps')!;
const pods = findBuiltinResource('pods')!;

function cm(
  namespace: string,
  name: string,
  labels?: Record<string, string>,
  data: Record<string, string> = {},
): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace, ...(labels ? { labels } : {}) },
    data,
  };
}

function pod(namespace: string, name: string, nodeName: string): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace }, spec: { nodeName } };
}

/** The storage under test; each backend sets it (etcd gets a fresh key prefix per test). */
let makeStorage: () => Promise<Storage>;
let prefix = '/registry';
const cmKey = (ns: string, name: string) => `${prefix}/configmaps/${ns}/${name}`;

/** Reads `count` events (or fewer if the watch ends or `ms` passes). */
async function take(watcher: CacheWatcher, count: number, ms = 3000): Promise<WatchEvent[]> {
  const out: WatchEvent[] = [];
  const deadline = Date.now() + ms;
  while (out.length < count) {
    const left = deadline - Date.now();
    if (left <= 0) break;
    const batch = await Promise.race([
      watcher.nextBatch(),
      new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), left)),
    ]);
    if (batch === 'timeout' || batch === null) break;
    out.push(...batch.map((b) => b.encoded.event));
  }
  return out;
}

const names = (events: WatchEvent[]) =>
  events.map(
    (e) => `${e.type}:${e.type === 'ERROR' ? e.object.code : (e.object.metadata.name ?? '')}`,
  );

const rv = (o: KubeObject) => Number(o.metadata.resourceVersion);

/**
 * Whether a starting cache replays storage's history: only with reliable progress requests
 * (not etcd before 3.4.31/3.5.13, whose caches list at the current revision as kube's do).
 */
const replaysHistory = async (storage: Storage) =>
  (await storage.supportsProgressRequests?.()) ?? true;

/**
 * Waits until the cache has seen storage's current revision (a LIST not older than it), so a
 * later resourceVersion=0 read sees every write made so far. Not a consistent LIST: on an etcd
 * that cannot answer progress requests reliably that reads etcd and leaves the cache as it is.
 */
async function caughtUp(cacher: Cacher, storage: Storage): Promise<void> {
  await cacher.list({ resourceVersion: String(await storage.currentRevision()) });
}

const open: { cacher: Cacher; storage: Storage }[] = [];
afterEach(async () => {
  for (const { cacher, storage } of open.splice(0)) {
    await cacher.stop();
    await storage.close();
  }
});

async function setup(options: Partial<CacherOptions> = {}, given?: Storage) {
  const storage = given ?? (await makeStorage());
  const cacher = new Cacher({
    storage,
    definition: configmaps,
    freshnessTimeoutMs: 500,
    progressIntervalMs: 20,
    tickIntervalMs: 50,
    ...options,
  });
  open.push({ cacher, storage });
  await cacher.start();
  return { cacher, storage };
}

const backends: {
  name: string;
  make: () => Promise<Storage>;
  setup?: () => Promise<() => Promise<void>>;
}[] = [];
let etcd: EtcdCluster | undefined;
let sqliteDir: { path: string; remove(): void } | undefined;
let serial = 0;
backends.push(
  { name: 'memory', make: () => Promise.resolve(new MemoryStorage({ compactionInterval: 0 })) },
  {
    name: 'sqlite',
    make: () =>
      Promise.resolve(
        new SqliteStorage({
          file: `${sqliteDir!.path}/db-${serial++}.sqlite`,
          compactionInterval: 0,
        }),
      ),
    setup: () => {
      sqliteDir = tempDir('listwatch-cacher-');
      return Promise.resolve(() => Promise.resolve(sqliteDir!.remove()));
    },
  },
  {
    name: 'etcd3',
    make: () => {
      prefix = `/cacher-test-${serial++}`;
      return Promise.resolve(
        new Etcd3Storage({ endpoints: etcd!.endpoints, prefix, compactionInterval: 0 }),
      );
    },
    setup: async () => {
      etcd = await EtcdCluster.start();
      return () => etcd!.destroy();
    },
  },
);

describe.each(backends)('the watch cache on $name storage', (backend) => {
  let teardown: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    teardown = await backend.setup?.();
    makeStorage = backend.make;
  });
  afterAll(async () => {
    await teardown?.();
    prefix = '/registry';
  });
  beforeEach(() => {
    makeStorage = backend.make;
    if (backend.name !== 'etcd3') prefix = '/registry';
  });

  describe('Cacher LIST', () => {
    it('is ready only after listing storage, and serves what storage held before it started', async () => {
      const storage = await makeStorage();
      await storage.create(cmKey('a', 'one'), cm('a', 'one'));
      await storage.create(cmKey('b', 'two'), cm('b', 'two'));
      const { cacher } = await setup({}, storage);
      expect(cacher.isReady).toBe(true);
      const list = await cacher.list({ resourceVersion: '0' });
      expect(list.items.map((o) => o.metadata.name)).toEqual(['one', 'two']);
      expect(Number(list.resourceVersion)).toBe(await storage.currentRevision());
    });

    it('a new version in the cache shares its unchanged parts with the version before it (memory per version is what changed)', async () => {
      const { cacher, storage } = await setup({ definition: pods });
      const key = `${prefix}/pods/ns/p`;
      const spec = { containers: [{ name: 'c', image: 'i', args: ['--a', '--b'] }] };
      const created = await storage.create(key, { ...pod('ns', 'p', ''), spec });
      await caughtUp(cacher, storage);
      const first = cacher.cachedObject(key)!;
      const updated = await storage.update(key, { ...created, status: { phase: 'Running' } });
      await caughtUp(cacher, storage);
      const second = cacher.cachedObject(key)!;
      expect(second).toEqual(updated);
      expect(JSON.stringify(second)).toBe(JSON.stringify(updated));
      expect(second['spec']).toBe(first['spec']);
      expect(first['status']).toBeUndefined();
    });

    it('a consistent LIST (resourceVersion unset) sees a write made just before it', async () => {
      const { cacher, storage } = await setup();
      for (let i = 0; i < 20; i++) {
        const created = await storage.create(cmKey('ns', `c${i}`), cm('ns', `c${i}`));
        const list = await cacher.list({});
        expect(list.items.map((o) => o.metadata.name)).toContain(`c${i}`);
        expect(Number(list.resourceVersion)).toBeGreaterThanOrEqual(rv(created));
      }
    });

    it('a consistent LIST waits for progress when the newest write was to another resource', async () => {
      const { cacher, storage } = await setup();
      await storage.create(`${prefix}/secrets/ns/s`, { metadata: { name: 's', namespace: 'ns' } });
      const current = await storage.currentRevision();
      const list = await cacher.list({});
      expect(Number(list.resourceVersion)).toBeGreaterThanOrEqual(current);
    });

    it('resourceVersion=N newer than anything the cache will see ends in 504 Too large resource version', async () => {
      const { cacher, storage } = await setup();
      const current = await storage.currentRevision();
      const err = await cacher
        .list({ resourceVersion: String(current + 100) })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      const status = (err as ApiError).status;
      expect(status.code).toBe(504);
      expect(status.reason).toBe('Timeout');
      expect(status.message).toBe(
        `Timeout: Too large resource version: ${current + 100}, current: ${current}`,
      );
      expect(status.details?.causes?.[0]?.reason).toBe('ResourceVersionTooLarge');
      expect(status.details?.retryAfterSeconds).toBe(1);
    });

    it('resourceVersion=N waits until the cache has caught up to N', async () => {
      const { cacher, storage } = await setup({ freshnessTimeoutMs: 3000 });
      const current = await storage.currentRevision();
      const pending = cacher.list({
        resourceVersion: String(current + 1),
        resourceVersionMatch: 'NotOlderThan',
      });
      await storage.create(cmKey('ns', 'late'), cm('ns', 'late'));
      const list = await pending;
      expect(list.items.map((o) => o.metadata.name)).toEqual(['late']);
    });

    it('resourceVersion=0 ignores limit and returns everything in one response', async () => {
      const { cacher, storage } = await setup();
      for (let i = 0; i < 5; i++) await storage.create(cmKey('ns', `c${i}`), cm('ns', `c${i}`));
      await caughtUp(cacher, storage);
      const list = await cacher.list({ resourceVersion: '0', limit: 2 });
      expect(list.items).toHaveLength(5);
      expect(list.continue).toBeUndefined();
    });

    it('pages a consistent LIST at one resourceVersion, with remainingItemCount, continuing from storage', async () => {
      const { cacher, storage } = await setup();
      for (let i = 0; i < 7; i++) await storage.create(cmKey('ns', `c${i}`), cm('ns', `c${i}`));
      const first = await cacher.list({ limit: 3 });
      expect(first.items.map((o) => o.metadata.name)).toEqual(['c0', 'c1', 'c2']);
      expect(first.remainingItemCount).toBe(4);
      // Writes between pages must not show: every page is read at the first page's revision.
      await storage.create(cmKey('ns', 'c3a'), cm('ns', 'c3a'));
      const second = await cacher.list({ limit: 3, continue: first.continue! });
      expect(second.resourceVersion).toBe(first.resourceVersion);
      expect(second.items.map((o) => o.metadata.name)).toEqual(['c3', 'c4', 'c5']);
      expect(second.remainingItemCount).toBe(1);
      const last = await cacher.list({ limit: 3, continue: second.continue! });
      expect(last.items.map((o) => o.metadata.name)).toEqual(['c6']);
      expect(last.continue).toBeUndefined();
      expect(last.remainingItemCount).toBeUndefined();
    });

    it('a selector hides remainingItemCount and applies before the limit', async () => {
      const { cacher, storage } = await setup();
      for (let i = 0; i < 6; i++)
        await storage.create(cmKey('ns', `c${i}`), cm('ns', `c${i}`, { odd: String(i % 2) }));
      const predicate = new SelectionPredicate(parseLabelSelector('odd=1'));
      const first = await cacher.list({ limit: 2, predicate });
      expect(first.items.map((o) => o.metadata.name)).toEqual(['c1', 'c3']);
      expect(first.remainingItemCount).toBeUndefined();
      const next = await cacher.list({ limit: 2, predicate, continue: first.continue! });
      expect(next.items.map((o) => o.metadata.name)).toEqual(['c5']);
    });

    it('scopes a namespaced LIST to its namespace', async () => {
      const { cacher, storage } = await setup();
      await storage.create(cmKey('a', 'x'), cm('a', 'x'));
      await storage.create(cmKey('ab', 'y'), cm('ab', 'y'));
      await caughtUp(cacher, storage);
      const list = await cacher.list({ namespace: 'a', resourceVersion: '0' });
      expect(list.items.map((o) => o.metadata.name)).toEqual(['x']);
    });

    it('an Exact LIST reads storage at that revision; once compacted it is 410 Expired', async () => {
      const { cacher, storage } = await setup();
      const a = await storage.create(cmKey('ns', 'a'), cm('ns', 'a'));
      await storage.create(cmKey('ns', 'b'), cm('ns', 'b'));
      const exact = await cacher.list({
        resourceVersion: String(rv(a)),
        resourceVersionMatch: 'Exact',
      });
      expect(exact.items.map((o) => o.metadata.name)).toEqual(['a']);
      expect(exact.resourceVersion).toBe(String(rv(a)));
      await storage.compact(await storage.currentRevision());
      const err = (await cacher
        .list({ resourceVersion: String(rv(a)), resourceVersionMatch: 'Exact' })
        .catch((e: unknown) => e)) as ApiError;
      expect(err.status.code).toBe(410);
      expect(err.status.message).toBe('The resourceVersion for the provided list is too old.');
    });

    it('a continue token whose revision was compacted is 410 with a new token that continues at the latest revision', async () => {
      const { cacher, storage } = await setup();
      for (let i = 0; i < 4; i++) await storage.create(cmKey('ns', `c${i}`), cm('ns', `c${i}`));
      const first = await cacher.list({ limit: 2 });
      await storage.create(cmKey('ns', 'c9'), cm('ns', 'c9'));
      await storage.compact(await storage.currentRevision());
      const err = (await cacher
        .list({ limit: 2, continue: first.continue! })
        .catch((e: unknown) => e)) as ApiError;
      expect(err.status.code).toBe(410);
      expect(err.status.reason).toBe('Expired');
      const token = err.status.metadata.continue!;
      expect(token).toBeTruthy();
      const rest = await cacher.list({ limit: 10, continue: token });
      expect(rest.items.map((o) => o.metadata.name)).toEqual(['c2', 'c3', 'c9']);
      expect(Number(rest.resourceVersion)).toBe(await storage.currentRevision());
    });

    it('a field selector on an indexed field (pods by spec.nodeName) lists only that node’s pods', async () => {
      const storage = await makeStorage();
      const cacher = new Cacher({ storage, definition: pods });
      open.push({ cacher, storage });
      await cacher.start();
      for (let i = 0; i < 6; i++)
        await storage.create(`${prefix}/pods/ns/p${i}`, pod('ns', `p${i}`, `node-${i % 3}`));
      const predicate = new SelectionPredicate(
        undefined,
        parseFieldSelector('spec.nodeName=node-1'),
      );
      const list = await cacher.list({ predicate });
      expect(list.items.map((o) => o.metadata.name)).toEqual(['p1', 'p4']);
    });

    it('while re-initializing, an unfiltered paginated LIST goes to storage and others get 429', async () => {
      const inner = await makeStorage();
      const storage = new FaultInjectingStorage(inner);
      await storage.create(cmKey('ns', 'a'), cm('ns', 'a'));
      const { cacher } = await setup({}, storage);
      storage.failLists = true;
      storage.breakWatches();
      await expect.poll(() => cacher.isReady).toBe(false);
      storage.failLists = false;
      const paged = await cacher.list({ limit: 5 });
      expect(paged.items.map((o) => o.metadata.name)).toEqual(['a']);
      const err = (await cacher
        .list({ resourceVersion: '0' })
        .catch((e: unknown) => e)) as ApiError;
      expect(err.status.code).toBe(429);
      expect(err.status.message).toBe('storage is (re)initializing');
      expect(err.status.details?.retryAfterSeconds).toBe(1);
      await expect.poll(() => cacher.isReady, { timeout: 5000 }).toBe(true);
    });
  });

  // delegator.go Get: "" reads storage; "0" and N read the cache (N once it has seen N).
  describe('Cacher GET', () => {
    it('resourceVersion 0 and N answer from the cache without a storage read; unset reads storage', async () => {
      const storage = new FaultInjectingStorage(await makeStorage());
      const { cacher } = await setup({}, storage);
      const a = await storage.create(cmKey('ns', 'a'), cm('ns', 'a'));
      const got = await cacher.get({ namespace: 'ns', name: 'a', resourceVersion: String(rv(a)) });
      expect(got).toEqual(a);
      expect(await cacher.get({ namespace: 'ns', name: 'a', resourceVersion: '0' })).toEqual(a);
      expect(
        await cacher.get({ namespace: 'ns', name: 'b', resourceVersion: '0' }),
      ).toBeUndefined();
      expect(storage.gets).toEqual([]);
      expect(await cacher.get({ namespace: 'ns', name: 'a' })).toEqual(a);
      expect(storage.gets).toEqual([cmKey('ns', 'a')]);
    });

    it('resourceVersion 0 is the cache as it is: a write it has not seen yet does not show', async () => {
      const storage = new FaultInjectingStorage(await makeStorage());
      const { cacher } = await setup({}, storage);
      const a = await storage.create(cmKey('ns', 'a'), cm('ns', 'a'));
      await caughtUp(cacher, storage); // the cache has seen `a`
      storage.holdWatches = true;
      const updated = await storage.update(cmKey('ns', 'a'), cm('ns', 'a', { v: '2' }));
      expect(await cacher.get({ namespace: 'ns', name: 'a', resourceVersion: '0' })).toEqual(a);
      expect(await cacher.get({ namespace: 'ns', name: 'a' })).toEqual(updated);
      storage.holdWatches = false;
      const fresh = { namespace: 'ns', name: 'a', resourceVersion: String(rv(updated)) };
      expect(await cacher.get(fresh)).toEqual(updated);
    });

    it('resourceVersion N newer than the cache will see is 504 Too large resource version', async () => {
      const { cacher, storage } = await setup();
      const current = await storage.currentRevision();
      const err = (await cacher
        .get({ namespace: 'ns', name: 'a', resourceVersion: String(current + 100) })
        .catch((e: unknown) => e)) as ApiError;
      expect(err.status.code).toBe(504);
      expect(err.status.details?.causes?.[0]?.reason).toBe('ResourceVersionTooLarge');
    });

    it('while the cache re-initializes, a GET at any resourceVersion reads storage (KEP-4568)', async () => {
      const storage = new FaultInjectingStorage(await makeStorage());
      const a = await storage.create(cmKey('ns', 'a'), cm('ns', 'a'));
      const { cacher } = await setup({}, storage);
      storage.failLists = true;
      storage.breakWatches();
      await expect.poll(() => cacher.isReady).toBe(false);
      expect(await cacher.get({ namespace: 'ns', name: 'a', resourceVersion: '0' })).toEqual(a);
      expect(storage.gets).toEqual([cmKey('ns', 'a')]);
      storage.failLists = false;
    });
  });

  describe('Cacher WATCH', () => {
    it('from resourceVersion N delivers exactly the events after N, in order', async () => {
      const { cacher, storage } = await setup();
      const a = await storage.create(cmKey('ns', 'a'), cm('ns', 'a'));
      await storage.update(cmKey('ns', 'a'), cm('ns', 'a', { v: '2' }));
      await storage.create(cmKey('ns', 'b'), cm('ns', 'b'));
      const watcher = await cacher.watch({ resourceVersion: String(rv(a)) });
      await storage.delete(cmKey('ns', 'a'));
      const events = await take(watcher, 3);
      expect(names(events)).toEqual(['MODIFIED:a', 'ADDED:b', 'DELETED:a']);
      const revisions = events.map((e) => rv(e.object as KubeObject));
      expect([...revisions].sort((x, y) => x - y)).toEqual(revisions);
      expect(revisions[0]).toBeGreaterThan(rv(a));
    });

    it('from a resourceVersion that fell out of the window ends with one ERROR 410 Expired event', async () => {
      const { cacher, storage } = await setup({ watchCacheSize: 3 });
      const first = await storage.create(cmKey('ns', 'first'), cm('ns', 'first'));
      for (let i = 0; i < 5; i++) await storage.create(cmKey('ns', `c${i}`), cm('ns', `c${i}`));
      await caughtUp(cacher, storage);
      const watcher = await cacher.watch({ resourceVersion: String(rv(first)) });
      const events = await take(watcher, 2, 500);
      expect(events).toHaveLength(1);
      expect(events[0]!.type).toBe('ERROR');
      const status = events[0]!.object as Status;
      expect(status.code).toBe(410);
      expect(status.reason).toBe('Expired');
      expect(status.message).toMatch(/^too old resource version: \d+ \(\d+\)$/);
      expect(await watcher.nextBatch()).toBeNull();
    });

    // An informer that watched the previous apiserver resumes from its resourceVersion: the
    // cache starts from storage's history, not only from now (no 410, no relist).
    it('a cache started after writes serves a watch from a resourceVersion before its start: the events since, no 410', async () => {
      const storage = await makeStorage();
      const first = await storage.create(cmKey('ns', 'a'), cm('ns', 'a'));
      await storage.update(cmKey('ns', 'a'), cm('ns', 'a', undefined, { v: '2' }));
      await storage.create(cmKey('ns', 'b'), cm('ns', 'b'));
      const { cacher } = await setup({}, storage);
      const watcher = await cacher.watch({ resourceVersion: String(rv(first)) });
      if (!(await replaysHistory(storage))) {
        // kube's cacher: listed at the current revision, so an older one is 410.
        expect(names(await take(watcher, 1, 500))).toEqual(['ERROR:410']);
        return;
      }
      expect(names(await take(watcher, 2))).toEqual(['MODIFIED:a', 'ADDED:b']);
      // Its LISTs are of now: the replayed history is behind it.
      const list = await cacher.list({ resourceVersion: '0' });
      expect(list.items.map((i) => i.metadata.name)).toEqual(['a', 'b']);
      expect(list.items[0]!['data']).toEqual({ v: '2' });
    });

    it('a cache started after a compaction answers a watch from before it with 410, and from after it with the events since', async () => {
      const storage = await makeStorage();
      const first = await storage.create(cmKey('ns', 'a'), cm('ns', 'a'));
      const second = await storage.update(cmKey('ns', 'a'), cm('ns', 'a', undefined, { v: '2' }));
      await storage.compact(rv(second));
      await storage.create(cmKey('ns', 'b'), cm('ns', 'b'));
      const { cacher } = await setup({}, storage);
      const old = await cacher.watch({ resourceVersion: String(rv(first)) });
      const events = await take(old, 2, 500);
      expect(events.map((e) => e.type)).toEqual(['ERROR']);
      expect((events[0]!.object as Status).code).toBe(410);
      const resumed = await cacher.watch({ resourceVersion: String(rv(second)) });
      const expected = (await replaysHistory(storage)) ? 'ADDED:b' : 'ERROR:410';
      expect(names(await take(resumed, 1, 500))).toEqual([expected]);
    });

    it('from resourceVersion 0 starts with a synthetic ADDED for every current object, then changes', async () => {
      const { cacher, storage } = await setup();
      await storage.create(cmKey('ns', 'b'), cm('ns', 'b'));
      await storage.create(cmKey('ns', 'a'), cm('ns', 'a'));
      await caughtUp(cacher, storage);
      const watcher = await cacher.watch({ resourceVersion: '0' });
      await storage.update(cmKey('ns', 'a'), cm('ns', 'a', { x: 'y' }));
      expect(names(await take(watcher, 3))).toEqual(['ADDED:a', 'ADDED:b', 'MODIFIED:a']);
    });

    it('watch-list sends sorted initial events with their own resourceVersions, then the initial-events-end bookmark', async () => {
      const { cacher, storage } = await setup();
      const b = await storage.create(cmKey('ns', 'b'), cm('ns', 'b'));
      const a = await storage.create(cmKey('ns', 'a'), cm('ns', 'a'));
      const watcher = await cacher.watch({
        sendInitialEvents: true,
        allowWatchBookmarks: true,
        resourceVersion: '',
      });
      await storage.create(cmKey('ns', 'c'), cm('ns', 'c'));
      const events = await take(watcher, 4);
      expect(names(events)).toEqual(['ADDED:a', 'ADDED:b', 'BOOKMARK:', 'ADDED:c']);
      expect(rv(events[0]!.object as KubeObject)).toBe(rv(a));
      expect(rv(events[1]!.object as KubeObject)).toBe(rv(b));
      const bookmark = events[2]!.object as KubeObject;
      expect(bookmark.metadata.annotations).toEqual({ [INITIAL_EVENTS_END_ANNOTATION]: 'true' });
      expect(bookmark.kind).toBe('ConfigMap');
      expect(rv(bookmark)).toBeGreaterThanOrEqual(rv(a));
    });

    it('an object entering the selector is ADDED, leaving it is DELETED at the event’s resourceVersion', async () => {
      const { cacher, storage } = await setup();
      const watcher = await cacher.watch({
        resourceVersion: '0',
        predicate: new SelectionPredicate(parseLabelSelector('watch=yes')),
      });
      await storage.create(cmKey('ns', 'x'), cm('ns', 'x', { watch: 'no' }));
      await storage.update(cmKey('ns', 'x'), cm('ns', 'x', { watch: 'yes' }));
      await storage.update(cmKey('ns', 'x'), cm('ns', 'x', { watch: 'yes' }, { k: 'v' }));
      const left = await storage.update(cmKey('ns', 'x'), cm('ns', 'x', { watch: 'no' }));
      await storage.update(cmKey('ns', 'x'), cm('ns', 'x', { watch: 'yes' }));
      const events = await take(watcher, 4);
      expect(names(events)).toEqual(['ADDED:x', 'MODIFIED:x', 'DELETED:x', 'ADDED:x']);
      const deleted = events[2]!.object as KubeObject;
      expect(deleted.metadata.labels).toEqual({ watch: 'yes' });
      expect(rv(deleted)).toBe(rv(left));
    });

    it('a namespaced watch never sees another namespace; a watch by name sees only that object', async () => {
      const { cacher, storage } = await setup();
      const inNs = await cacher.watch({ namespace: 'a', resourceVersion: '0' });
      const byName = await cacher.watch({ namespace: 'a', name: 'two', resourceVersion: '0' });
      await storage.create(cmKey('b', 'one'), cm('b', 'one'));
      await storage.create(cmKey('a', 'one'), cm('a', 'one'));
      await storage.create(cmKey('a', 'two'), cm('a', 'two'));
      expect(names(await take(inNs, 2))).toEqual(['ADDED:one', 'ADDED:two']);
      expect(names(await take(byName, 1))).toEqual(['ADDED:two']);
      expect(await take(byName, 1, 200)).toEqual([]);
    });

    it('sends bookmarks to watchers that asked, advancing with storage progress, and none to others', async () => {
      const { cacher, storage } = await setup({ bookmarkIntervalMs: 100 });
      const withBookmarks = await cacher.watch({ resourceVersion: '0', allowWatchBookmarks: true });
      const without = await cacher.watch({ resourceVersion: '0' });
      await storage.create(`${prefix}/secrets/ns/s`, { metadata: { name: 's', namespace: 'ns' } });
      const current = await storage.currentRevision();
      await cacher.list({}); // a consistent read pulls progress up to `current`
      const events = await take(withBookmarks, 1);
      expect(events[0]?.type).toBe('BOOKMARK');
      expect(rv(events[0]!.object as KubeObject)).toBe(current);
      expect(await take(without, 1, 300)).toEqual([]);
    });

    it('ends a watch at its timeout, with a bookmark 2 s before it at the newest revision', async () => {
      const { cacher, storage } = await setup({ bookmarkIntervalMs: 60_000 });
      const watcher = await cacher.watch({
        resourceVersion: '0',
        allowWatchBookmarks: true,
        timeoutMs: 2300,
      });
      const start = Date.now();
      await storage.create(`${prefix}/secrets/ns/s`, { metadata: { name: 's', namespace: 'ns' } });
      await cacher.list({});
      const events = await take(watcher, 5, 4000);
      expect(events.map((e) => e.type)).toEqual(['BOOKMARK']);
      expect(rv(events[0]!.object as KubeObject)).toBe(await storage.currentRevision());
      expect(await watcher.nextBatch()).toBeNull();
      expect(Date.now() - start).toBeGreaterThanOrEqual(2000);
    });

    it('re-initializes after the storage watch breaks: watchers end, then the cache serves again', async () => {
      const storage = new FaultInjectingStorage(await makeStorage());
      const { cacher } = await setup({}, storage);
      const watcher = await cacher.watch({ resourceVersion: '0' });
      storage.breakWatches();
      expect(await take(watcher, 1, 2000)).toEqual([]);
      expect(watcher.endReason).toBe('reinitializing');
      await expect.poll(() => cacher.isReady).toBe(true);
      await storage.create(cmKey('ns', 'after'), cm('ns', 'after'));
      const again = await cacher.watch({ resourceVersion: '0' });
      expect(names(await take(again, 1))).toEqual(['ADDED:after']);
      expect(storage.watchesOpened).toBe(2);
    });

    it('sendInitialEvents=false from resourceVersion 0 starts at the cache’s revision: only later changes', async () => {
      const { cacher, storage } = await setup();
      await storage.create(cmKey('ns', 'before'), cm('ns', 'before'));
      await caughtUp(cacher, storage);
      const watcher = await cacher.watch({ sendInitialEvents: false, resourceVersion: '0' });
      await storage.create(cmKey('ns', 'after'), cm('ns', 'after'));
      expect(names(await take(watcher, 1))).toEqual(['ADDED:after']);
    });

    it('sendInitialEvents=false without a resourceVersion starts at storage’s revision, not the cache’s', async () => {
      const storage = new FaultInjectingStorage(await makeStorage());
      const { cacher } = await setup({}, storage);
      await caughtUp(cacher, storage);
      storage.holdWatches = true;
      await storage.create(cmKey('ns', 'unseen'), cm('ns', 'unseen'));
      const watcher = await cacher.watch({ sendInitialEvents: false });
      await storage.create(cmKey('ns', 'after'), cm('ns', 'after'));
      storage.holdWatches = false;
      expect(names(await take(watcher, 1))).toEqual(['ADDED:after']);
    });

    it('a WATCH while the cache re-initializes is 429 with Retry-After', async () => {
      const storage = new FaultInjectingStorage(await makeStorage());
      const { cacher } = await setup({}, storage);
      storage.failLists = true;
      storage.breakWatches();
      await expect.poll(() => cacher.isReady).toBe(false);
      const err = (await cacher.watch({}).catch((e: unknown) => e)) as ApiError;
      expect(err.status.code).toBe(429);
      expect(err.status.details?.retryAfterSeconds).toBe(1);
      storage.failLists = false;
    });
  });

  describe('slow watchers', () => {
    it('one healthy watcher keeps receiving while 50 stalled ones are terminated, buffers bounded', async () => {
      const { cacher, storage } = await setup({ watcherCapacity: 10, blockedBudgetMs: 50 });
      const stalled = await Promise.all(
        Array.from({ length: 50 }, () => cacher.watch({ resourceVersion: '0' })),
      );
      const healthy = await cacher.watch({ resourceVersion: '0' });
      const received: WatchEvent[] = [];
      const reading = (async () => {
        for await (const e of healthy) {
          received.push(e.encoded.event);
          if (received.length === 200) return;
        }
      })();
      for (let i = 0; i < 200; i++) {
        await storage.create(cmKey('ns', `c${String(i).padStart(3, '0')}`), cm('ns', `c${i}`));
        for (const w of stalled) expect(w.buffered).toBeLessThanOrEqual(20);
        if (i % 20 === 0) await new Promise((r) => setTimeout(r, 20));
      }
      await reading;
      expect(received).toHaveLength(200);
      expect(stalled.every((w) => w.endReason === 'slow')).toBe(true);
      expect(cacher.terminatedSlowWatchers).toBe(50);
      expect(cacher.watcherCount).toBe(0);
    });
  });
});
