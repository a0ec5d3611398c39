import type { KubeObject } from '@listwatch/api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../util/fake-clock.js';
import type { ListParams } from '../rest/list-params.js';
import { CacheCluster } from '../testing/cache-cluster.js';
import { eventually } from '../testing/eventually.js';
import { FaultyListerWatcher } from '../testing/faulty-lister-watcher.js';
import { configMap } from '../testing/fixtures.js';
import { DeletedFinalStateUnknown } from './deleted-final-state-unknown.js';
import type { ListerWatcher } from './lister-watcher.js';
import type { EventHandler } from './processor-listener.js';
import { SharedIndexInformer, type SharedInformerOptions } from './shared-informer.js';

const FAST = { backoff: { initialMs: 5, maxMs: 20 } };

/** Records notifications as short strings. */
function recorder(): { handler: EventHandler; seen: string[] } {
  const seen: string[] = [];
  const name = (o: KubeObject | DeletedFinalStateUnknown) =>
    o instanceof DeletedFinalStateUnknown
      ? `tombstone:${o.key}`
      : `${o.metadata.namespace}/${o.metadata.name}`;
  return {
    seen,
    handler: {
      onAdd: (o, initial) => void seen.push(`add ${name(o)}${initial ? ' (initial)' : ''}`),
      onUpdate: (o, n) =>
        void seen.push(
          `update ${name(n)} ${o.metadata.resourceVersion}->${n.metadata.resourceVersion}`,
        ),
      onDelete: (o) => void seen.push(`delete ${name(o)}`),
    },
  };
}

function withSelector<T extends KubeObject>(
  lw: ListerWatcher<T>,
  labelSelector: string,
): ListerWatcher<T> {
  const tweak = (p: ListParams): ListParams => ({ ...p, labelSelector });
  return { list: (p, s) => lw.list(tweak(p), s), watch: (p, s) => lw.watch(tweak(p), s) };
}

