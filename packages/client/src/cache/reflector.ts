import {
  ApiError,
  errorField,
  errorFromStatus,
  INITIAL_EVENTS_END_ANNOTATION,
  toApiError,
  type KubeObject,
  type Logger,
  type WatchEvent,
} from '@listwatch/api';
import type { KubernetesObject } from '../runtime/kubernetes-object.js';
import { Backoff, type BackoffOptions } from '../util/backoff.js';
import {
  ConnectionError,
  isConnectionRefused,
  isExpired,
  isTooLargeResourceVersion,
  isTooManyRequests,
} from '../rest/errors.js';
import { realClock, type Clock } from '../util/clock.js';
import { defaultClientLogger } from '../util/default-logger.js';
import { DEFAULT_PAGE_SIZE, ListPager } from '../pager/list-pager.js';
import type { ListParams } from '../rest/list-params.js';
import { sleep } from '../util/sleep.js';
import type { WatchStream } from '../rest/watch-stream.js';
import { deletionHandlingMetaNamespaceKeyFunc } from './key-func.js';
import type { ListerWatcher } from './lister-watcher.js';
import { newStore, type ReflectorStore } from './store.js';
import { ObserverCalls, type ReflectorObserver } from './reflector-observer.js';

export interface ReflectorOptions<T extends KubernetesObject = KubeObject> {
  /** For logs, e.g. `pods` or `deployments.apps in ns/default`. */
  name?: string;
  listerWatcher: ListerWatcher<T>;
  store: ReflectorStore<T>;
  /** How often store.resync() is considered (0: never). */
  resyncPeriodMs?: number;
  /** Asked before each periodic resync; undefined means always yes. */
  shouldResync?: () => boolean;
  /**
   * LIST page size. Unset: 500 for RV "" and "0", none for RV "N" so the watch cache can serve
   * the relist (client-go WatchListPageSize).
   */
  pageSize?: number;
  /** Stream the initial state with a watch-list (KEP-3157); falls back to LIST if rejected. */
  useWatchList?: boolean;
  /** Watches last random [min, 2·min) (client-go minWatchTimeout: 5 min). */
  minWatchTimeoutMs?: number;
  backoff?: BackoffOptions;
  clock?: Clock;
  random?: () => number;
  logger?: Logger;
  /**
   * Called whenever ListAndWatch ends with an error, before the backoff (client-go
   * WatchErrorHandler), and also when a watch is refused (connection refused, 429) and retried.
   */
  watchErrorHandler?: (err: ApiError) => void;
  /** Called when a watch is established (after the initial list, and on every re-watch). */
  onWatchStart?: (resourceVersion: string) => void;
  /**
   * Where an earlier reflector into the same cache left off: the first list is at it (cache-served,
   * NotOlderThan) instead of at "0", which may be older than what the cache already holds.
   */
  lastSyncResourceVersion?: string;
  /** Sees its phases, each watch event, 410s and resourceVersions (for a UI; see the type). */
  observer?: ReflectorObserver<T> | undefined;
}

/** A watch that ended in under this long with no event is an error (client-go watchHandler). */
const SHORT_WATCH_MS = 1000;

/**
 * client-go's Reflector (tools/cache/reflector.go): keeps `store` equal to the server's
 * collection by LISTing once and then WATCHing from the list's resourceVersion, forever.
 *
 * - LIST is paginated (500), at RV "0" the first time — any cached state will do and the watch
 *   cache can serve it — then at the last synced RV (NotOlderThan, also cache-served). Only when
 *   that RV is gone (410) or unknown ("too large") does it fall back to RV "", a consistent read.
 * - WATCH asks for bookmarks and a random timeoutSeconds in [5, 10) min so a fleet of clients
 *   does not reconnect in lockstep. A clean end re-watches from the last RV without relisting;
 *   "connection refused" and 429 back off and re-watch; anything else backs off and relists.
 *   A watch that ends in under a second with no event counts as an error (a server rejecting
 *   watches must not be hammered).
 * - Every event, bookmarks included, moves the last RV forward.
 * - Backoff: 800 ms doubling to 30 s, full jitter, reset after 2 quiet minutes.
 */
