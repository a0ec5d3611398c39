import type { KubeObject } from '@listwatch/api';
import type { StorageEventType } from '../storage.js';

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
 */
export class EventWindow {
  private buffer: (WatchCacheEvent | undefined)[];
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
  }

  get capacity(): number {
    return this.buffer.length;
  }

  get size(): number {
    return this.end - this.start;
  }

  /** Empties the window after a relist at `revision`. */
  reset(listRevision: number): void {
    this.buffer = new Array<WatchCacheEvent | undefined>(this.lower);
    this.start = 0;
    this.end = 0;
    this.evictedSinceReset = false;
    this.listRevision = listRevision;
  }

  push(event: WatchCacheEvent): void {
    this.resize(event.recordTime);
    if (this.size === this.capacity) {
      this.buffer[this.start % this.capacity] = undefined;
      this.start++;
      this.evictedSinceReset = true;
    }
    this.buffer[this.end % this.capacity] = event;
    this.end++;
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
    const from = this.end - kept;
    if (from > this.start) this.evictedSinceReset = true;
    for (let i = 0; i < kept; i++) next[(from + i) % capacity] = this.at(from + i);
    this.buffer = next;
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

  /** Events with revision > `revision`, oldest first; undefined when some have fallen out. */
  since(revision: number): WatchCacheEvent[] | undefined {
    if (revision < this.oldestResumableRevision()) return undefined;
    // Binary search for the first event newer than `revision`.
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.at(this.start + mid).revision > revision) hi = mid;
      else lo = mid + 1;
    }
    const events: WatchCacheEvent[] = [];
    for (let i = this.start + lo; i < this.end; i++) events.push(this.at(i));
    return events;
  }

  /** Age of the oldest event (ms), 0 when empty: a metric. */
  age(now: number): number {
    return this.size === 0 ? 0 : now - this.at(this.start).recordTime;
  }
}
