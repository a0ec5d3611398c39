import { ApiError, type KubeObject } from '@listwatch/api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConnectionError } from '../rest/errors.js';
import { FakeClock } from '../util/fake-clock.js';
import { CacheCluster } from '../testing/cache-cluster.js';
import { eventually } from '../testing/eventually.js';
import { FaultyListerWatcher } from '../testing/faulty-lister-watcher.js';
import { configMap } from '../testing/fixtures.js';
import { DeletedFinalStateUnknown } from './deleted-final-state-unknown.js';
import { newIndexer } from './indexer.js';
import { processDeltas } from './process-deltas.js';
import { RealFIFO } from './real-fifo.js';
import { Reflector } from './reflector.js';
import { newStore, type ReflectorStore, type Store } from './store.js';

const FAST_BACKOFF = { initialMs: 5, maxMs: 20 };

/** A Store that also records what the reflector did to it. */
function recordingStore(): { store: Store & ReflectorStore; ops: string[] } {
  const inner = newStore();
  const ops: string[] = [];
  const name = (o: KubeObject) => `${o.metadata.name}@${o.metadata.resourceVersion}`;
  const store = Object.assign(Object.create(inner) as Store, {
    add: (o: KubeObject) => (ops.push(`add ${name(o)}`), inner.add(o)),
    update: (o: KubeObject) => (ops.push(`update ${name(o)}`), inner.update(o)),
    delete: (o: KubeObject) => (ops.push(`delete ${name(o)}`), inner.delete(o)),
    replace: (list: readonly KubeObject[], rv: string) => (
      ops.push(`replace ${list.length}@${rv}`),
      inner.replace(list, rv)
    ),
    resync: () => void ops.push('resync'),
  });
  return { store: store, ops };
}

