import { ApiError, type KubeObject, type ResourceDefinition } from '@listwatch/api';
import type { StorageChange } from '../storage.js';
import { CacheStore, type StoreElement, type StoreSnapshot } from './cache-store.js';
import { EventWindow, type WatchCacheEvent } from './event-window.js';
import { shareUnchanged } from './shared-structure.js';

/** watch_cache.go resourceVersionTooHighRetrySeconds. */
const TOO_LARGE_RETRY_SECONDS = 1;

/** The 504 a request for a resourceVersion the cache never reached gets (NewTooLargeResourceVersionError). */
export function tooLargeResourceVersion(requested: number, current: number): ApiError {
  return ApiError.timeout(
    `Too large resource version: ${requested}, current: ${current}`,
    TOO_LARGE_RETRY_SECONDS,
    [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
  );
}

/** One copied B+ tree node: 32 keys and 32 values (8 bytes each) plus the node and arrays. */
const SNAPSHOT_NODE_BYTES = 32 * 16 + 96;

interface Waiter {
  revision: number;
  resolve: () => void;
  reject: (err: ApiError) => void;
  timer: NodeJS.Timeout;
}

/**
 * The cache proper (watchCache): the current state, the window of recent events, and the
 * revision the cache has caught up to. It only applies what the Cacher feeds it.
 */
export class WatchCache {
  readonly store: CacheStore;
  readonly window: EventWindow;
  /** Everything up to this revision has been applied (events and progress notifications). */
  revision = 0;
  private waiters: Waiter[] = [];

  constructor(
    readonly definition: ResourceDefinition,
    private readonly options: { fixedCapacity?: number; snapshots?: boolean },
    private readonly now: () => number,
  ) {
    this.store = new CacheStore(definition);
    this.window = new EventWindow(
      options.fixedCapacity === undefined ? {} : { fixedCapacity: options.fixedCapacity },
    );
  }

  /** Refills from a list taken at `revision`; the window starts empty after it. */
  replace(items: { key: string; object: KubeObject }[], revision: number): void {
    this.store.replace(items.map((i) => this.store.element(i.object, i.key)));
    this.window.reset(revision, this.snapshot(revision));
    this.advance(revision);
  }

  /** Applies one storage change and returns it as the window keeps it. */
  apply(change: StorageChange): WatchCacheEvent {
    const previous: StoreElement | undefined = this.store.get(change.key);
    // A new version shares what did not change with the cached one: the window holds each
    // object's recent versions, and a full copy apiece is most of the cache's memory.
    const object =
      previous && change.type !== 'DELETED'
        ? shareUnchanged(change.object, previous.object)
        : change.object;
    // The cached previous state first: a MODIFIED's prevObject decodes only when read
    // (log-record.ts), and the cache already has it — never spread the change (that reads it).
    const prevObject = previous ? previous.object : change.prevObject;
    const prev = previous ?? (prevObject ? this.store.element(prevObject, change.key) : undefined);
    let element: StoreElement;
    if (change.type === 'DELETED') {
      // Selectors judge a deleted object by its last state.
      element = prev ? { ...prev, object } : this.store.element(object, change.key);
      this.store.delete(change.key);
    } else {
      element = this.store.element(object, change.key);
      this.store.upsert(element);
    }
    const event: WatchCacheEvent = {
      type: change.type,
      key: change.key,
      object,
      objectLabels: element.labels,
      objectFields: element.fields,
      prevObject,
      prevObjectLabels: prev?.labels,
      prevObjectFields: prev?.fields,
      revision: change.revision,
      recordTime: this.now(),
    };
    this.window.push(event, this.snapshot(change.revision));
    this.advance(change.revision);
    return event;
  }

  private snapshot(revision: number): StoreSnapshot | undefined {
    return this.options.snapshots === false ? undefined : this.store.snapshot(revision);
  }

  /**
   * The store at `revision` when the window still covers it and the cache has seen it; undefined
   * otherwise (then storage serves that revision, or says it is compacted).
   */
  snapshotAt(revision: number): StoreSnapshot | undefined {
    if (revision > this.revision) return undefined;
    return this.window.snapshotAt(revision);
  }

  /**
   * Bytes the snapshots hold beyond the store, estimated: each write after a snapshot copies one
   * node per tree level (a key and a value slot per entry), so that much stays with the snapshot.
   */
  snapshotBytes(): number {
    return this.window.snapshotCount * this.store.height * SNAPSHOT_NODE_BYTES;
  }

  /** A progress notification: nothing under our prefix changed up to `revision`. */
  advance(revision: number): void {
    if (revision <= this.revision) return;
    this.revision = revision;
    if (this.waiters.length === 0) return;
    const still: Waiter[] = [];
    for (const w of this.waiters) {
      if (w.revision <= revision) {
        clearTimeout(w.timer);
        w.resolve();
      } else still.push(w);
    }
    this.waiters = still;
  }

  /** Resolves once the cache has reached `revision`; 504 Too large resource version after `timeoutMs`. */
  waitUntilFresh(revision: number, timeoutMs: number): Promise<void> {
    if (revision <= this.revision) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        revision,
        resolve,
        reject,
        timer: setTimeout(() => {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          reject(tooLargeResourceVersion(revision, this.revision));
        }, timeoutMs),
      };
      this.waiters.push(waiter);
    });
  }

  get hasWaiters(): boolean {
    return this.waiters.length > 0;
  }

  /** Fails every pending wait (the cache is re-initializing or stopping). */
  failWaiters(err: ApiError): void {
    for (const w of this.waiters) {
      clearTimeout(w.timer);
      w.reject(err);
    }
    this.waiters = [];
  }
}
