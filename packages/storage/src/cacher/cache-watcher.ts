import type { ApiError, KubeObject, ResourceDefinition, WatchEvent } from '@listwatch/api';
import { EncodedEvent } from '@listwatch/codec';
import { bookmarkEvent } from './bookmarks.js';
import type { WatchCacheEvent } from './event-window.js';
import type { CacheWatchRequest } from './list-watch-source.js';
import { SelectionPredicate } from './predicate.js';
import type { ResourceKeys } from './resource-keys.js';
import { objectResourceVersion, updateObject } from '../api-object-versioner.js';

/**
 * A watch event as it leaves the cache. The EncodedEvent of one storage change is the same
 * instance for every watcher it goes to, so each encoding of it is computed once (cachingObject).
 */
export interface CacheWatchEvent {
  encoded: EncodedEvent;
  /** The resourceVersion this event moves the watcher to. */
  revision: number;
}

/** A per-watcher event (initial ADDED, BOOKMARK, ERROR): encoded for that watcher alone. */
export function ownEvent(event: WatchEvent, revision: number): CacheWatchEvent {
  return { encoded: new EncodedEvent(event), revision };
}

/**
 * A watch's initial state (KEP-3157): a synthetic ADDED per object at its own resourceVersion,
 * then, when asked for, the BOOKMARK that ends the initial events at `revision`.
 */
export function initialEvents(
  definition: Pick<ResourceDefinition, 'group' | 'version' | 'kind'>,
  objects: Iterable<KubeObject>,
  revision: number,
  endBookmark: boolean,
): CacheWatchEvent[] {
  const events: CacheWatchEvent[] = [];
  for (const object of objects) {
    const objectRevision =
      object.metadata.resourceVersion === undefined ? revision : objectResourceVersion(object);
    events.push(ownEvent({ type: 'ADDED', object }, objectRevision));
  }
  if (endBookmark) events.push(ownEvent(bookmarkEvent(definition, revision, true), revision));
  return events;
}

/** Why a watcher ended: by the client, the deadline, the cache, or for being too slow. */
export type WatcherEndReason =
  'closed' | 'deadline' | 'reinitializing' | 'slow' | 'error' | 'shutdown';

export interface CacheWatcherOptions {
  predicate: SelectionPredicate;
  /** Key prefix the watcher is scoped to (`/registry/pods/ns/` or an exact object key). */
  keyPrefix: string;
  /** Exact key when watching one object by name. */
  exactKey?: string;
  /** Only events with revision > this are delivered. */
  startRevision: number;
  allowBookmarks: boolean;
  /** Epoch ms after which the watch simply ends (timeoutSeconds), undefined: never. */
  deadline: number | undefined;
  /** Events buffered for this watcher before it counts as blocked. */
  capacity: number;
  /**
   * How long (ms) a watcher may stay blocked on a full buffer before it is terminated. Past the
   * capacity, events queue in an overflow of at most `capacity` more; overflowing that ends the
   * watcher at once, so memory per watcher stays bounded.
   */
  blockedBudgetMs: number;
  now: () => number;
  onEnd: (watcher: CacheWatcher, reason: WatcherEndReason) => void;
}

/** What the source serving a watch sets for all of its watchers. */
export interface WatcherSettings {
  capacity: number;
  blockedBudgetMs: number;
  now: () => number;
  onEnd: (watcher: CacheWatcher, reason: WatcherEndReason) => void;
}

/** The watcher of one WATCH request: its scope, selection, bookmarks and deadline. */
export function newCacheWatcher(
  keys: ResourceKeys,
  request: CacheWatchRequest,
  startRevision: number,
  settings: WatcherSettings,
): CacheWatcher {
  return new CacheWatcher({
    predicate: request.predicate ?? SelectionPredicate.everything,
    keyPrefix: keys.scope(request.namespace),
    ...(request.name !== undefined
      ? { exactKey: keys.object(request.namespace, request.name) }
      : {}),
    startRevision,
    allowBookmarks: request.allowWatchBookmarks ?? false,
    deadline: request.timeoutMs !== undefined ? settings.now() + request.timeoutMs : undefined,
    ...settings,
  });
}

interface SharedVariants {
  ADDED?: WeakRef<CacheWatchEvent>;
  MODIFIED?: WeakRef<CacheWatchEvent>;
  DELETED?: WeakRef<CacheWatchEvent>;
}

// One memo per WatchCacheEvent and event type, shared across watchers (cachingObject's role).
// Held weakly: the window keeps its events for ~75 s, and an encoding kept with each would cost
// as much again as the objects (issue 35); once every watcher it went to has written it, a
// watcher that resumes from the window later encodes it anew.
const variants = new WeakMap<WatchCacheEvent, SharedVariants>();

function variant(event: WatchCacheEvent, type: 'ADDED' | 'MODIFIED' | 'DELETED'): CacheWatchEvent {
  let memo = variants.get(event);
  if (!memo) variants.set(event, (memo = {}));
  const cached = memo[type]?.deref();
  if (cached) return cached;
  let object = event.object;
  // A watcher that stops matching sees the old state deleted at the event's revision.
  if (type === 'DELETED' && event.type !== 'DELETED' && event.prevObject) {
    object = updateObject(event.prevObject, event.revision);
  }
  const created: CacheWatchEvent = {
    encoded: new EncodedEvent({ type, object }),
    revision: event.revision,
  };
  memo[type] = new WeakRef(created);
  return created;
}

/**
 * One WATCH served by the cache (cacheWatcher): filters events by scope and selectors, turns
 * selector transitions into ADDED/DELETED, buffers a bounded number of events, sends bookmarks.
 * The dispatcher never waits on it: a watcher that cannot keep up is ended, and its client
 * resumes from the last resourceVersion it saw.
 */
