import {
  ApiError,
  qualifiedResource,
  classifyGet,
  classifyList,
  classifyWatch,
  isContinuedList,
  silentLogger,
  type CacheableRead,
  type KubeObject,
  type Logger,
  type ResourceDefinition,
} from '@listwatch/api';
import { BookmarkSchedule, bookmarkEvent } from './bookmarks.js';
import { ResourceKeys } from './resource-keys.js';
import type { Storage, StorageWatch } from '../storage.js';
import { StorageError, isStorageError } from '../storage-error.js';
import {
  cachePage,
  indexedCandidates,
  initialObjects,
  pinnedIndex,
  type ServedPage,
} from './cache-lister.js';
import {
  initialEvents,
  newCacheWatcher,
  type CacheWatcher,
  type WatcherEndReason,
} from './cache-watcher.js';
import type { CacherMetrics, ListDelegationReason } from './cacher-metrics.js';
import { Dispatcher, type WatcherScope } from './dispatcher.js';
import type { WatchCacheEvent } from './event-window.js';
import type {
  CacheGetRequest,
  CacheListRequest,
  CacheListResult,
  CacheWatchRequest,
  ListWatchSource,
} from './list-watch-source.js';
import { SelectionPredicate } from './predicate.js';
import { listFromStorage, pageResult } from './storage-lister.js';
import { WatchCache } from './watch-cache.js';
import { listAll, type ListedState } from './lister-watcher.js';
import { ConditionalProgressRequester } from './progress-requester.js';

export interface CacherOptions {
  storage: Storage;
  definition: ResourceDefinition;
  /** Fixed window capacity (`--default-watch-cache-size`); undefined: adaptive. 0 is rejected: use no cacher. */
  watchCacheSize?: number;
  /**
   * Keep a snapshot of the store at every revision in the window and serve exact LISTs and
   * continuations from them (kube's ListFromCacheSnapshot, on by default since 1.34).
   */
  listFromCacheSnapshot?: boolean;
  /** How often each watcher that asked gets a bookmark (kube: 1 min). */
  bookmarkIntervalMs?: number;
  /** Per-watcher buffer (kube: 10..1000). */
  watcherCapacity?: number;
  /** How long a watcher may stay blocked on a full buffer before it is ended. */
  blockedBudgetMs?: number;
  /** How long a request waits for the cache to reach a resourceVersion (kube: 3 s). */
  freshnessTimeoutMs?: number;
  /** How often progress is requested from storage while someone waits (kube: 100 ms). */
  progressIntervalMs?: number;
  /** How often deadlines, bookmarks and blocked watchers are checked (default 1 s). */
  tickIntervalMs?: number;
  /**
   * How many revisions of storage's history a (re)started cache replays into its window, so a
   * watch from a resourceVersion seen before the restart resumes instead of relisting (default
   * 10,000; 0: none). Compacted history is never asked for.
   */
  replayRevisions?: number;
  logger?: Logger;
  metrics?: CacherMetrics;
  now?: () => number;
}

const RETRY_AFTER_NOT_READY = 1;

function notReady(): ApiError {
  return ApiError.tooManyRequests('storage is (re)initializing', RETRY_AFTER_NOT_READY);
}

/**
 * The watch cache of one resource (kube-apiserver's Cacher): a single storage watch feeds a
 * store and a window of recent events, and every LIST and WATCH of the resource is served from
 * them, so storage sees one watch per resource however many clients there are.
 */
export class Cacher implements ListWatchSource {
  readonly definition: ResourceDefinition;
  readonly keys: ResourceKeys;
  private readonly storage: Storage;
  private readonly cache: WatchCache;
  private readonly dispatcher: Dispatcher;
  private readonly logger: Logger;
  private readonly metrics: CacherMetrics;
  private readonly now: () => number;
  private readonly opts: Required<
    Pick<
      CacherOptions,
      | 'bookmarkIntervalMs'
      | 'watcherCapacity'
      | 'blockedBudgetMs'
      | 'freshnessTimeoutMs'
      | 'progressIntervalMs'
      | 'tickIntervalMs'
      | 'replayRevisions'
    >
  >;
  private ready = false;
  private readyWaiters: (() => void)[] = [];
  private stopped = false;
  private storageWatch: StorageWatch | undefined;
  private loop: Promise<void> | undefined;
  private ticker: NodeJS.Timeout | undefined;
  private readonly progress: ConditionalProgressRequester;
  private readonly bookmarks: BookmarkSchedule;
  /** One function for every watcher's end, not a closure per watcher (idle watches are many). */
  private readonly endWatcher = (w: CacheWatcher, reason: WatcherEndReason) =>
    this.onWatcherEnd(w, reason);
  private terminations = 0;
  /**
   * Keys whose current value does not decode (no configured key decrypts it): left out of the
   * cache, an error for that object alone — a GET of it and a LIST over it (kube 1.32 GetList)
   * are 500 naming it; watches skip it. Cleared by the key's next change.
   */
  private corrupt = new Map<string, StorageError>();
  /** Replays history at (re)initialization; off once history held a value that does not decode. */
  private replay = true;

