import { ApiError, type ResourceDefinition } from '@listwatch/api';
import { bookmarkEvent } from './bookmarks.js';
import { ResourceKeys } from './resource-keys.js';
import { isStorageError } from '../storage-error.js';
import type { Storage, StorageChange } from '../storage.js';
import { objectFields, objectLabels } from './cache-store.js';
import type { CacheListRequest, CacheListResult, CacheWatchRequest } from './cacher.js';
import { CacheWatcher, ownEvent, type CacheWatchEvent } from './cache-watcher.js';
import type { WatchCacheEvent } from './event-window.js';
import { SelectionPredicate } from './predicate.js';
import { isExactRead, listFromStorage, pageResult } from './storage-lister.js';
import { tooLargeResourceVersion } from './watch-cache.js';
import type { ListWatchSource } from './list-watch-source.js';

/**
 * A resource with the watch cache disabled (`--default-watch-cache-size 0`): every LIST reads
 * storage and every WATCH opens its own storage watch, as kube-apiserver does without a cacher.
 * Costly at scale; there for memory-bounded deployments and to compare against.
 */
export class UncachedSource implements ListWatchSource {
  readonly keys: ResourceKeys;
  private readonly open = new Set<CacheWatcher>();

  constructor(
    private readonly storage: Storage,
    readonly definition: ResourceDefinition,
    private readonly options: {
      watcherCapacity?: number;
      blockedBudgetMs?: number;
      now?: () => number;
    } = {},
  ) {
    this.keys = new ResourceKeys(storage.prefix, definition);
  }

  readonly isReady = true;

  start(): Promise<void> {
    return Promise.resolve();
  }

  stop(): Promise<void> {
    for (const w of [...this.open]) w.end('shutdown');
    return Promise.resolve();
  }

  async list(request: CacheListRequest): Promise<CacheListResult> {
    const rv = request.resourceVersion ?? '';
    const limit = request.limit && request.limit > 0 ? request.limit : undefined;
    const exact = isExactRead(request);
    const page = await listFromStorage(this.storage, this.definition, {
      scopePrefix: this.keys.scope(request.namespace),
      predicate: request.predicate ?? SelectionPredicate.everything,
      limit: rv === '0' && !request.continue ? undefined : limit,
      ...(request.continue ? { continueToken: request.continue } : {}),
      ...(exact && !request.continue ? { revision: Number(rv) } : {}),
    });
    // NotOlderThan from storage: the latest read must be at least that new (etcd3 store.GetList).
    if (!exact && rv !== '' && rv !== '0' && page.revision < Number(rv))
      throw tooLargeResourceVersion(Number(rv), page.revision);
    return pageResult(page);
  }

  async watch(request: CacheWatchRequest): Promise<CacheWatcher> {
    const predicate = request.predicate ?? SelectionPredicate.everything;
    const rv = request.resourceVersion ?? '';
    const initial = request.sendInitialEvents ?? (rv === '' || rv === '0');
    const scopePrefix = this.keys.scope(request.namespace);
    const exactKey =
      request.name !== undefined ? this.keys.object(request.namespace, request.name) : undefined;
    const now = this.options.now ?? Date.now;
    let startRevision: number;
    const seed: CacheWatchEvent[] = [];
    if (initial) {
      const page = await listFromStorage(this.storage, this.definition, {
        scopePrefix,
        predicate,
        limit: undefined,
      });
      startRevision = page.revision;
      for (const object of page.items) {
        if (
          exactKey !== undefined &&
          this.keys.object(object.metadata.namespace, object.metadata.name ?? '') !== exactKey
        )
          continue;
        seed.push(ownEvent({ type: 'ADDED', object }, Number(object.metadata.resourceVersion)));
      }
      if (request.sendInitialEvents && request.allowWatchBookmarks) {
        seed.push(ownEvent(bookmarkEvent(this.definition, startRevision, true), startRevision));
      }
    } else {
      startRevision = rv === '' ? await this.storage.currentRevision() : Number(rv);
    }
    const watcher = new CacheWatcher({
      predicate,
      keyPrefix: scopePrefix,
      ...(exactKey !== undefined ? { exactKey } : {}),
      startRevision,
      allowBookmarks: request.allowWatchBookmarks ?? false,
      deadline: request.timeoutMs !== undefined ? now() + request.timeoutMs : undefined,
      capacity: this.options.watcherCapacity ?? 100,
      blockedBudgetMs: this.options.blockedBudgetMs ?? 100,
      now,
      onEnd: (w) => {
        this.open.delete(w);
        source.close();
        if (timer) clearTimeout(timer);
      },
    });
    watcher.seed(seed);
    watcher.lastRevision = startRevision;
    this.open.add(watcher);
    const source = this.storage.watch(scopePrefix, {
      fromRevision: startRevision,
      progressNotify: watcher.options.allowBookmarks,
    });
    const timer =
      request.timeoutMs !== undefined
        ? setTimeout(() => watcher.end('deadline'), request.timeoutMs)
        : undefined;
    void (async () => {
      try {
        for await (const event of source) {
          if (event.type === 'PROGRESS')
            watcher.bookmark(event.revision, (r) => bookmarkEvent(this.definition, r));
          else watcher.dispatch(this.toCacheEvent(event, now()));
        }
        watcher.end('reinitializing');
      } catch (err) {
        watcher.fail(
          isStorageError(err, 'Expired')
            ? ApiError.expired(err.message)
            : err instanceof ApiError
              ? err
              : ApiError.internalError(err),
        );
      }
    })();
    return watcher;
  }

  private toCacheEvent(change: StorageChange, now: number): WatchCacheEvent {
    const prev = change.prevObject;
    const state = change.type === 'DELETED' && prev ? prev : change.object;
    return {
      type: change.type,
      key: change.key,
      object: change.object,
      objectLabels: objectLabels(state),
      objectFields: objectFields(this.definition, state),
      prevObject: prev,
      prevObjectLabels: prev ? objectLabels(prev) : undefined,
      prevObjectFields: prev ? objectFields(this.definition, prev) : undefined,
      revision: change.revision,
      recordTime: now,
    };
  }
}