export class Reflector<T extends KubernetesObject = KubeObject> {
  readonly name: string;
  private readonly lw: ListerWatcher<T>;
  private readonly store: ReflectorStore<T>;
  private readonly resyncPeriodMs: number;
  private readonly shouldResync: (() => boolean) | undefined;
  private readonly pageSize: number | undefined;
  private readonly useWatchList: boolean;
  private readonly minWatchTimeoutMs: number;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly logger: Logger;
  private readonly backoff: Backoff;
  private readonly watchErrorHandler: ((err: ApiError) => void) | undefined;
  private lastSyncRV = '';
  private readonly iterators = new WeakMap<WatchStream<T>, AsyncIterator<WatchEvent<T>>>();
  /** The last list or watch at lastSyncRV failed with 410 or "too large": relist at "". */
  private lastSyncRVUnavailable = false;
  /** The resourceVersion the last watch ended with 410 at. */
  private expiredAt: string | undefined;
  /** The server paginated an RV "0" list: it has no watch cache, keep paginating. */
  private paginatedResult = false;
  /** The server rejected a watch-list once; stop asking. */
  private watchListRejected = false;
  private running: Promise<void> | undefined;
  private readonly observer: ObserverCalls<T>;
  /** The store was replaced once: a LIST or watch-list now is a relist. */
  private synced = false;

  constructor(options: ReflectorOptions<T>) {
    this.name = options.name ?? 'reflector';
    this.lw = options.listerWatcher;
    this.store = options.store;
    this.resyncPeriodMs = options.resyncPeriodMs ?? 0;
    this.shouldResync = options.shouldResync;
    this.pageSize = options.pageSize;
    this.useWatchList = options.useWatchList ?? false;
    this.minWatchTimeoutMs = options.minWatchTimeoutMs ?? 5 * 60_000;
    this.clock = options.clock ?? realClock;
    this.random = options.random ?? Math.random;
    this.logger = options.logger ?? defaultClientLogger;
    this.backoff = new Backoff({ ...options.backoff, clock: this.clock, random: this.random });
    this.watchErrorHandler = options.watchErrorHandler;
    this.lastSyncRV = options.lastSyncResourceVersion ?? '';
    this.observer = new ObserverCalls(options, this.logger, this);
  }

  /** The resourceVersion of the last list or event applied to the store. */
  lastSyncResourceVersion(): string {
    return this.lastSyncRV;
  }

  /** Replaces the observer given as an option (undefined: none). */
  setObserver(observer: ReflectorObserver<T> | undefined): void {
    this.observer.observer = observer;
  }

  /**
   * ListAndWatch until `signal` aborts, backing off between rounds (client-go Reflector.Run).
   * Never rejects: errors go to the watchErrorHandler and the log.
   */
  run(signal: AbortSignal): Promise<void> {
    this.running ??= this.loop(signal);
    return this.running;
  }

  private async loop(signal: AbortSignal): Promise<void> {
    this.logger.debug('starting reflector', {
      reflector: this.name,
      resyncPeriodMs: this.resyncPeriodMs,
    });
    while (!signal.aborted) {
      try {
        await this.listAndWatch(signal);
      } catch (err) {
        if (signal.aborted) break;
        this.handleError(toApiError(err));
      }
      if (signal.aborted) break;
      await this.backoffWait(signal);
    }
    this.observer.phase('stopped');
    this.logger.debug('stopped reflector', { reflector: this.name });
  }

  private handleError(err: ApiError): void {
    if (isExpired(err)) {
      this.logger.info('watch closed', { reflector: this.name, error: err.message });
    } else {
      this.logger.warn('list and watch failed', {
        reflector: this.name,
        code: err.code,
        error: err.message,
      });
    }
    this.notifyError(err);
  }

  private setLastSyncRV(rv: string): void {
    this.lastSyncRV = rv;
    this.observer.resourceVersion(rv);
  }

  private async backoffWait(signal: AbortSignal): Promise<void> {
    this.observer.phase('backoff');
    await this.backoff.wait(signal);
  }

  private notifyError(err: ApiError): void {
    try {
      this.watchErrorHandler?.(err);
    } catch (handlerErr) {
      this.logger.error('watch error handler threw', {
        reflector: this.name,
        error: errorField(handlerErr),
      });
    }
  }

