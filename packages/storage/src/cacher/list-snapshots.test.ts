import { ApiError, findBuiltinResource, parseLabelSelector, type KubeObject } from '@listwatch/api';
import { storageBackends } from '@listwatch/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Etcd3Storage } from '../etcd3/etcd3-storage.js';
import { MemoryStorage } from '../memory/memory-storage.js';
import { SqliteStorage } from '../sqlite/sqlite-storage.js';
import type { Storage } from '../storage.js';
import type { ListDelegationReason } from './cacher-metrics.js';
import { Cacher } from './cacher.js';
import type { CacheListRequest, CacheListResult, ListWatchSource } from './list-watch-source.js';
import { SelectionPredicate } from './predicate.js';
import { UncachedSource } from './uncached-source.js';

// LISTs from the watch cache's snapshots (KEP-4988; k8s.io/apiserver pkg/storage/cacher
// watch_cache.go waitAndListExactRV, store/store_btree.go storeSnapshotter) page exactly as
// storage pages at the same revision: same items, order, continue and remainingItemCount, and
// the same 410 where storage has compacted.

const configmaps = findBuiltinResource('configmaps')!;

/** Whether the watch cache serves consistent reads on this storage (see Storage.supportsProgressRequests). */
const cachesConsistentReads = async (storage: Storage): Promise<boolean> =>
  (await storage.supportsProgressRequests?.()) ?? true;
const NAMES = ['a', 'b', 'c', 'd', 'e'];
const NAMESPACES = ['n1', 'n2'];
const COLORS = ['red', 'blue'];

type Op =
  | { kind: 'put'; ns: string; name: string; color: string }
  | { kind: 'delete'; ns: string; name: string }
  | { kind: 'compact'; back: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('put' as const),
      ns: fc.constantFrom(...NAMESPACES),
      name: fc.constantFrom(...NAMES),
      color: fc.constantFrom(...COLORS),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('delete' as const),
      ns: fc.constantFrom(...NAMESPACES),
      name: fc.constantFrom(...NAMES),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('compact' as const), back: fc.nat(8) }) },
);

interface Query {
  namespace: string | undefined;
  color: string | undefined;
  limit: number;
}
const query: fc.Arbitrary<Query> = fc.record({
  namespace: fc.option(fc.constantFrom(...NAMESPACES), { nil: undefined }),
  color: fc.option(fc.constantFrom(...COLORS), { nil: undefined }),
  limit: fc.integer({ min: 1, max: 4 }),
});

type Outcome =
  | { page: Omit<CacheListResult, 'shared'> }
  | { error: { code: number; reason: string | undefined; message: string | undefined } };

async function outcome(source: ListWatchSource, request: CacheListRequest): Promise<Outcome> {
  try {
    const { shared: _shared, ...page } = await source.list(request);
    return { page };
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return {
      error: { code: err.status.code, reason: err.status.reason, message: err.status.message },
    };
  }
}

/** Every page of a LIST at exactly `revision`, continuing with each page's token. */
async function pages(source: ListWatchSource, q: Query, revision: number): Promise<Outcome[]> {
  const predicate = new SelectionPredicate(
    q.color ? parseLabelSelector(`color=${q.color}`) : undefined,
  );
  const base = { predicate, limit: q.limit, ...(q.namespace ? { namespace: q.namespace } : {}) };
  const out: Outcome[] = [];
  let next: CacheListRequest = {
    ...base,
    resourceVersion: String(revision),
    resourceVersionMatch: 'Exact',
  };
  for (;;) {
    const result = await outcome(source, next);
    out.push(result);
    if (!('page' in result) || !result.page.continue) return out;
    next = { ...base, continue: result.page.continue };
  }
}