export class CacheWatcher {
  private queue: CacheWatchEvent[] = [];
  private waiting: ((batch: CacheWatchEvent[] | null) => void) | undefined;
  private listener: (() => void) | undefined;
  private ended: WatcherEndReason | undefined;
  private blockedSince: number | undefined;
  /** Revision of the last event queued (the client's resume point once delivered). */
  lastRevision: number;

  constructor(readonly options: CacheWatcherOptions) {
    this.lastRevision = options.startRevision;
  }

  get endReason(): WatcherEndReason | undefined {
    return this.ended;
  }

  get buffered(): number {
    return this.queue.length;
  }

  inScope(key: string): boolean {
    return this.options.exactKey !== undefined
      ? key === this.options.exactKey
      : key.startsWith(this.options.keyPrefix);
  }

  /** Queues initial events (synthetic ADDED, an ERROR) without the slow-watcher rules. */
  seed(events: CacheWatchEvent[]): void {
    for (const e of events) this.queue.push(e);
    if (events.length) this.lastRevision = Math.max(this.lastRevision, events.at(-1)!.revision);
    this.flush();
  }

  /** Offers one change; converts it for this watcher per convertToWatchEvent (cache_watcher.go). */
  dispatch(event: WatchCacheEvent): void {
    if (this.ended || event.revision <= this.lastRevision) return;
    if (!this.inScope(event.key)) return;
    const { predicate } = this.options;
    const current =
      event.type !== 'DELETED' && predicate.matches(event.objectLabels, event.objectFields);
    const previous =
      event.prevObject !== undefined &&
      predicate.matches(event.prevObjectLabels ?? {}, event.prevObjectFields ?? {});
    let out: CacheWatchEvent | undefined;
    if (current && !previous) out = variant(event, 'ADDED');
    else if (current && previous) out = variant(event, 'MODIFIED');
    else if (!current && previous) out = variant(event, 'DELETED');
    if (out) this.enqueue(out);
    else this.lastRevision = event.revision;
  }

  /**
   * A periodic bookmark at `revision`, only when bookmarks were asked for and it moves the client
   * forward; dropped rather than queued when the buffer is full (cache_watcher.go).
   */
  bookmark(revision: number, makeBookmark: (revision: number) => WatchEvent): boolean {
    if (this.ended || !this.options.allowBookmarks) return false;
    if (revision <= this.lastRevision || this.queue.length >= this.options.capacity) return false;
    this.queue.push(ownEvent(makeBookmark(revision), revision));
    this.lastRevision = revision;
    this.flush();
    return true;
  }

  private enqueue(event: CacheWatchEvent): void {
    const { capacity, blockedBudgetMs, now } = this.options;
    this.lastRevision = event.revision;
    if (this.queue.length >= capacity) {
      const t = now();
      this.blockedSince ??= t;
      if (this.queue.length >= capacity * 2 || t - this.blockedSince > blockedBudgetMs) {
        this.end('slow');
        return;
      }
    } else {
      this.blockedSince = undefined;
    }
    this.queue.push(event);
    this.flush();
  }

  /** Ends the watcher after an ERROR event (e.g. 410 Expired after the stream began). */
  fail(error: ApiError): void {
    if (this.ended) return;
    this.queue.push(ownEvent({ type: 'ERROR', object: error.status }, this.lastRevision));
    this.end('error');
  }

  /** Ends the stream; buffered events still drain unless the watcher was too slow. */
  end(reason: WatcherEndReason): void {
    if (this.ended) return;
    this.ended = reason;
    if (reason === 'slow' || reason === 'closed') this.queue.length = 0;
    this.options.onEnd(this, reason);
    this.flush();
  }

  /** Checks the blocked budget from a timer, for watchers that stay full with no new events. */
  checkBlocked(): void {
    if (this.ended || this.blockedSince === undefined) return;
    if (this.queue.length < this.options.capacity) {
      this.blockedSince = undefined;
      return;
    }
    if (this.options.now() - this.blockedSince > this.options.blockedBudgetMs) this.end('slow');
  }

  private flush(): void {
    if (this.listener) return this.listener();
    const resolve = this.waiting;
    if (!resolve) return;
    if (this.queue.length > 0) {
      this.waiting = undefined;
      resolve(this.queue.splice(0));
    } else if (this.ended) {
      this.waiting = undefined;
      resolve(null);
    }
  }

  /** Everything buffered (at least one event), or null once the watch has ended and drained. */
  nextBatch(): Promise<CacheWatchEvent[] | null> {
    if (this.queue.length > 0) {
      this.blockedSince = undefined;
      return Promise.resolve(this.queue.splice(0));
    }
    if (this.ended) return Promise.resolve(null);
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  /**
   * Pulls events without a promise per wake-up, for a writer that gathers the events of many
   * watchers into one write per burst: `listener` runs synchronously whenever an event is queued
   * or the watcher ends (at once if either already happened); `take` then collects. Not to be
   * mixed with nextBatch.
   */
  listen(listener: () => void): void {
    this.listener = listener;
    if (this.queue.length > 0 || this.ended) listener();
  }

  /** Everything buffered (possibly nothing), or null once the watch has ended and drained. */
  take(): CacheWatchEvent[] | null {
    if (this.queue.length > 0) {
      this.blockedSince = undefined;
      const batch = this.queue;
      this.queue = [];
      return batch;
    }
    return this.ended ? null : [];
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<CacheWatchEvent> {
    try {
      for (;;) {
        const batch = await this.nextBatch();
        if (!batch) return;
        yield* batch;
      }
    } finally {
      this.end('closed');
    }
  }
}