  /** One round: (watch-)list, then watch until an error asks for a relist. */
  async listAndWatch(signal: AbortSignal): Promise<void> {
    let stream: WatchStream<T> | undefined;
    let fallbackToList = !this.useWatchList || this.watchListRejected;
    if (!fallbackToList) {
      try {
        stream = await this.watchList(signal);
        if (!stream) return;
      } catch (err) {
        const e = toApiError(err);
        this.logger.warn('watch-list failed, falling back to LIST and WATCH', {
          reflector: this.name,
          code: e.code,
          error: e.message,
        });
        // A server that does not know the feature answers 4xx every time: stop trying.
        if (e.code >= 400 && e.code < 500 && e.code !== 429 && e.code !== 410)
          this.watchListRejected = true;
        fallbackToList = true;
      }
    }
    if (fallbackToList) {
      await this.list(signal);
      if (signal.aborted) return;
    }
    const resync = new AbortController();
    const stopResync = (): void => resync.abort();
    signal.addEventListener('abort', stopResync, { once: true });
    void this.resyncLoop(resync.signal);
    try {
      await this.watch(stream, signal);
    } finally {
      resync.abort();
      signal.removeEventListener('abort', stopResync);
    }
  }

  private async resyncLoop(signal: AbortSignal): Promise<void> {
    if (this.resyncPeriodMs <= 0 || !this.store.resync) return;
    while (await sleep(this.clock, this.resyncPeriodMs, signal)) {
      if (this.shouldResync && !this.shouldResync()) continue;
      this.logger.debug('forcing resync', { reflector: this.name });
      try {
        this.store.resync();
      } catch (err) {
        this.logger.error('resync failed', { reflector: this.name, error: errorField(err) });
        return;
      }
    }
  }

  /** RV for a relist: "0" the first time, "" after 410, else the last synced one. */
  private relistResourceVersion(): string {
    if (this.lastSyncRVUnavailable) return '';
    return this.lastSyncRV === '' ? '0' : this.lastSyncRV;
  }

  /** RV for a watch-list: "" after 410 (a consistent snapshot), else the last synced one. */
  private rewatchResourceVersion(): string {
    return this.lastSyncRVUnavailable ? '' : this.lastSyncRV;
  }

  private watchTimeoutSeconds(): number {
    return Math.floor((this.minWatchTimeoutMs * (this.random() + 1)) / 1000);
  }

  private async list(signal: AbortSignal): Promise<void> {
    this.observer.phase(this.synced ? 'relisting' : 'listing');
    const started = this.clock.now();
    const resourceVersion = this.relistResourceVersion();
    const pageSize =
      this.pageSize ??
      (this.paginatedResult || resourceVersion === '' || resourceVersion === '0'
        ? DEFAULT_PAGE_SIZE
        : 0);
    const pager = new ListPager<T>((params, s) => this.lw.list(params, s), { pageSize });
    let result: Awaited<ReturnType<ListPager<T>['list']>>;
    try {
      try {
        result = await pager.list({ resourceVersion }, signal);
      } catch (err) {
        if (!isExpired(err) && !isTooLargeResourceVersion(err)) throw err;
        if (isExpired(err)) this.observer.expired(err);
        // The RV we listed at is gone or not reached yet: a consistent read makes progress.
        this.lastSyncRVUnavailable = true;
        result = await pager.list({ resourceVersion: this.relistResourceVersion() }, signal);
      }
    } catch (err) {
      if (signal.aborted) return;
      // Every failure, a 404 included, is retried after a backoff; the store keeps what it has
      // (client-go: a resource that is not served yet, such as a CRD being installed, syncs
      // once it is).
      const e = toApiError(err);
      // The warning is handleError's, once per failure.
      this.logger.info('failed to list', {
        reflector: this.name,
        resourceVersion,
        code: e.code,
        error: e.message,
      });
      throw e;
    }
    if (resourceVersion === '0' && result.paginated) this.paginatedResult = true;
    const requested = this.lastSyncRVUnavailable ? '' : resourceVersion;
    this.lastSyncRVUnavailable = false;
    const rv = result.list.metadata.resourceVersion ?? '';
    this.store.replace(result.list.items, rv);
    this.synced = true;
    this.setLastSyncRV(rv);
    this.logger.info('listed', {
      reflector: this.name,
      requestedResourceVersion: requested,
      items: result.list.items.length,
      resourceVersion: rv,
      durationMs: Math.round(this.clock.now() - started),
    });
  }