  constructor(options: CacherOptions) {
    if (options.watchCacheSize === 0)
      throw new Error('watch cache size 0 means no cacher: serve from storage');
    this.storage = options.storage;
    this.definition = options.definition;
    this.keys = new ResourceKeys(options.storage.prefix, options.definition);
    this.logger = options.logger ?? silentLogger;
    this.metrics = options.metrics ?? {};
    this.now = options.now ?? Date.now;
    this.opts = {
      bookmarkIntervalMs: options.bookmarkIntervalMs ?? 60_000,
      watcherCapacity: options.watcherCapacity ?? 100,
      blockedBudgetMs: options.blockedBudgetMs ?? 100,
      freshnessTimeoutMs: options.freshnessTimeoutMs ?? 3_000,
      progressIntervalMs: options.progressIntervalMs ?? 100,
      tickIntervalMs: options.tickIntervalMs ?? 1000,
      replayRevisions: options.replayRevisions ?? 10_000,
    };
    this.cache = new WatchCache(
      options.definition,
      {
        ...(options.watchCacheSize === undefined ? {} : { fixedCapacity: options.watchCacheSize }),
        snapshots: options.listFromCacheSnapshot ?? true,
      },
      this.now,
    );
    this.dispatcher = new Dispatcher(options.definition);
    this.progress = new ConditionalProgressRequester(
      () => this.storageWatch,
      () => this.cache.hasWaiters,
      this.opts.progressIntervalMs,
    );
    this.bookmarks = new BookmarkSchedule(this.opts.bookmarkIntervalMs);
  }

  get resource(): string {
    return qualifiedResource(this.definition);
  }

  get isReady(): boolean {
    return this.ready;
  }

  /** The revision the cache has caught up to. */
  get revision(): number {
    return this.cache.revision;
  }

  get watcherCount(): number {
    return this.dispatcher.size;
  }

  get terminatedSlowWatchers(): number {
    return this.terminations;
  }

  get windowSize(): number {
    return this.cache.window.size;
  }

  /** Starts the list-then-watch loop; resolves when the cache is first ready. */
  start(): Promise<void> {
    if (!this.loop) {
      this.loop = this.run();
      this.ticker = setInterval(() => this.tick(), this.opts.tickIntervalMs);
      this.ticker.unref();
    }
    return this.waitReady();
  }

