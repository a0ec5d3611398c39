import {
  ApiError,
  classifyGet,
  classifyList,
  classifyWatch,
  type KubeObject,
  type ResourceDefinition,
} from '@listwatch/api';
import { bookmarkEvent } from './bookmarks.js';
import { ResourceKeys } from './resource-keys.js';
import { isStorageError } from '../storage-error.js';
import type { Storage, StorageChange } from '../storage.js';
import { objectFields, objectLabels } from './cache-store.js';
import { initialEvents, newCacheWatcher, type CacheWatcher } from './cache-watcher.js';
import type { WatchCacheEvent } from './event-window.js';
import type {
  CacheGetRequest,
  CacheListRequest,
  CacheListResult,
  CacheWatchRequest,
  ListWatchSource,
} from './list-watch-source.js';
import { SelectionPredicate } from './predicate.js';
import { listFromStorage, pageResult, validateMinimumResourceVersion } from './storage-lister.js';

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

  cachedObject(): undefined {
    return undefined;
  }

  /** etcd3 store.Get: the object at the latest revision, which "N" must not be older than. */
  async get(request: CacheGetRequest): Promise<KubeObject | undefined> {
    const read = classifyGet(request);
    // Storage's revision before the read: the read is at least as new.
    if (read.mode === 'notOlderThan')
      validateMinimumResourceVersion(read, await this.storage.currentRevision());
    return this.storage.get(this.keys.object(request.namespace, request.name));
  }

  async list(request: CacheListRequest): Promise<CacheListResult> {
    const semantics = classifyList(request);
    const limit = request.limit && request.limit > 0 ? request.limit : undefined;
    const page = await listFromStorage(this.storage, this.definition, {
      scopePrefix: this.keys.scope(request.namespace),
      predicate: request.predicate ?? SelectionPredicate.everything,
      // Any freshness ignores the limit, as the cache does.
      limit: semantics.mode === 'any' ? undefined : limit,
      read: semantics,
    });
    return pageResult(page);
  }

  async watch(request: CacheWatchRequest): Promise<CacheWatcher> {
    const semantics = classifyWatch(request);
    let startRevision: number;
    let initial: KubeObject[] = [];
    if (semantics.initialEvents) {
      const page = await listFromStorage(this.storage, this.definition, {
        scopePrefix: this.keys.scope(request.namespace),
        predicate: request.predicate ?? SelectionPredicate.everything,
        limit: undefined,
        read: semantics.read,
      });
      startRevision = page.revision;
      initial = page.items;
    } else {
      // Consistent and any: storage's current revision is the freshest either may see.
      startRevision =
        semantics.from.mode === 'after'
          ? semantics.from.resourceVersion
          : await this.storage.currentRevision();
    }
    const now = this.options.now ?? Date.now;
    const watcher = newCacheWatcher(this.keys, request, startRevision, {
      capacity: this.options.watcherCapacity ?? 100,
      blockedBudgetMs: this.options.blockedBudgetMs ?? 100,
      now,
      onEnd: (w) => {
        this.open.delete(w);
        source.close();
        if (timer) clearTimeout(timer);
      },
    });
    if (semantics.initialEvents) {
      const inScope = initial.filter((o) =>
        watcher.inScope(this.keys.object(o.metadata.namespace, o.metadata.name ?? '')),
      );
      const end = semantics.initialEventsEndBookmark;
      watcher.seed(initialEvents(this.definition, inScope, startRevision, end));
    }
    this.open.add(watcher);
    const source = this.storage.watch(watcher.options.keyPrefix, {
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
