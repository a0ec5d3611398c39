import { findBuiltinResource } from '@listwatch/api';
import { describe, expect, it } from 'vitest';
import { CacheStore } from './cache-store.js';
import {
  EVENT_FRESH_MS,
  EventWindow,
  LOWER_BOUND_CAPACITY,
  type WatchCacheEvent,
} from './event-window.js';

// watch_cache.go resizeCacheLocked: grow ×2 while full and the oldest event is fresh (< 75 s),
// shrink ÷2 when the newest quarter is stale, between 100 and 100×1024; a fixed size never moves.

const event = (revision: number, recordTime: number): WatchCacheEvent => ({
  type: 'ADDED',
  key: `/registry/configmaps/ns/c${revision}`,
  object: { metadata: { name: `c${revision}` } },
  objectLabels: {},
  objectFields: {},
  prevObject: undefined,
  prevObjectLabels: undefined,
  prevObjectFields: undefined,
  revision,
  recordTime,
});

describe('EventWindow', () => {
  it('starts at 100 events and doubles while full of events younger than 75 s, keeping them all', () => {
    const window = new EventWindow();
    window.reset(0);
    expect(window.capacity).toBe(LOWER_BOUND_CAPACITY);
    for (let rv = 1; rv <= 250; rv++) window.push(event(rv, 1000));
    expect(window.capacity).toBe(400);
    expect(window.size).toBe(250);
    expect(window.since(0)?.map((e) => e.revision)).toEqual(
      Array.from({ length: 250 }, (_, i) => i + 1),
    );
  });

  it('halves when its newest quarter is older than 75 s, and then drops the oldest events', () => {
    const window = new EventWindow();
    window.reset(0);
    for (let rv = 1; rv <= 200; rv++) window.push(event(rv, 0));
    expect(window.capacity).toBe(200);
    window.push(event(201, EVENT_FRESH_MS + 1));
    expect(window.capacity).toBe(100);
    expect(window.size).toBe(100);
    expect(window.oldestResumableRevision()).toBe(101);
    expect(window.since(50)).toBeUndefined();
  });

  it('with a fixed size (--default-watch-cache-size) keeps exactly that many events', () => {
    const window = new EventWindow({ fixedCapacity: 5 });
    window.reset(0);
    for (let rv = 1; rv <= 20; rv++) window.push(event(rv, 1000));
    expect(window.capacity).toBe(5);
    expect(window.since(15)?.map((e) => e.revision)).toEqual([16, 17, 18, 19, 20]);
    expect(window.since(14)).toBeUndefined();
  });

  it('keeps the store as it was after each event, and the listed store until an event falls out; snapshots leave with their events', () => {
    const store = new CacheStore(findBuiltinResource('configmaps')!);
    const window = new EventWindow({ fixedCapacity: 3 });
    window.reset(10, store.snapshot(10));
    const names = (revision: number) =>
      window.snapshotAt(revision) &&
      [...window.snapshotAt(revision)!.range('/registry/')].map((e) => e.object.metadata.name);
    const push = (rv: number) => {
      const e = event(rv, 1000);
      store.upsert(store.element(e.object, e.key));
      window.push(e, store.snapshot(rv));
    };
    push(12);
    push(15);
    expect(names(10)).toEqual([]);
    expect(names(11)).toEqual([]);
    expect(names(12)).toEqual(['c12']);
    expect(names(14)).toEqual(['c12']);
    expect(names(15)).toEqual(['c12', 'c15']);
    expect(names(9)).toBeUndefined();
    expect(window.snapshotCount).toBe(3);
    push(16);
    push(17); // 12 falls out, and with it the listed store
    expect(window.snapshotCount).toBe(3);
    expect(names(10)).toBeUndefined();
    expect(names(14)).toBeUndefined();
    expect(names(15)).toEqual(['c12', 'c15']);
    expect(names(17)).toEqual(['c12', 'c15', 'c16', 'c17']);
  });
});