describe('SharedIndexInformer (client-go tools/cache/shared_informer.go)', () => {
  let cluster: CacheCluster;
  const informers: SharedIndexInformer[] = [];

  function informer(
    options: Partial<SharedInformerOptions> & { listerWatcher: ListerWatcher },
  ): SharedIndexInformer {
    const i = new SharedIndexInformer({
      resource: { group: '', resource: 'configmaps' },
      reflector: FAST,
      ...options,
    });
    informers.push(i);
    return i;
  }

  beforeEach(() => {
    cluster = new CacheCluster();
  });
  afterEach(async () => {
    await Promise.all(informers.splice(0).map((i) => i.stop()));
    await cluster.close();
  });

  it('shares one list and one watch among its handlers, each getting the initial list then the changes', async () => {
    await cluster.create('configmaps', configMap('ns', 'a'));
    const lw = new FaultyListerWatcher(cluster.listerWatcher('configmaps'));
    const inf = informer({ listerWatcher: lw });
    const one = recorder();
    const two = recorder();
    const r1 = inf.addEventHandler(one.handler);
    const r2 = inf.addEventHandler(two.handler);
    inf.start();
    expect(await inf.waitForCacheSync()).toBe(true);
    await eventually(() => expect(r1.hasSynced() && r2.hasSynced()).toBe(true));
    await cluster.create('configmaps', configMap('ns', 'b'));
    await cluster.remove('configmaps', 'ns', 'a');
    const expected = ['add ns/a (initial)', 'add ns/b', 'delete ns/a'];
    await eventually(() => expect(one.seen).toEqual(expected));
    await eventually(() => expect(two.seen).toEqual(expected));
    expect(lw.calls.map((c) => c.verb)).toEqual(['list', 'watch']);
    expect(
      inf
        .lister()
        .namespace('ns')
        .list()
        .map((o) => o.metadata.name),
    ).toEqual(['b']);
  });

  it('waitForCacheSync resolves as soon as the initial list is processed, empty or not, not at its next poll', async () => {
    // The clock never moves: a wait that only polled every 100 ms would never see the sync.
    const clock = new FakeClock(Date.now());
    for (const name of ['a', 'b', 'c']) await cluster.create('configmaps', configMap('ns', name));
    const inf = informer({ listerWatcher: cluster.listerWatcher('configmaps'), clock });
    // Real time bounds the wait, so a missing wake-up fails in 2 s rather than by timeout.
    const within2s = <T>(p: Promise<T>) =>
      Promise.race([p, new Promise<string>((r) => setTimeout(() => r('not woken'), 2000))]);
    const waiting = inf.waitForCacheSync();
    inf.start();
    expect(await within2s(waiting)).toBe(true);
    expect(inf.getIndexer().listKeys().sort()).toEqual(['ns/a', 'ns/b', 'ns/c']);

    // An empty initial list pops nothing: the FIFO's replace itself is the sync.
    const empty = informer({
      listerWatcher: withSelector(cluster.listerWatcher('configmaps'), 'matches=nothing'),
      clock,
    });
    empty.start();
    expect(await within2s(empty.waitForCacheSync())).toBe(true);
    expect(empty.getIndexer().listKeys()).toEqual([]);
  });

  it('delivers an initial list thirty times a handler buffer without overflowing it: the handlers keep pace with the FIFO', async () => {
    for (let i = 0; i < 300; i++) await cluster.create('configmaps', configMap('ns', `cm-${i}`));
    const inf = informer({ listerWatcher: cluster.listerWatcher('configmaps') });
    const one = recorder();
    const reg = inf.addEventHandler(one.handler, { bufferSize: 10 });
    inf.start();
    await inf.waitForCacheSync();
    await eventually(() => expect(reg.hasSynced()).toBe(true));
    expect(reg.metrics()).toMatchObject({ overflows: 0, coalesced: 0, delivered: 300 });
    expect(one.seen.filter((s) => s.endsWith('(initial)'))).toHaveLength(300);
  });

  it('replays the current state as initial-list adds to a handler added after start', async () => {
    await cluster.create('configmaps', configMap('ns', 'a'));
    await cluster.create('configmaps', configMap('ns', 'b'));
    const inf = informer({ listerWatcher: cluster.listerWatcher('configmaps') });
    inf.addEventHandler({});
    inf.start();
    await inf.waitForCacheSync();
    const late = recorder();
    const reg = inf.addEventHandler(late.handler);
    await eventually(() => expect(reg.hasSynced()).toBe(true));
    expect(late.seen.sort()).toEqual(['add ns/a (initial)', 'add ns/b (initial)']);
    await cluster.create('configmaps', configMap('ns', 'c'));
    await eventually(() => expect(late.seen).toContain('add ns/c'));
  });

  it('does not let a stuck handler delay the others, and shows it lagging until it catches up', async () => {
    const inf = informer({ listerWatcher: cluster.listerWatcher('configmaps') });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slowView = new Map<string, string | undefined>();
    const slow = inf.addEventHandler(
      {
        onAdd: async (o) => {
          await gate;
          slowView.set(o.metadata.name!, o.metadata.resourceVersion);
        },
        onUpdate: (_o, n) => void slowView.set(n.metadata.name!, n.metadata.resourceVersion),
        onDelete: (o) =>
          void slowView.delete(
            (o instanceof DeletedFinalStateUnknown ? o.obj : o)?.metadata.name ?? '',
          ),
      },
      { bufferSize: 3, name: 'slow' },
    );
    const fast = recorder();
    inf.addEventHandler(fast.handler, { name: 'fast' });
    inf.start();
    await inf.waitForCacheSync();
    for (let i = 0; i < 10; i++) await cluster.create('configmaps', configMap('ns', `o${i}`));
    await cluster.remove('configmaps', 'ns', 'o3');
    await eventually(() => expect(fast.seen).toHaveLength(11));
    const lagging = slow.metrics();
    expect(lagging).toMatchObject({ name: 'slow', lagging: true, overflows: 1 });
    expect(inf.metrics().handlers.find((h) => h.name === 'fast')).toMatchObject({
      lagging: false,
      delivered: 11,
    });
    release();
    await eventually(() => expect(slow.metrics().lagging).toBe(false));
    const truth = new Map(
      inf
        .getIndexer()
        .list()
        .map((o) => [o.metadata.name!, o.metadata.resourceVersion]),
    );
    await eventually(() => expect(slowView).toEqual(truth));
  });

  it('isolates a throwing handler: the others and the informer carry on', async () => {
    const inf = informer({ listerWatcher: cluster.listerWatcher('configmaps') });
    const bad = inf.addEventHandler({
      onAdd: () => {
        throw new Error('bug in a handler');
      },
    });
    const good = recorder();
    inf.addEventHandler(good.handler);
    inf.start();
    await inf.waitForCacheSync();
    await cluster.create('configmaps', configMap('ns', 'a'));
    await cluster.create('configmaps', configMap('ns', 'b'));
    await eventually(() => expect(good.seen).toEqual(['add ns/a', 'add ns/b']));
    await eventually(() => expect(bad.metrics().handlerErrors).toBe(2));
    expect(inf.getIndexer().listKeys().sort()).toEqual(['ns/a', 'ns/b']);
  });

  it('turns label-selector transitions into adds and deletes', async () => {
    const inf = informer({
      listerWatcher: withSelector(cluster.listerWatcher('configmaps'), 'app=web'),
    });
    const rec = recorder();
    inf.addEventHandler(rec.handler);
    inf.start();
    await inf.waitForCacheSync();
    const a = await cluster.create('configmaps', configMap('ns', 'a', undefined, { app: 'db' }));
    const inside = await cluster.update('configmaps', {
      ...a,
      metadata: { ...a.metadata, labels: { app: 'web' } },
    });
    await eventually(() => expect(rec.seen).toEqual(['add ns/a']));
    await cluster.update('configmaps', {
      ...inside,
      metadata: { ...inside.metadata, labels: { app: 'db' } },
    });
    await eventually(() => expect(rec.seen).toEqual(['add ns/a', 'delete ns/a']));
    expect(inf.getIndexer().list()).toEqual([]);
  });

  it('transforms objects before they are stored', async () => {
    await cluster.create('configmaps', {
      ...configMap('ns', 'a'),
      metadata: { namespace: 'ns', name: 'a', managedFields: [{ manager: 'kubectl' }] },
    });
    const inf = informer({
      listerWatcher: cluster.listerWatcher('configmaps'),
      transform: (o) => ({ ...o, metadata: { ...o.metadata, managedFields: [] } }),
    });
    inf.start();
    await inf.waitForCacheSync();
    expect(inf.getIndexer().getByKey('ns/a')?.metadata.managedFields).toEqual([]);
  });

  it('resyncs unchanged objects only to the handlers whose resync period is due', async () => {
    const clock = new FakeClock(Date.now());
    await cluster.create('configmaps', configMap('ns', 'a'));
    const inf = informer({ listerWatcher: cluster.listerWatcher('configmaps'), clock });
    const often = recorder();
    const rarely = recorder();
    const never = recorder();
    inf.addEventHandler(often.handler, { resyncPeriodMs: 1000 });
    inf.addEventHandler(rarely.handler, { resyncPeriodMs: 3000 });
    inf.addEventHandler(never.handler, { resyncPeriodMs: 0 });
    inf.start();
    await eventually(() => expect(often.seen).toEqual(['add ns/a (initial)']));
    await eventually(() => expect(clock.hasWaiters()).toBe(true));
    const resyncs = (seen: string[]) => seen.filter((s) => s.startsWith('update')).length;
    for (let i = 1; i <= 3; i++) {
      clock.step(1000);
      await eventually(() => expect(resyncs(often.seen)).toBe(i));
    }
    expect(resyncs(rarely.seen)).toBe(1);
    expect(resyncs(never.seen)).toBe(0);
  });

  it('stops delivering to a removed handler only', async () => {
    const inf = informer({ listerWatcher: cluster.listerWatcher('configmaps') });
    const kept = recorder();
    const removed = recorder();
    inf.addEventHandler(kept.handler);
    const reg = inf.addEventHandler(removed.handler);
    inf.start();
    await inf.waitForCacheSync();
    await inf.removeEventHandler(reg);
    await cluster.create('configmaps', configMap('ns', 'a'));
    await eventually(() => expect(kept.seen).toEqual(['add ns/a']));
    expect(removed.seen).toEqual([]);
    expect(inf.metrics().handlers).toHaveLength(1);
  });

  it('coalesces per key with DeltaFIFO on request and still ends equal to the server', async () => {
    const inf = informer({ listerWatcher: cluster.listerWatcher('configmaps'), fifo: 'delta' });
    const rec = recorder();
    inf.addEventHandler(rec.handler);
    inf.start();
    await inf.waitForCacheSync();
    const a = await cluster.create('configmaps', configMap('ns', 'a'));
    await cluster.update('configmaps', { ...a, data: { x: '1' } });
    await eventually(() => expect(inf.getIndexer().getByKey('ns/a')?.data).toEqual({ x: '1' }));
    expect(rec.seen[0]).toBe('add ns/a');
  });

  it('start() after stop() restarts (unlike client-go): a relist at the last synced resourceVersion tells the handlers what changed meanwhile, and a handler added while stopped gets the cache', async () => {
    await cluster.create('configmaps', configMap('ns', 'a'));
    const b = await cluster.create('configmaps', configMap('ns', 'b'));
    const lw = new FaultyListerWatcher(cluster.listerWatcher('configmaps'));
    const inf = informer({ listerWatcher: lw });
    const rec = recorder();
    inf.addEventHandler(rec.handler);
    inf.start();
    await inf.waitForCacheSync();
    await eventually(() => expect(rec.seen).toEqual(['add ns/a (initial)', 'add ns/b (initial)']));
    await inf.stop();
    expect(inf.isStopped()).toBe(true);
    const rv = inf.lastSyncResourceVersion();
    rec.seen.length = 0;

    const b2 = await cluster.update('configmaps', { ...b, data: { x: '1' } });
    await cluster.remove('configmaps', 'ns', 'a');
    await cluster.create('configmaps', configMap('ns', 'c'));
    const late = new Map<string, KubeObject>();
    const lateReg = inf.addEventHandler({
      onAdd: (o) => void late.set(o.metadata.name ?? '', o),
      onUpdate: (_, o) => void late.set(o.metadata.name ?? '', o),
      onDelete: (o) =>
        void late.delete(
          o instanceof DeletedFinalStateUnknown ? o.key.split('/')[1]! : o.metadata.name!,
        ),
    });

    inf.start();
    expect(inf.isStopped()).toBe(false);
    expect(await inf.waitForCacheSync()).toBe(true);
    expect(lw.lists.map((l) => l.params.resourceVersion)).toEqual(['0', rv]);
    expect(inf.getIndexer().listKeys().sort()).toEqual(['ns/b', 'ns/c']);
    await eventually(() =>
      expect(rec.seen).toEqual([
        'delete tombstone:ns/a',
        `update ns/b ${b.metadata.resourceVersion}->${b2.metadata.resourceVersion}`,
        'add ns/c',
      ]),
    );
    await eventually(() => expect(lateReg.hasSynced()).toBe(true));
    expect([...late.keys()].sort()).toEqual(['b', 'c']);
    expect(late.get('b')?.data).toEqual({ x: '1' });

    await cluster.create('configmaps', configMap('ns', 'd'));
    await eventually(() => expect(rec.seen.at(-1)).toBe('add ns/d'));
    await eventually(() => expect(late.has('d')).toBe(true));
    expect(lw.watchesOpen).toBe(1);
  });

  it('start() during a stop() in progress restarts once that stop is done: one reflector, one watch', async () => {
    const lw = new FaultyListerWatcher(cluster.listerWatcher('configmaps'));
    const inf = informer({ listerWatcher: lw });
    const rec = recorder();
    inf.addEventHandler(rec.handler);
    inf.start();
    await inf.waitForCacheSync();
    await eventually(() => expect(lw.watchesOpen).toBe(1));

    const stopping = inf.stop();
    inf.start();
    inf.start();
    await stopping;
    expect(inf.isStopped()).toBe(false);
    expect(await inf.waitForCacheSync()).toBe(true);
    await cluster.create('configmaps', configMap('ns', 'x'));
    await eventually(() => expect(rec.seen).toEqual(['add ns/x']));
    expect(lw.watchesOpen).toBe(1);
    expect(lw.lists).toHaveLength(2);

    // Stopped again before that restart could begin: it never does.
    const stoppingAgain = inf.stop();
    inf.start();
    await inf.stop();
    await stoppingAgain;
    expect(inf.isStopped()).toBe(true);
    expect(lw.watchesOpen).toBe(0);
    expect(lw.lists).toHaveLength(2);
  });

  it('shuts down cleanly: the watch is closed and nothing is delivered afterwards', async () => {
    const lw = new FaultyListerWatcher(cluster.listerWatcher('configmaps'));
    const inf = informer({ listerWatcher: lw });
    const rec = recorder();
    inf.addEventHandler(rec.handler);
    // A second informer, still running, is the witness: once it has been told of the late
    // ConfigMap, the stopped one would have been too, had it still been watching.
    const witness = informer({ listerWatcher: cluster.listerWatcher('configmaps') });
    const witnessed = recorder();
    witness.addEventHandler(witnessed.handler);
    inf.start();
    witness.start();
    await inf.waitForCacheSync();
    await witness.waitForCacheSync();
    await eventually(() => expect(lw.watchesOpen).toBe(1));
    await inf.stop();
    expect(lw.watchesOpen).toBe(0);
    expect(inf.isStopped()).toBe(true);
    await cluster.create('configmaps', configMap('ns', 'late'));
    await eventually(() => expect(witnessed.seen).toEqual(['add ns/late']));
    expect(rec.seen).toEqual([]);
    expect(await inf.waitForCacheSync()).toBe(true);
  });
});