  /** Watch, re-watch on clean ends and retryable errors; return to relist. */
  private async watch(initial: WatchStream<T> | undefined, signal: AbortSignal): Promise<void> {
    let stream = initial;
    // The first watch after a LIST is part of the list's phase; later ones resume.
    let resume = false;
    for (;;) {
      if (signal.aborted) {
        stream?.close();
        return;
      }
      const start = this.clock.now();
      if (!stream) {
        if (resume) this.observer.phase('resuming');
        resume = true;
        try {
          stream = await this.lw.watch(
            {
              resourceVersion: this.lastSyncRV,
              // Ends hanging watches and spreads reconnects over time.
              timeoutSeconds: this.watchTimeoutSeconds(),
              allowWatchBookmarks: true,
            },
            signal,
          );
        } catch (err) {
          if (signal.aborted) return;
          if (isConnectionRefused(err) || isTooManyRequests(err)) {
            this.logger.warn('watch refused, backing off', {
              reflector: this.name,
              error: errorField(err),
            });
            // Unlike client-go, the handler hears of retried failures too: "the apiserver is
            // unreachable" is worth surfacing even though nothing needs relisting.
            this.notifyError(toApiError(err));
            await this.backoffWait(signal);
            continue;
          }
          if (isExpired(err)) this.noteExpired(err);
          throw err;
        }
        this.observer.watching();
      } else resume = true;
      let failure: ApiError | undefined;
      try {
        await this.handleWatch(
          start,
          stream,
          this.store,
          (rv) => this.setLastSyncRV(rv),
          false,
          signal,
        );
      } catch (err) {
        failure = toApiError(err);
      } finally {
        stream.close();
        stream = undefined;
      }
      if (signal.aborted) return;
      if (!failure) continue;
      if (isExpired(failure)) {
        // A LIST at the last RV is NotOlderThan and cache-served: relist there, not at ""
        // (kubernetes#86483: everyone relisting from etcd at once) — see noteExpired.
        this.noteExpired(failure);
        this.logger.info('watch expired, relisting', {
          reflector: this.name,
          resourceVersion: this.lastSyncRV,
          error: failure.message,
        });
        return;
      }
      if (isTooManyRequests(failure)) {
        this.logger.info('watch returned 429, backing off', { reflector: this.name });
        await this.backoffWait(signal);
        continue;
      }
      this.logger.warn('watch ended with an error', {
        reflector: this.name,
        code: failure.code,
        error: failure.message,
      });
      throw failure;
    }
  }

  /**
   * A watch from lastSyncRV expired. The relist goes to lastSyncRV, but a paginated LIST at RV N
   * is an Exact read, answered at N itself, from which the watch expires again: a second expiry
   * at the same RV relists at "" instead of looping (client-go loops until etcd compacts N).
   */
  private noteExpired(err: unknown): void {
    this.observer.expired(err);
    if (this.expiredAt === this.lastSyncRV) this.lastSyncRVUnavailable = true;
    this.expiredAt = this.lastSyncRV;
  }

  /**
   * Streams the initial state (sendInitialEvents) into a temporary store until the bookmark
   * that ends it, then replaces the real store at once and returns the still-open watch.
   * Resolves undefined when stopped.
   */
  private async watchList(signal: AbortSignal): Promise<WatchStream<T> | undefined> {
    for (;;) {
      if (signal.aborted) return undefined;
      this.observer.phase(this.synced ? 'relisting' : 'watch-list');
      let resourceVersion = '';
      const temporary = newStore<T>(deletionHandlingMetaNamespaceKeyFunc);
      const params: ListParams = {
        resourceVersion: this.rewatchResourceVersion(),
        allowWatchBookmarks: true,
        sendInitialEvents: true,
        resourceVersionMatch: 'NotOlderThan',
        timeoutSeconds: this.watchTimeoutSeconds(),
      };
      const start = this.clock.now();
      let stream: WatchStream<T>;
      try {
        stream = await this.lw.watch(params, signal);
      } catch (err) {
        if (signal.aborted) return undefined;
        if (await this.retriableWatchListError(err, signal)) continue;
        throw err;
      }
      let outcome: { initialEventsEnd: boolean };
      try {
        outcome = await this.handleWatch(
          start,
          stream,
          temporary,
          (rv) => (resourceVersion = rv),
          true,
          signal,
        );
      } catch (err) {
        stream.close();
        if (signal.aborted) return undefined;
        if (await this.retriableWatchListError(err, signal)) continue;
        throw err;
      }
      if (!outcome.initialEventsEnd) {
        // Ended before the initial state was complete: start over with a clean slate.
        stream.close();
        continue;
      }
      this.lastSyncRVUnavailable = false;
      this.store.replace(temporary.list(), resourceVersion);
      this.synced = true;
      this.setLastSyncRV(resourceVersion);
      this.logger.info('watch-list synced', {
        reflector: this.name,
        items: temporary.list().length,
        resourceVersion,
        durationMs: Math.round(this.clock.now() - start),
      });
      this.observer.watching();
      return stream;
    }
  }