describe('Reflector (client-go tools/cache/reflector.go)', () => {
  let cluster: CacheCluster;
  let stop: AbortController;

  beforeEach(() => {
    cluster = new CacheCluster({ watchCacheSize: 20, bookmarkIntervalMs: 100 });
    stop = new AbortController();
  });
  afterEach(async () => {
    stop.abort();
    await cluster.close();
  });

  /** Runs a reflector over `lw` into a recording store until its first watch is open. */
  async function watching(
    lw: FaultyListerWatcher,
  ): Promise<ReturnType<typeof recordingStore> & { reflector: Reflector }> {
    const recording = recordingStore();
    const reflector = new Reflector({
      listerWatcher: lw,
      store: recording.store,
      backoff: FAST_BACKOFF,
    });
    void reflector.run(stop.signal);
    await eventually(() => expect(lw.watchesOpen).toBe(1));
    return { ...recording, reflector };
  }

  it('lists at resourceVersion "0" first, then watches from the list revision with bookmarks and a 5–10 minute timeout', async () => {
    await cluster.create('configmaps', configMap('ns', 'a'));
    const lw = new FaultyListerWatcher(cluster.listerWatcher('configmaps'));
    const { store, reflector } = await watching(lw);
    const [list, watch] = lw.calls;
    expect(list?.params).toMatchObject({ resourceVersion: '0' });
    const listedAt = reflector.lastSyncResourceVersion();
    expect(watch?.params).toMatchObject({ resourceVersion: listedAt, allowWatchBookmarks: true });
    expect(watch?.params.timeoutSeconds).toBeGreaterThanOrEqual(300);
    expect(watch?.params.timeoutSeconds).toBeLessThan(600);
    expect(store.listKeys()).toEqual(['ns/a']);
  });

  it('applies every event kind to the store and tracks the last resourceVersion seen', async () => {
    const { store, ops } = recordingStore();
    const reflector = new Reflector({
      listerWatcher: cluster.listerWatcher('configmaps'),
      store,
      backoff: FAST_BACKOFF,
    });
    void reflector.run(stop.signal);
    await eventually(() =>
      expect(ops).toContain('replace 0@' + reflector.lastSyncResourceVersion()),
    );
    const created = await cluster.create('configmaps', configMap('ns', 'a'));
    const updated = await cluster.update('configmaps', { ...created, data: { k: 'v' } });
    const deleted = await cluster.remove('configmaps', 'ns', 'a');
    await eventually(() =>
      expect(ops.slice(1)).toEqual([
        `add a@${created.metadata.resourceVersion}`,
        `update a@${updated.metadata.resourceVersion}`,
        `delete a@${deleted.metadata.resourceVersion}`,
      ]),
    );
    expect(reflector.lastSyncResourceVersion()).toBe(deleted.metadata.resourceVersion);
    expect(store.list()).toEqual([]);
  });

  it('advances the resourceVersion on bookmarks while its own resource is quiet', async () => {
    const { store } = recordingStore();
    const reflector = new Reflector({
      listerWatcher: cluster.listerWatcher('configmaps'),
      store,
      backoff: FAST_BACKOFF,
    });
    void reflector.run(stop.signal);
    await eventually(() => expect(reflector.lastSyncResourceVersion()).not.toBe(''));
    const listed = Number(reflector.lastSyncResourceVersion());
    // Writes to another resource move the global revision; only bookmarks carry it here.
    await cluster.cacher('secrets');
    const secret = await cluster.create<KubeObject>('secrets', {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { namespace: 'ns', name: 's' },
    });
    await eventually(() =>
      expect(Number(reflector.lastSyncResourceVersion())).toBeGreaterThanOrEqual(
        Number(secret.metadata.resourceVersion),
      ),
    );
    expect(Number(reflector.lastSyncResourceVersion())).toBeGreaterThan(listed);
    expect(store.list()).toEqual([]);
  });

  it('re-watches from the last resourceVersion without relisting when a watch ends cleanly or breaks', async () => {
    const lw = new FaultyListerWatcher(cluster.listerWatcher('configmaps'));
    const { store, reflector } = await watching(lw);
    await cluster.create('configmaps', configMap('ns', 'a'));
    await eventually(() => expect(store.listKeys()).toEqual(['ns/a']));
    const rv = reflector.lastSyncResourceVersion();
    lw.breakWatches();
    await eventually(() => expect(lw.calls.filter((c) => c.verb === 'watch')).toHaveLength(2));
    expect(lw.calls.map((c) => c.verb)).toEqual(['list', 'watch', 'watch']);
    expect(lw.calls[2]?.params.resourceVersion).toBe(rv);
  });

  it('backs off and re-watches after 429 or connection refused, without relisting', async () => {
    const lw = new FaultyListerWatcher(cluster.listerWatcher('configmaps'));
    lw.watchErrors.push(
      ApiError.tooManyRequests('slow down'),
      new ConnectionError('ECONNREFUSED', 'refused'),
    );
    await watching(lw);
    expect(lw.calls.map((c) => `${c.verb} ${c.outcome}`)).toEqual([
      'list ok',
      'watch 429',
      'watch 503',
      'watch ok',
    ]);
  });

  it('asks for pages of 500 at first, and for no limit at a resourceVersion N (the watch cache serves it whole) nor on the retry at "" that follows its 410', async () => {
    await cluster.create('configmaps', configMap('ns', 'a'));
    const lw = new FaultyListerWatcher(cluster.listerWatcher('configmaps'));
    lw.watchErrors.push(ApiError.internalError(new Error('boom'))); // relist at the last RV
    lw.listErrors.push(undefined, ApiError.gone('too old resource version')); // then at ""
    await watching(lw);
    const lists = lw.lists.map((c) => c.params);
    // client-go reflector.list: the retry at "" reuses the pager whose page size RV N zeroed.
    expect(lists.map((p) => [p.resourceVersion, p.limit])).toEqual([
      ['0', 500],
      [lists[1]!.resourceVersion, undefined],
      ['', undefined],
    ]);
    expect(lw.lists.map((c) => c.outcome)).toEqual(['ok', '410', 'ok']);
    expect(lists[1]!.resourceVersion).toMatch(/^[1-9]\d*$/);
  });

  it('waits 800 ms before retrying a failing apiserver, doubling each time up to 30 s, each wait drawn from [base, 2·base)', async () => {
    const clock = new FakeClock();
    let attempts = 0;
    const failing = {
      list: () => {
        attempts++;
        return Promise.reject(ApiError.internalError(new Error('down')));
      },
      watch: () => Promise.reject(new Error('never watched')),
    };
    for (const [random, scale] of [
      [() => 0, 1],
      [() => 0.999, 1.999],
    ] as const) {
      attempts = 0;
      const run = new AbortController();
      const reflector = new Reflector({
        listerWatcher: failing,
        store: recordingStore().store,
        clock,
        random,
      });
      void reflector.run(run.signal);
      await eventually(() => expect(attempts).toBe(1));
      for (const base of [800, 1600, 3200, 6400, 12_800, 25_600, 30_000, 30_000]) {
        const before = attempts;
        await eventually(() => expect(clock.hasWaiters()).toBe(true));
        const wait = Math.ceil(base * scale);
        // The clock fires timers as it steps: the backoff timer is still pending 1 ms early.
        clock.step(wait - 1);
        expect(clock.waiters()).toBe(1);
        clock.step(1);
        expect(clock.waiters()).toBe(0);
        await eventually(() => expect(attempts).toBe(before + 1));
      }
      run.abort();
    }
  });

  it('backs off and relists at the last resourceVersion after any other watch error', async () => {
    const lw = new FaultyListerWatcher(cluster.listerWatcher('configmaps'));
    lw.watchErrors.push(ApiError.internalError(new Error('boom')));
    const { store } = recordingStore();
    const errors: ApiError[] = [];
    const reflector = new Reflector({
      listerWatcher: lw,
      store,
      backoff: FAST_BACKOFF,
      watchErrorHandler: (err) => errors.push(err),
    });
    void reflector.run(stop.signal);
    await eventually(() => expect(lw.watchesOpen).toBe(1));
    expect(lw.calls.map((c) => `${c.verb} ${c.outcome}`)).toEqual([
      'list ok',
      'watch 500',
      'list ok',
      'watch ok',
    ]);
    expect(lw.calls[2]?.params.resourceVersion).toBe(lw.calls[1]?.params.resourceVersion);
    expect(errors.map((e) => e.code)).toEqual([500]);
  });

  it('counts a watch that ends at once without events as an error and relists', async () => {
    const lw = new FaultyListerWatcher(cluster.listerWatcher('configmaps'));
    lw.endWatchesAtOnce = true;
    const errors: ApiError[] = [];
    const { store } = recordingStore();
    const reflector = new Reflector({
      listerWatcher: lw,
      store,
      backoff: FAST_BACKOFF,
      watchErrorHandler: (e) => errors.push(e),
    });
    void reflector.run(stop.signal);
    await eventually(() => expect(errors.length).toBeGreaterThan(0));
    expect(errors[0]?.message).toContain('very short watch');
    lw.endWatchesAtOnce = false;
    await eventually(() => expect(lw.watchesOpen).toBe(1));
    expect(lw.calls.slice(0, 3).map((c) => c.verb)).toEqual(['list', 'watch', 'list']);
  });

  it('relists at resourceVersion "" when the list resourceVersion has expired (410) or is too large', async () => {
    const lw = new FaultyListerWatcher(cluster.listerWatcher('configmaps'));
    lw.watchErrors.push(ApiError.expired('too old resource version: 1 (5)'));
    lw.listErrors.push(); // the first list succeeds
    await watching(lw);
    // The 410 watch is followed by a relist at the last RV (cache-served), not at "".
    expect(lw.calls.map((c) => `${c.verb} ${c.outcome}`)).toEqual([
      'list ok',
      'watch 410',
      'list ok',
      'watch ok',
    ]);
    expect(lw.calls[2]?.params.resourceVersion).not.toBe('');

    // Now the relist itself is refused with 410 and then "too large": it falls back to "".
    lw.listErrors.push(ApiError.expired('gone'));
    lw.forceRelist();
    await eventually(() => expect(lw.lists.filter((c) => c.outcome === 'ok')).toHaveLength(3));
    const lists = lw.lists;
    expect(lists.at(-2)?.outcome).toBe('410');
    expect(lists.at(-1)?.params.resourceVersion).toBe('');
  });

  it('relists at resourceVersion "" when a relist is refused as too large a resourceVersion (504 Timeout, cause ResourceVersionTooLarge)', async () => {
    const lw = new FaultyListerWatcher(cluster.listerWatcher('configmaps'));
    await watching(lw);
    // As kube-apiserver answers a read ahead of its watch cache (storage/errors.go).
    lw.listErrors.push(
      new ApiError({
        code: 504,
        reason: 'Timeout',
        message: 'Too large resource version: 99, current: 3',
        details: {
          causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
        },
      }),
    );
    lw.forceRelist();
    await eventually(() => expect(lw.lists.filter((c) => c.outcome === 'ok')).toHaveLength(2));
    const lists = lw.lists;
    expect(lists.at(-2)?.outcome).toBe('504');
    expect(lists.at(-2)?.params.resourceVersion).not.toBe('');
    expect(lists.at(-1)?.params.resourceVersion).toBe('');
  });

  it('keeps its store and retries when a LIST is answered 404 (a resource not served yet), and syncs once it is', async () => {
    await cluster.create('configmaps', configMap('ns', 'a'));
    const lw = new FaultyListerWatcher(cluster.listerWatcher('configmaps'));
    const { store, ops } = await watching(lw);
    expect(store.listKeys()).toEqual(['ns/a']);

    // The resource goes away for a while (a CRD being reinstalled): two relists fail with 404.
    const notFound = () =>
      new ApiError({
        code: 404,
        reason: 'NotFound',
        message: 'the server could not find the requested resource',
      });
    lw.listErrors.push(notFound(), notFound());
    lw.forceRelist();
    const lists = () => lw.lists.map((c) => c.outcome);
    await eventually(() => expect(lists()).toEqual(['ok', '404', '404', 'ok']));
    // Nothing was emptied in between: the store went from one full list to the next.
    expect(ops.filter((op) => op.startsWith('replace'))).toEqual([
      expect.stringMatching(/^replace 1@/),
      expect.stringMatching(/^replace 1@/),
    ]);
    expect(store.listKeys()).toEqual(['ns/a']);
  });

  it('relists at resourceVersion "" when a watch expires twice at the same resourceVersion (a paginated relist is an Exact read and cannot move past it)', async () => {
    const lw = new FaultyListerWatcher(cluster.listerWatcher('configmaps'));
    const expired = () => ApiError.expired('too old resource version');
    lw.watchErrors.push(expired(), expired());
    const { store } = recordingStore();
    const reflector = new Reflector({
      listerWatcher: lw,
      store,
      backoff: FAST_BACKOFF,
      pageSize: 2,
    });
    void reflector.run(stop.signal);
    await eventually(() => expect(lw.watchesOpen).toBe(1));
    const listedAt = lw.calls[1]?.params.resourceVersion;
    expect(lw.calls.map((c) => `${c.verb} ${c.outcome} ${c.params.resourceVersion}`)).toEqual([
      'list ok 0',
      `watch 410 ${listedAt}`,
      `list ok ${listedAt}`,
      `watch 410 ${listedAt}`,
      'list ok ',
      `watch ok ${reflector.lastSyncResourceVersion()}`,
    ]);
  });

  it('turns deletes missed during a 410 gap into tombstones when it relists', async () => {
    const small = new CacheCluster({ watchCacheSize: 3 });
    try {
      const lw = new FaultyListerWatcher(small.listerWatcher('configmaps'));
      const indexer = newIndexer();
      const fifo = new RealFIFO<KubeObject>({ knownObjects: indexer });
      const deleted: (KubeObject | DeletedFinalStateUnknown)[] = [];
      const signal = stop.signal;
      void (async () => {
        while (!signal.aborted) {
          await fifo
            .pop((deltas, initial) =>
              processDeltas({ onDelete: (o) => deleted.push(o) }, indexer, deltas, initial),
            )
            .catch(() => undefined);
        }
      })();
      for (const name of ['a', 'b', 'c']) await small.create('configmaps', configMap('ns', name));
      const reflector = new Reflector<KubeObject>({
        listerWatcher: lw,
        store: fifo,
        backoff: FAST_BACKOFF,
      });
      void reflector.run(signal);
      await eventually(() => expect(indexer.listKeys().sort()).toEqual(['ns/a', 'ns/b', 'ns/c']));
      const lastSeen = reflector.lastSyncResourceVersion();

      // The connection drops; while it is down "b" is deleted and the window moves past lastSeen.
      lw.refuse = true;
      lw.breakWatches();
      await small.remove('configmaps', 'ns', 'b');
      for (let i = 0; i < 5; i++) await small.create('configmaps', configMap('other', `x${i}`));
      lw.refuse = false;

      await eventually(() => expect(indexer.listKeys()).not.toContain('ns/b'));
      expect(
        lw.calls.some(
          (c) => c.verb === 'watch' && c.outcome === 'ok' && c.params.resourceVersion === lastSeen,
        ),
      ).toBe(true);
      const tombstone = deleted.find((d) => d instanceof DeletedFinalStateUnknown);
      expect(tombstone).toBeInstanceOf(DeletedFinalStateUnknown);
      expect((tombstone as DeletedFinalStateUnknown).key).toBe('ns/b');
      expect((tombstone as DeletedFinalStateUnknown).obj?.metadata.name).toBe('b');
      await eventually(() => expect(indexer.listKeys()).toHaveLength(7));
      fifo.close();
    } finally {
      stop.abort();
      await small.close();
    }
  });

  it('streams the initial state with a watch-list and swaps it in at the initial-events-end bookmark', async () => {
    for (const name of ['a', 'b']) await cluster.create('configmaps', configMap('ns', name));
    const lw = new FaultyListerWatcher(cluster.listerWatcher('configmaps'));
    const { store, ops } = recordingStore();
    const reflector = new Reflector({
      listerWatcher: lw,
      store,
      backoff: FAST_BACKOFF,
      useWatchList: true,
    });
    void reflector.run(stop.signal);
    await eventually(() => expect(ops[0]).toMatch(/^replace 2@/));
    expect(lw.calls.map((c) => c.verb)).toEqual(['watch']);
    expect(lw.calls[0]?.params).toMatchObject({
      sendInitialEvents: true,
      resourceVersionMatch: 'NotOlderThan',
      allowWatchBookmarks: true,
    });
    // The same watch goes on delivering changes.
    await cluster.create('configmaps', configMap('ns', 'c'));
    await eventually(() => expect(store.listKeys().sort()).toEqual(['ns/a', 'ns/b', 'ns/c']));
    expect(lw.calls).toHaveLength(1);
  });

  it('falls back to LIST and WATCH when the server rejects watch-list, and stops asking for it', async () => {
    await cluster.create('configmaps', configMap('ns', 'a'));
    const lw = new FaultyListerWatcher(cluster.listerWatcher('configmaps'));
    lw.rejectWatchList = ApiError.invalid({ group: 'meta.k8s.io', kind: 'ListOptions' }, '', []);
    const { store } = recordingStore();
    const reflector = new Reflector({
      listerWatcher: lw,
      store,
      backoff: FAST_BACKOFF,
      useWatchList: true,
    });
    void reflector.run(stop.signal);
    await eventually(() => expect(lw.watchesOpen).toBe(1));
    expect(store.listKeys()).toEqual(['ns/a']);
    expect(lw.calls.map((c) => `${c.verb} ${c.outcome}`)).toEqual([
      'watch 422',
      'list ok',
      'watch ok',
    ]);
    lw.forceRelist();
    await eventually(() =>
      expect(lw.calls.filter((c) => c.outcome === 'ok' && c.verb === 'watch')).toHaveLength(2),
    );
    expect(lw.calls.filter((c) => c.params.sendInitialEvents)).toHaveLength(1);
  });

  it('resyncs the store every resync period', async () => {
    const { store, ops } = recordingStore();
    const reflector = new Reflector({
      listerWatcher: cluster.listerWatcher('configmaps'),
      store,
      backoff: FAST_BACKOFF,
      resyncPeriodMs: 20,
    });
    void reflector.run(stop.signal);
    await eventually(() =>
      expect(ops.filter((o) => o === 'resync').length).toBeGreaterThanOrEqual(2),
    );
  });
});