  waitReady(): Promise<void> {
    if (this.ready) return Promise.resolve();
    return new Promise((resolve) => this.readyWaiters.push(resolve));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.ticker) clearInterval(this.ticker);
    this.progress.stop();
    this.storageWatch?.close();
    this.endAll('shutdown');
    this.cache.failWaiters(ApiError.serviceUnavailable('the watch cache is shutting down'));
    await this.loop;
  }

  // --- initialization -----------------------------------------------------------------------

  private async run(): Promise<void> {
    let backoff = 100;
    while (!this.stopped) {
      try {
        const { revision, current } = await this.relist();
        // Stopped while listing: stop() closed no watch, so none may be opened now.
        if (this.stopped) break;
        const watch = this.storage.watch(this.keys.prefix, {
          fromRevision: revision,
          progressNotify: true,
        });
        this.storageWatch = watch;
        // Listed in the past: ready once the replayed history reaches storage's revision of
        // the start (a progress notification tells when nothing of ours changed since).
        if (this.cache.revision >= current) this.setReady(true);
        else watch.requestProgress();
        backoff = 100;
        for await (const event of watch) {
          if (event.type === 'PROGRESS') this.cache.advance(event.revision);
          else {
            if (this.corrupt.size > 0) this.corrupt.delete(event.key);
            this.process(this.cache.apply(event));
          }
          if (!this.ready && this.cache.revision >= current) this.setReady(true);
        }
        if (!this.stopped)
          this.logger.warn('storage watch ended; re-initializing', { resource: this.resource });
      } catch (err) {
        if (this.stopped) break;
        if (isStorageError(err, 'CorruptObject') && this.replay) {
          // Replayed history held a value no configured key reads (a key removed after a
          // rotation): list at the current revision from now on, as kube's cacher always does.
          this.replay = false;
          this.logger.warn(
            'watch cache stops replaying history: it holds a value that does not decode',
            { resource: this.resource, key: err.key, error: err.message },
          );
        }
        this.logger.warn('watch cache re-initializing', {
          resource: this.resource,
          error: err instanceof Error ? err.message : String(err),
        });
        await new Promise((r) => setTimeout(r, backoff));
        backoff = Math.min(backoff * 2, 5_000);
      } finally {
        this.storageWatch = undefined;
      }
      if (this.stopped) break;
      // Any break of the storage watch: every watcher ends, the client re-watches once ready.
      this.setReady(false);
      this.endAll('reinitializing');
      this.metrics.reinitialized?.(this.resource);
    }
  }

  /**
   * Lists all of storage at one revision, page by page, and refills the cache. The revision is
   * up to `replayRevisions` in the past when storage still has that history: the watch from it
   * then replays the events since into the window, so clients that watched the previous
   * apiserver (or this cache before it re-initialized) resume from their resourceVersion
   * instead of getting 410 and relisting. `current` is storage's revision now.
   */
  private async relist(): Promise<{ revision: number; current: number }> {
    // Replayed history is caught up only when the watch passes `current`: with no change of
    // ours since, only a progress answer says so. Without reliable progress requests (etcd
    // before 3.4.31/3.5.13) that would wait for etcd's periodic notification — 10 minutes on
    // its default flags — so the cache lists at the current revision, as kube's reflector
    // always does, and is ready at once (readiness never waits for a progress notification).
    const replay =
      this.replay && this.opts.replayRevisions > 0 && (await this.progressRequestsSupported());
    const current = await this.storage.currentRevision();
    // Revision 1 is the oldest any backend can be read at (0 means "the latest"). A compaction
    // this process does not know of shows as Expired: then half as far back, and so on.
    const floor = Math.max(this.storage.compactRevision(), 1);
    let listed: ListedState | undefined;
    for (
      let back = replay ? this.opts.replayRevisions : 0;
      back >= 1 && !listed;
      back = Math.floor(back / 2)
    ) {
      const past = Math.max(current - back, floor);
      if (past >= current) break;
      listed = await listAll(this.storage, this.keys.prefix, past);
    }
    const { items, revision, corrupt } =
      listed ?? (await listAll(this.storage, this.keys.prefix, 0))!;
    this.cache.replace(items, revision);
    this.corrupt = new Map(corrupt.map((err) => [err.key, err]));
    for (const err of corrupt)
      this.logger.warn('watch cache left out an object that does not decode', {
        resource: this.resource,
        key: err.key,
        error: err.message,
      });
    this.logger.info('watch cache initialized', {
      resource: this.resource,
      items: items.length,
      revision,
      replaying: Math.max(0, current - revision),
    });
    return { revision, current };
  }

  private setReady(ready: boolean): void {
    this.ready = ready;
    if (!ready) return;
    const waiters = this.readyWaiters;
    this.readyWaiters = [];
    for (const resolve of waiters) resolve();
  }

  private process(event: WatchCacheEvent): void {
    const deliveries = this.dispatcher.dispatch(event, this.keys.prefix);
    this.metrics.eventsDispatched?.(this.resource, deliveries);
  }

  // --- freshness ----------------------------------------------------------------------------

  /** Waits until the cache has seen `revision`, asking storage for progress meanwhile. */
  private async waitFresh(revision: number): Promise<void> {
    if (revision <= this.cache.revision) return;
    this.progress.start();
    try {
      await this.cache.waitUntilFresh(revision, this.opts.freshnessTimeoutMs);
    } finally {
      if (!this.cache.hasWaiters) this.progress.stop();
    }
  }

  /**
   * Waits until the cache may serve `read` (watch_cache.go waitUntilFreshAndBlock): any → now;
   * N → once it has seen N (else 504); consistent → once it has seen storage's current revision
   * (ConsistentListFromCache). False when a consistent read could not be proven fresh in time.
   */
  private async freshFor(read: CacheableRead): Promise<boolean> {
    switch (read.mode) {
      case 'any':
        return true;
      case 'notOlderThan':
        await this.waitFresh(read.resourceVersion);
        return true;
      case 'consistent': {
        const current = await this.storage.currentRevision();
        return this.waitFresh(current).then(
          () => true,
          () => false,
        );
      }
    }
  }

  private progressRequestsSupported(): Promise<boolean> {
    return this.storage.supportsProgressRequests?.() ?? Promise.resolve(true);
  }

  // --- LIST ---------------------------------------------------------------------------------

  /** Serves a LIST with kube-apiserver's resourceVersion semantics (see server.md §1). */
  async list(request: CacheListRequest): Promise<CacheListResult> {
    const started = this.now();
    const semantics = classifyList(request);
    const predicate = request.predicate ?? SelectionPredicate.everything;
    const scopePrefix = this.keys.scope(request.namespace);
    const limit = request.limit && request.limit > 0 ? request.limit : undefined;
    const fromStorage = async (reason: ListDelegationReason): Promise<CacheListResult> => {
      this.metrics.listDelegated?.(this.resource, reason);
      const page = await listFromStorage(this.storage, this.definition, {
        scopePrefix,
        predicate,
        limit,
        read: semantics,
      });
      this.metrics.list?.(this.resource, 'storage', this.now() - started);
      return pageResult(page);
    };
    const fromCache = (page: ServedPage): CacheListResult => {
      this.throwIfCorrupt(scopePrefix);
      this.metrics.cacheList?.(this.resource, page.index, page.fetched, page.result.items.length);
      this.metrics.list?.(this.resource, 'cache', this.now() - started);
      return page.result;
    };
    const startKey = isContinuedList(semantics)
      ? scopePrefix + semantics.continueFrom.start
      : undefined;

    if (!this.ready) {
      // While re-initializing, reads at a revision and cheap paginated unfiltered lists may go to
      // storage (#65954, KEP-4568); anything else waits for the cache.
      if (semantics.mode === 'exact' || isContinuedList(semantics)) return fromStorage('not_ready');
      if (predicate.empty && limit !== undefined) return fromStorage('not_ready');
      throw notReady();
    }
    if (semantics.mode === 'exact') {
      // Exact reads and continuations at a revision: from the store as it was then, while the
      // window covers it (cacher.go shouldDelegateExactRV, watch_cache.go waitAndListExactRV).
      const at = semantics.resourceVersion;
      const miss = this.snapshotMiss(at);
      if (miss) return fromStorage(miss);
      const snapshot = this.cache.snapshotAt(at)!;
      return fromCache(cachePage(snapshot, at, scopePrefix, predicate, limit, startKey));
    }
    // delegator.go: a consistent read is served from the cache only when storage answers
    // progress requests reliably (ConsistentListFromCache + RequestWatchProgress).
    if (semantics.mode === 'consistent' && !(await this.progressRequestsSupported()))
      return fromStorage('consistent_read_unsupported');
    if (!(await this.freshFor(semantics))) {
      this.logger.info('consistent read fell back to storage', { resource: this.resource });
      return fromStorage('consistent_read_timeout');
    }
    // Any freshness ignores the limit: one page with everything.
    const pageLimit = semantics.mode === 'any' ? undefined : limit;
    const revision = this.cache.revision;
    // A continuation carries no selector index (watch_cache.go waitAndListConsistent).
    const indexed =
      startKey === undefined
        ? indexedCandidates(this.cache.store, this.definition, scopePrefix, predicate)
        : undefined;
    return fromCache(
      cachePage(this.cache.store, revision, scopePrefix, predicate, pageLimit, startKey, indexed),
    );
  }

  /** A LIST over a key whose value does not decode fails naming it (kube 1.32 GetList). */
  private throwIfCorrupt(scopePrefix: string): void {
    if (this.corrupt.size === 0) return;
    const within = [...this.corrupt.values()].filter((err) => err.key.startsWith(scopePrefix));
    if (within.length > 0)
      throw StorageError.corruptList(
        scopePrefix,
        within.sort((a, b) => (a.key < b.key ? -1 : 1)),
      );
  }

  /** Why the cache cannot serve a read at exactly `revision`, or undefined when it can. */
  private snapshotMiss(revision: number): ListDelegationReason | undefined {
    // What storage compacted reads as 410 there, whatever the window still holds.
    if (revision < this.storage.compactRevision()) return 'revision_compacted';
    if (revision > this.cache.revision) return 'revision_ahead_of_cache';
    return this.cache.snapshotAt(revision) ? undefined : 'revision_not_in_cache';
  }

  // --- GET ----------------------------------------------------------------------------------

  /**
   * GET one object as delegator.go Get: without a resourceVersion, or while the cache is not
   * initialized (KEP-4568), from storage; "0" from the cache as it is; N from the cache once it
   * has seen N (else 504).
   */
  async get(request: CacheGetRequest): Promise<KubeObject | undefined> {
    const read = classifyGet(request);
    const key = this.keys.object(request.namespace, request.name);
    if (read.mode === 'consistent' || !this.ready) return this.storage.get(key);
    await this.freshFor(read);
    const corrupt = this.corrupt.get(key);
    if (corrupt) throw corrupt;
    return this.cache.store.get(key)?.object;
  }

  cachedObject(key: string): KubeObject | undefined {
    return this.ready ? this.cache.store.get(key)?.object : undefined;
  }

  // --- WATCH --------------------------------------------------------------------------------

  /**
   * Opens a watch. Errors before the stream starts (not ready) are thrown; errors after it
   * (a resourceVersion that fell out of the window) are one ERROR event, then the end.
   */
  async watch(request: CacheWatchRequest): Promise<CacheWatcher> {
    if (!this.ready) throw notReady();
    const semantics = classifyWatch(request);
    let startRevision: number | undefined;
    if (semantics.initialEvents) {
      // A consistent read the cache cannot prove in time still starts from what it has.
      await this.freshFor(semantics.read);
    } else if (semantics.from.mode === 'after') {
      startRevision = semantics.from.resourceVersion;
    } else if (semantics.from.mode === 'consistent') {
      // cacher.go getWatchCacheResourceVersion: changes after storage's current revision.
      startRevision = await this.storage.currentRevision();
    }
    if (!this.ready) throw notReady();

    const now = this.now();
    const revision = this.cache.revision;
    const watcher = newCacheWatcher(this.keys, request, startRevision ?? revision, {
      capacity: this.opts.watcherCapacity,
      blockedBudgetMs: this.opts.blockedBudgetMs,
      now: this.now,
      onEnd: this.endWatcher,
    });
    const { keyPrefix, exactKey, predicate } = watcher.options;
    if (semantics.initialEvents) {
      const store = this.cache.store;
      const objects = initialObjects(store, this.definition, keyPrefix, exactKey, predicate);
      watcher.seed(
        initialEvents(this.definition, objects, revision, semantics.initialEventsEndBookmark),
      );
    } else {
      const backlog = this.cache.window.since(watcher.options.startRevision);
      if (!backlog) {
        const oldest = this.cache.window.oldestResumableRevision();
        const from = watcher.options.startRevision;
        watcher.fail(ApiError.expired(`too old resource version: ${from} (${oldest})`));
        return watcher;
      }
      for (const event of backlog) watcher.dispatch(event);
    }
    this.dispatcher.add(watcher, this.scopeOf(keyPrefix, exactKey, predicate));
    this.bookmarks.schedule(watcher, now);
    this.metrics.watchers?.(this.resource, this.dispatcher.size);
    return watcher;
  }

  private scopeOf(
    scopePrefix: string,
    exactKey: string | undefined,
    predicate: SelectionPredicate,
  ): WatcherScope {
    if (exactKey !== undefined) return { kind: 'key', key: exactKey };
    const pinned = pinnedIndex(this.definition, predicate);
    return pinned ? { kind: 'index', ...pinned } : { kind: 'prefix', prefix: scopePrefix };
  }

  private onWatcherEnd(watcher: CacheWatcher, reason: WatcherEndReason): void {
    this.dispatcher.remove(watcher);
    this.bookmarks.delete(watcher);
    if (reason === 'slow') {
      this.terminations++;
      this.logger.warn('terminated slow watcher', {
        resource: this.resource,
        buffered: watcher.buffered,
        revision: watcher.lastRevision,
      });
    }
    this.metrics.watcherEnded?.(this.resource, reason);
    this.metrics.watchers?.(this.resource, this.dispatcher.size);
  }

  private endAll(reason: WatcherEndReason): void {
    for (const watcher of [...this.dispatcher.watchers()]) watcher.end(reason);
  }

  // --- bookmarks and deadlines --------------------------------------------------------------

  /** Once a second: deadlines, due bookmarks, blocked watchers, window metrics. */
  private tick(): void {
    const now = this.now();
    for (const watcher of [...this.dispatcher.watchers()]) {
      const deadline = watcher.options.deadline;
      if (deadline !== undefined && now >= deadline) {
        watcher.end('deadline');
        continue;
      }
      watcher.checkBlocked();
      if (this.bookmarks.isDue(watcher, now)) {
        watcher.bookmark(this.cache.revision, (rev) => bookmarkEvent(this.definition, rev));
        this.bookmarks.schedule(watcher, now);
      }
    }
    this.metrics.window?.(
      this.resource,
      this.cache.window.size,
      this.cache.window.capacity,
      this.cache.window.age(now),
    );
    this.metrics.snapshots?.(
      this.resource,
      this.cache.window.snapshotCount,
      this.cache.snapshotBytes(),
    );
  }
}