  private async retriableWatchListError(err: unknown, signal: AbortSignal): Promise<boolean> {
    if (isConnectionRefused(err) || isTooManyRequests(err)) {
      this.logger.info('watch-list refused, backing off', {
        reflector: this.name,
        error: errorField(err),
      });
      await this.backoffWait(signal);
      return true;
    }
    if (isExpired(err)) this.observer.expired(err);
    if (isExpired(err) || isTooLargeResourceVersion(err)) {
      this.lastSyncRVUnavailable = true;
      return true;
    }
    return false;
  }

  /** One iterator per stream, kept across the watch-list phase and the watch that follows. */
  private iteratorOf(stream: WatchStream<T>): AsyncIterator<WatchEvent<T>> {
    let it = this.iterators.get(stream);
    if (!it) {
      it = stream[Symbol.asyncIterator]();
      this.iterators.set(stream, it);
    }
    return it;
  }

  /**
   * Applies one watch's events to `store` (client-go watchHandler). Returns when the stream
   * ends (a broken connection counts as an end: the caller re-watches from the last RV), or —
   * with `exitOnInitialEventsEnd` — at the bookmark that ends a watch-list's initial events.
   */
  private async handleWatch(
    start: number,
    stream: WatchStream<T>,
    store: ReflectorStore<T>,
    setResourceVersion: (rv: string) => void,
    exitOnInitialEventsEnd: boolean,
    signal: AbortSignal,
  ): Promise<{ initialEventsEnd: boolean }> {
    let count = 0;
    const events = this.iteratorOf(stream);
    // Stopping must end the watch even if the ListerWatcher ignores the signal.
    const onAbort = (): void => stream.close();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      for (;;) {
        // next() by hand, not for-await: leaving a for-await loop would close the stream, and
        // a watch-list's stream goes on after its initial-events-end bookmark.
        const next = await events.next();
        if (next.done) break;
        if (signal.aborted) return { initialEventsEnd: false };
        const raw = next.value;
        if (raw.type === 'ERROR') throw errorFromStatus(raw.object);
        const obj = raw.object;
        const meta = (obj as { metadata?: unknown } | null)?.metadata;
        if (typeof meta !== 'object' || meta === null) {
          this.logger.error('unable to understand watch event', {
            reflector: this.name,
            type: raw.type,
          });
          continue;
        }
        const rv = obj.metadata?.resourceVersion ?? '';
        const initialEventsEnd =
          raw.type === 'BOOKMARK' &&
          obj.metadata?.annotations?.[INITIAL_EVENTS_END_ANNOTATION] === 'true';
        if (this.observer.wantsEvents)
          this.observer.event(raw, { initialEvents: exitOnInitialEventsEnd, initialEventsEnd });
        try {
          switch (raw.type) {
            case 'ADDED':
              store.add(obj);
              break;
            case 'MODIFIED':
              store.update(obj);
              break;
            case 'DELETED':
              store.delete(obj);
              break;
          }
        } catch (err) {
          this.logger.error('unable to apply watch event to the store', {
            reflector: this.name,
            type: raw.type,
            resourceVersion: rv,
            error: errorField(err),
          });
        }
        setResourceVersion(rv);
        count++;
        if (exitOnInitialEventsEnd && initialEventsEnd) return { initialEventsEnd: true };
      }
    } catch (err) {
      if (signal.aborted) return { initialEventsEnd: false };
      if (!(err instanceof ConnectionError)) throw err;
      // client-go's StreamWatcher closes the result channel on a broken stream: a plain end.
      this.logger.info('watch stream broke', {
        reflector: this.name,
        error: err.message,
        events: count,
      });
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
    if (signal.aborted) return { initialEventsEnd: false };
    if (this.clock.now() - start < SHORT_WATCH_MS && count === 0) {
      throw new ApiError({
        code: 500,
        reason: 'InternalError',
        message: `very short watch: ${this.name}: Unexpected watch close - watch lasted less than a second and no items received`,
      });
    }
    this.logger.debug('watch closed', { reflector: this.name, events: count });
    return { initialEventsEnd: false };
  }
}