async function caughtUp(cacher: Cacher, storage: Storage): Promise<void> {
  const target = await storage.currentRevision();
  const deadline = Date.now() + 5000;
  while (cacher.revision < target) {
    if (Date.now() > deadline) throw new Error(`cache stuck at ${cacher.revision} < ${target}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const backends = storageBackends<Storage>({
  memory: () => new MemoryStorage({ compactionInterval: 0 }),
  sqlite: (file) => new SqliteStorage({ file, compactionInterval: 0 }),
  etcd3: (endpoints, prefix) => new Etcd3Storage({ endpoints, prefix, compactionInterval: 0 }),
});

describe.each(backends)('LISTs from watch-cache snapshots on $name storage', (backend) => {
  beforeAll(() => backend.setup(), 60_000);
  afterAll(() => backend.teardown());
  let run = 0;
  const runs = backend.name === 'memory' ? 40 : backend.name === 'sqlite' ? 20 : 10;

  it('every page served from a snapshot equals the page storage serves at that revision, and compacted revisions are 410 from both', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(op, { minLength: 1, maxLength: 24 }),
        fc.array(query, { minLength: 1, maxLength: 3 }),
        fc.option(fc.integer({ min: 2, max: 6 }), { nil: undefined }),
        async (ops, queries, watchCacheSize) => {
          const storage = backend.open(`snapshots-${run++}`);
          const delegated: ListDelegationReason[] = [];
          let served = 0;
          const cacher = new Cacher({
            storage,
            definition: configmaps,
            ...(watchCacheSize !== undefined ? { watchCacheSize } : {}),
            progressIntervalMs: 10,
            metrics: {
              listDelegated: (_resource, reason) => delegated.push(reason),
              cacheList: () => served++,
            },
          });
          const direct = new UncachedSource(storage, configmaps);
          try {
            await cacher.start();
            const first = await storage.currentRevision();
            const live = new Set<string>();
            for (const o of ops) {
              if (o.kind === 'compact') {
                // Let the cache see everything first, as its watch would over time.
                await caughtUp(cacher, storage);
                const current = await storage.currentRevision();
                await storage.compact(Math.max(first, current - o.back));
                continue;
              }
              const key = `${storage.prefix}/configmaps/${o.ns}/${o.name}`;
              if (o.kind === 'delete') {
                if (live.delete(key)) await storage.delete(key);
                continue;
              }
              const object: KubeObject = {
                apiVersion: 'v1',
                kind: 'ConfigMap',
                metadata: { name: o.name, namespace: o.ns, labels: { color: o.color } },
                data: { color: o.color },
              };
              if (live.has(key)) await storage.update(key, object);
              else await storage.create(key, object);
              live.add(key);
            }
            await caughtUp(cacher, storage);
            const last = await storage.currentRevision();
            for (const q of queries) {
              for (let revision = first; revision <= last; revision++) {
                const fromCache = await pages(cacher, q, revision);
                const fromStorage = await pages(direct, q, revision);
                expect(fromCache, `revision ${revision} of ${first}..${last}`).toEqual(fromStorage);
              }
            }
            // Without a small fixed window nothing falls out: every revision the cache saw and
            // storage has not compacted came from a snapshot.
            if (watchCacheSize === undefined) {
              expect(delegated.filter((r) => r !== 'revision_compacted')).toEqual([]);
              if (last >= storage.compactRevision()) expect(served).toBeGreaterThan(0);
            }
          } finally {
            await cacher.stop();
            await storage.close();
          }
        },
      ),
      { numRuns: runs },
    );
  }, 120_000);

  it('a consistent paginated LIST serves its first page and every continuation from one snapshot while writes go on', async () => {
    const storage = backend.open(`consistent-${run++}`);
    const delegated: ListDelegationReason[] = [];
    const cacher = new Cacher({
      storage,
      definition: configmaps,
      progressIntervalMs: 10,
      metrics: { listDelegated: (_resource, reason) => delegated.push(reason) },
    });
    const direct = new UncachedSource(storage, configmaps);
    const key = (name: string) => `${storage.prefix}/configmaps/n1/${name}`;
    const object = (name: string, v: string): KubeObject => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: 'n1' },
      data: { v },
    });
    try {
      await cacher.start();
      for (let i = 0; i < 10; i++) await storage.create(key(`c${i}`), object(`c${i}`, '1'));
      const got: KubeObject[] = [];
      let page = await cacher.list({ namespace: 'n1', limit: 3 });
      const revision = Number(page.resourceVersion);
      for (;;) {
        got.push(...page.items);
        if (!page.continue) break;
        expect(page.remainingItemCount).toBe(10 - got.length);
        // Writes between pages, around where the next page starts: none shows in this list.
        const n = got.length;
        await storage.update(key(`c${n}`), object(`c${n}`, '2'));
        if (n + 1 < 10) await storage.delete(key(`c${n + 1}`));
        await storage.create(key(`c${n}x`), object(`c${n}x`, '1'));
        page = await cacher.list({ namespace: 'n1', limit: 3, continue: page.continue });
        expect(page.resourceVersion).toBe(String(revision));
      }
      const atRevision = await direct.list({
        namespace: 'n1',
        resourceVersion: String(revision),
        resourceVersionMatch: 'Exact',
      });
      expect(got).toEqual(atRevision.items);
      expect(got.map((o) => (o.data as Record<string, string>)['v'])).toEqual(
        Array.from({ length: 10 }, () => '1'),
      );
      // On an etcd that cannot answer progress requests reliably (before 3.4.31/3.5.13) a
      // consistent LIST reads etcd, as kube's delegator does; its pages stay at one revision.
      if (await cachesConsistentReads(storage)) expect(delegated).toEqual([]);
      else expect(delegated[0]).toBe('consistent_read_unsupported');
    } finally {
      await cacher.stop();
      await storage.close();
    }
  });

  it('a continuation at a compacted revision is 410 with a token that continues at the latest revision, which the cache serves', async () => {
    const storage = backend.open(`expired-${run++}`);
    const delegated: ListDelegationReason[] = [];
    let served = 0;
    const cacher = new Cacher({
      storage,
      definition: configmaps,
      progressIntervalMs: 10,
      metrics: {
        listDelegated: (_resource, reason) => delegated.push(reason),
        cacheList: () => served++,
      },
    });
    const key = (name: string) => `${storage.prefix}/configmaps/n1/${name}`;
    const object = (name: string): KubeObject => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: 'n1' },
    });
    try {
      await cacher.start();
      for (const name of ['a', 'b', 'c', 'd']) await storage.create(key(name), object(name));
      const first = await cacher.list({ namespace: 'n1', limit: 2 });
      await storage.create(key('e'), object('e'));
      await storage.compact(await storage.currentRevision());
      const err = await cacher.list({ namespace: 'n1', limit: 2, continue: first.continue! }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ApiError);
      const status = (err as ApiError).status;
      expect(status).toMatchObject({ code: 410, reason: 'Expired' });
      const consistentFirst = (await cachesConsistentReads(storage))
        ? []
        : ['consistent_read_unsupported'];
      expect(delegated).toEqual([...consistentFirst, 'revision_compacted']);
      served = 0;
      const rest = await cacher.list({
        namespace: 'n1',
        limit: 5,
        continue: status.metadata?.continue ?? '',
      });
      expect(rest.items.map((o) => o.metadata.name)).toEqual(['c', 'd', 'e']);
      expect(rest.resourceVersion).toBe(String(await storage.currentRevision()));
      // The fresh token's first page is a consistent read: from etcd where that cannot be cached.
      expect(served).toBe(consistentFirst.length ? 0 : 1);
      expect(delegated).toEqual([...consistentFirst, 'revision_compacted', ...consistentFirst]);
    } finally {
      await cacher.stop();
      await storage.close();
    }
  });
});
