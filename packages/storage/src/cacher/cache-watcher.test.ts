import { findBuiltinResource } from '@listwatch/api';
import { describe, expect, it } from 'vitest';
import { CacheWatcher, type WatcherEndReason } from './cache-watcher.js';
import { Dispatcher } from './dispatcher.js';
import type { WatchCacheEvent } from './event-window.js';
import { SelectionPredicate } from './predicate.js';

// cache_watcher.go: a watcher's bounded buffer and its cut-off, here for a writer that pulls
// (listen/take, as the HTTP watch transport does) rather than awaiting nextBatch; and
// dispatcher.go's candidates: each watcher offered an event once, whatever scopes it matches.

const pods = findBuiltinResource('pods')!;

const event = (revision: number, name = `p${revision}`, node = 'n1'): WatchCacheEvent => ({
  type: 'ADDED',
  key: `/registry/pods/ns/${name}`,
  object: { metadata: { name, namespace: 'ns' }, spec: { nodeName: node } },
  objectLabels: {},
  objectFields: {},
  prevObject: undefined,
  prevObjectLabels: undefined,
  prevObjectFields: undefined,
  revision,
  recordTime: 0,
});

function watcher(
  capacity = 10,
  ended: WatcherEndReason[] = [],
  onEnd: (w: CacheWatcher) => void = () => undefined,
): CacheWatcher {
  return new CacheWatcher({
    predicate: SelectionPredicate.everything,
    keyPrefix: '/registry/pods/',
    startRevision: 0,
    allowBookmarks: false,
    deadline: undefined,
    capacity,
    blockedBudgetMs: 60_000,
    now: () => 0,
    onEnd: (w, reason) => {
      ended.push(reason);
      onEnd(w);
    },
  });
}

const revisions = (batch: { revision: number }[] | null) => batch?.map((e) => e.revision);

describe('CacheWatcher pulled with listen/take', () => {
  it('calls the listener synchronously for every queued event; take hands over all of them in order, then nothing', () => {
    const w = watcher();
    let calls = 0;
    w.listen(() => calls++);
    for (let rv = 1; rv <= 3; rv++) w.dispatch(event(rv));
    expect(calls).toBe(3);
    expect(revisions(w.take())).toEqual([1, 2, 3]);
    expect(w.take()).toEqual([]);
    expect(w.buffered).toBe(0);
  });

  it('a watcher that already holds events, or has ended, calls its listener at once', () => {
    const full = watcher();
    full.dispatch(event(1));
    let calls = 0;
    full.listen(() => calls++);
    expect(calls).toBe(1);

    const ended = watcher();
    ended.end('deadline');
    let endedCalls = 0;
    ended.listen(() => endedCalls++);
    expect(endedCalls).toBe(1);
    expect(ended.take()).toBeNull();
  });

  it('an ended watcher still hands over what it buffered, then null; the listener hears of the end', () => {
    const w = watcher();
    let calls = 0;
    w.listen(() => calls++);
    w.dispatch(event(1));
    w.end('deadline');
    expect(calls).toBe(2);
    expect(revisions(w.take())).toEqual([1]);
    expect(w.take()).toBeNull();
  });

  it('a watcher nobody takes from is ended as slow once it holds twice its capacity, its buffer dropped', () => {
    const ended: WatcherEndReason[] = [];
    const w = watcher(5, ended);
    w.listen(() => undefined);
    for (let rv = 1; rv <= 11; rv++) w.dispatch(event(rv));
    expect(ended).toEqual(['slow']);
    expect(w.take()).toBeNull();
  });

  it('taking keeps it alive: a writer that takes every event is never cut, however many', () => {
    const ended: WatcherEndReason[] = [];
    const w = watcher(5, ended);
    const got: number[] = [];
    w.listen(() => got.push(...(revisions(w.take()) ?? [])));
    for (let rv = 1; rv <= 100; rv++) w.dispatch(event(rv));
    expect(ended).toEqual([]);
    expect(got).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
  });
});

describe('Dispatcher', () => {
  it('offers an event once to a watcher filed under several matching scopes, and once to each of many in one scope', () => {
    const d = new Dispatcher(pods);
    const all = Array.from({ length: 3 }, () => watcher());
    for (const w of all) d.add(w, { kind: 'prefix', prefix: '/registry/pods/' });
    const byKey = watcher();
    d.add(byKey, { kind: 'key', key: '/registry/pods/ns/p1' });
    const byNode = watcher();
    d.add(byNode, { kind: 'index', index: 'spec.nodeName', value: 'n1' });
    // Only cluster-wide watchers match p2 on node n2: the one-scope path.
    expect(d.dispatch(event(1, 'p2', 'n2'), '/registry/pods/')).toBe(3);
    // p1 on n1: all five, each once.
    expect(d.dispatch(event(2, 'p1', 'n1'), '/registry/pods/')).toBe(5);
    for (const w of all) expect(revisions(w.take())).toEqual([1, 2]);
    expect(revisions(byKey.take())).toEqual([2]);
    expect(revisions(byNode.take())).toEqual([2]);
  });

  it('a watcher the event ends (too slow) leaves while the others still get it', () => {
    const d = new Dispatcher(pods);
    const ws = Array.from({ length: 4 }, () => watcher(1, [], (gone) => d.remove(gone)));
    for (const w of ws) d.add(w, { kind: 'prefix', prefix: '/registry/pods/' });
    // Fill the second watcher to the brim: the next event ends it mid-dispatch.
    ws[1]!.dispatch(event(1));
    ws[1]!.dispatch(event(2));
    expect(d.dispatch(event(3), '/registry/pods/')).toBe(4);
    expect(ws[1]!.endReason).toBe('slow');
    expect(d.size).toBe(3);
    for (const i of [0, 2, 3]) expect(revisions(ws[i]!.take())).toEqual([3]);
  });
});
