import type { KubeObject } from '@listwatch/api';
import type { StorageEventType } from '../storage.js';
import type { StoreSnapshot } from './cache-store.js';

/** One change as the watch cache keeps it: both states, their labels/fields computed once. */
export interface WatchCacheEvent {
  type: StorageEventType;
  key: string;
  object: KubeObject;
  objectLabels: Readonly<Record<string, string>>;
  objectFields: Readonly<Record<string, string>>;
  prevObject: KubeObject | undefined;
  prevObjectLabels: Readonly<Record<string, string>> | undefined;
  prevObjectFields: Readonly<Record<string, string>> | undefined;
  revision: number;
  /** When the cache recorded it (ms), for sizing the window by age. */
  recordTime: number;
}

/** watch_cache.go eventFreshDuration: the bookmark interval (1 min) plus 15 s. */
export const EVENT_FRESH_MS = 75_000;
export const LOWER_BOUND_CAPACITY = 100;
export const UPPER_BOUND_CAPACITY = 100 * 1024;

export interface EventWindowOptions {
  /** A fixed capacity (`--default-watch-cache-size`); undefined: adaptive. */
  fixedCapacity?: number;
}

/**
 * The ring buffer of recent events (watchCache.cache). Adaptive by default, as watchCache sizes
 * itself: doubles while full and its oldest event is younger than 75 s, halves when the newest
 * quarter is older than that, between 100 and 100×1024 events.
 *
 * Beside each event it keeps the store as it was right after it (KEP-4988, watch_cache.go with
 * ListFromCacheSnapshot: `storeSnapshotter`), and the store as listed until the first event falls
 * out: a LIST at any revision the window covers is served from these. They leave with their event.
 */
export class EventWindow {
  private buffer: (WatchCacheEvent | undefined)[];
  /** snapshots[i % capacity]: the store after buffer[i % capacity]. */
  private snapshots: (StoreSnapshot | undefined)[];
  /** The store at listRevision: valid while no event has fallen out. */
  private listSnapshot: StoreSnapshot | undefined;
  private heldSnapshots = 0;
  private start = 0;
  private end = 0;
  private readonly lower: number;
  private readonly upper: number;
  /** Whether an event fell out since the last relist: then the window, not the list, bounds history. */
  private evictedSinceReset = false;
  /** The revision the store was last listed at; events after it are all in the window until one falls out. */
  private listRevision = 0;

  constructor(options: EventWindowOptions = {}) {
    const fixed = options.fixedCapacity;
    this.lower = fixed ?? LOWER_BOUND_CAPACITY;
    this.upper = fixed ?? UPPER_BOUND_CAPACITY;
    this.buffer = new Array<WatchCacheEvent | undefined>(this.lower);
    this.snapshots = new Array<StoreSnapshot | undefined>(this.lower);
  }

  get capacity(): number {
    return this.buffer.length;
  }

  get size(): number {
    return this.end - this.start;
  }

  /** Empties the window after a relist at `revision` (the store then is `snapshot`). */
  reset(listRevision: number, snapshot?: StoreSnapshot): void {
    this.buffer = new Array<WatchCacheEvent | undefined>(this.lower);
    this.snapshots = new Array<StoreSnapshot | undefined>(this.lower);
    this.listSnapshot = snapshot;
    this.heldSnapshots = 0;
    this.start = 0;
    this.end = 0;
    this.evictedSinceReset = false;
    this.listRevision = listRevision;
  }

  /** Appends `event`; `snapshot` is the store right after it. */
  push(event: WatchCacheEvent, snapshot?: StoreSnapshot): void {
    this.resize(event.recordTime);
    if (this.size === this.capacity) {
      this.buffer[this.start % this.capacity] = undefined;
      if (this.snapshots[this.start % this.capacity]) this.heldSnapshots--;
      this.snapshots[this.start % this.capacity] = undefined;
      this.start++;
      this.evicted();
    }
    this.buffer[this.end % this.capacity] = event;
    this.snapshots[this.end % this.capacity] = snapshot;
    if (snapshot) this.heldSnapshots++;
    this.end++;
  }

  private evicted(): void {
    this.evictedSinceReset = true;
    this.listSnapshot = undefined;
  }

  private at(index: number): WatchCacheEvent {
    const event = this.buffer[index % this.capacity];
    if (!event) throw new Error(`event window slot ${index} is empty`);
    return event;
  }

  private resize(now: number): void {
    if (this.size !== this.capacity || this.lower === this.upper) return;
    if (now - this.at(this.start).recordTime < EVENT_FRESH_MS) {
      const grown = Math.min(this.capacity * 2, this.upper);
      if (grown > this.capacity) this.reallocate(grown);
      return;
    }
    const quarter = this.at(this.end - Math.floor(this.capacity / 4));
    if (now - quarter.recordTime > EVENT_FRESH_MS) {
      const shrunk = Math.max(Math.floor(this.capacity / 2), this.lower);
      if (shrunk < this.capacity) this.reallocate(shrunk);
    }
  }

  private reallocate(capacity: number): void {
    const kept = Math.min(this.size, capacity);
    const next = new Array<WatchCacheEvent | undefined>(capacity);
    const nextSnapshots = new Array<StoreSnapshot | undefined>(capacity);
    const from = this.end - kept;
    if (from > this.start) this.evicted();
    this.heldSnapshots = 0;
    for (let i = 0; i < kept; i++) {
      next[(from + i) % capacity] = this.at(from + i);
      const snapshot = this.snapshots[(from + i) % this.capacity];
      nextSnapshots[(from + i) % capacity] = snapshot;
      if (snapshot) this.heldSnapshots++;
    }
    this.buffer = next;
    this.snapshots = nextSnapshots;
    this.start = from;
  }

  /**
   * The oldest revision a watch may resume from: every event after it is still here
   * (watchCache.getAllEventsSinceLocked's `oldest - 1`).
   */
  oldestResumableRevision(): number {
    if (!this.evictedSinceReset) return this.listRevision;
    return this.size > 0 ? this.at(this.start).revision - 1 : this.listRevision;
  }

  /** How many of the window's events have a revision ≤ `revision` (binary search). */
  private countUpTo(revision: number): number {
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.at(this.start + mid).revision > revision) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  /** Events with revision > `revision`, oldest first; undefined when some have fallen out. */
  since(revision: number): WatchCacheEvent[] | undefined {
    if (revision < this.oldestResumableRevision()) return undefined;
    const events: WatchCacheEvent[] = [];
    for (let i = this.start + this.countUpTo(revision); i < this.end; i++) events.push(this.at(i));
    return events;
  }

  /**
   * The store as it was at `revision` (the snapshot of the newest event at or before it, as
   * storeSnapshotter.GetLessOrEqual), or undefined when the window no longer covers it. The
   * caller makes sure the cache has seen `revision`.
   */
  snapshotAt(revision: number): StoreSnapshot | undefined {
    const n = this.countUpTo(revision);
    if (n > 0) return this.snapshots[(this.start + n - 1) % this.capacity];
    return revision >= this.listRevision ? this.listSnapshot : undefined;
  }

  /** How many snapshots the window holds. */
  get snapshotCount(): number {
    return this.heldSnapshots + (this.listSnapshot ? 1 : 0);
  }

  /** Age of the oldest event (ms), 0 when empty: a metric. */
  age(now: number): number {
    return this.size === 0 ? 0 : now - this.at(this.start).recordTime;
  }
}
