import type { KubeObject } from '@listwatch/api';
import type { StorageError } from './storage-error.js';
import type { TransformerForKey } from './value/transformer.js';

/**
 * A storage revision: one global, strictly increasing counter (etcd's revision) that is the
 * resourceVersion of every object. Revisions stay below 2^53 in every backend.
 */
export type Revision = number;

export interface StorageListOptions {
  /** At most this many items (0 or undefined: all). */
  limit?: number;
  /** Start at this key (inclusive); continuing a paginated list. */
  continueFrom?: string;
  /** Read at this revision (0 or undefined: the latest). Compacted → 410 Expired. */
  revision?: Revision;
  /**
   * Leave out values that do not decode (CorruptObject) and report them in `corrupt`, instead
   * of failing the LIST naming them (the watch cache's list).
   */
  skipCorrupt?: boolean;
}

export interface StorageListResult {
  /** Objects sorted by key, each with `metadata.resourceVersion` set to its mod revision. */
  items: KubeObject[];
  /** Keys of `items`, same order. */
  keys: string[];
  /** The revision the list was read at. */
  revision: Revision;
  /** Whether more items follow the last one returned. */
  more: boolean;
  /** How many items follow the last one returned (0 when `more` is false). */
  remaining: number;
  /** With `skipCorrupt`: the values left out, each a CorruptObject naming its key, in key order. */
  corrupt?: StorageError[];
}

export type StorageEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** One change, as the storage watch delivers it. */
export interface StorageChange {
  type: StorageEventType;
  key: string;
  /**
   * The object after the change, with `metadata.resourceVersion` = `revision`. For DELETED it is
   * the last stored state, its resourceVersion set to the deletion revision (as kube-apiserver).
   */
  object: KubeObject;
  /** The state before the change (MODIFIED, DELETED; a MODIFIED's undefined if it does not decode). */
  prevObject?: KubeObject | undefined;
  revision: Revision;
}

/** "Everything up to `revision` has been delivered": an etcd progress notification. */
export interface StorageProgress {
  type: 'PROGRESS';
  revision: Revision;
}

export type StorageEvent = StorageChange | StorageProgress;

export interface StorageWatchOptions {
  /**
   * Deliver every change with revision > fromRevision. Undefined: changes after now.
   * As etcd (whose start revision is fromRevision + 1): after compact(R), fromRevision >= R - 1
   * is served and anything older ends the watch with 410 Expired. The change at exactly R has
   * lost its previous state, so if it is a modification or deletion that is Expired too.
   */
  fromRevision?: Revision;
  /** Periodic PROGRESS events while idle (etcd's progress_notify). */
  progressNotify?: boolean;
}

/**
 * An open watch: iterate it for events. Iteration throws a StorageError (Expired after
 * compaction, Unreachable when the backend is lost) and then ends; `close()` ends it cleanly.
 */
export interface StorageWatch extends AsyncIterable<StorageEvent> {
  /** Ask for a PROGRESS event at the current revision (etcd's progress_request). */
  requestProgress(): void;
  close(): void;
}

export interface StorageUpdateOptions {
  /** Fail with Conflict unless the key's current mod revision is this one. */
  expectedRevision?: Revision;
}

export interface StorageDeleteOptions {
  expectedRevision?: Revision;
}

/**
 * Computes the next state from the current one inside `guaranteedUpdate`. Called again, with the
 * fresh state, whenever a concurrent writer wins the race. Throwing aborts the update.
 */
export type TryUpdate = (current: KubeObject) => KubeObject | Promise<KubeObject>;

/**
 * The storage contract: etcd's semantics, keyed by `/<prefix>/<resource>/<namespace>/<name>`.
 * Every backend (memory, sqlite, etcd3) passes the same contract suite.
 */
export interface Storage {
  /** The key prefix this store lives under, e.g. `/registry`. */
  readonly prefix: string;
  get(key: string): Promise<KubeObject | undefined>;
  list(prefix: string, options?: StorageListOptions): Promise<StorageListResult>;
  /** Number of keys under a prefix at the latest revision. */
  count(prefix: string): Promise<number>;
  /** AlreadyExists if the key is present. Returns the stored object (resourceVersion set). */
  create(key: string, object: KubeObject): Promise<KubeObject>;
  /** NotFound if absent; Conflict if `expectedRevision` is stale. */
  update(key: string, object: KubeObject, options?: StorageUpdateOptions): Promise<KubeObject>;
  /**
   * Read-modify-write that retries on conflict until it lands. NotFound if absent.
   * `cachedExisting` (the watch cache's copy, never mutated) saves the read when it is current;
   * when it turns out stale the update starts over from a fresh read (etcd3/store.go
   * GuaranteedUpdate's cachedExistingObject).
   */
  guaranteedUpdate(
    key: string,
    tryUpdate: TryUpdate,
    cachedExisting?: KubeObject,
  ): Promise<KubeObject>;
  /** Returns the last state (resourceVersion = deletion revision). */
  delete(key: string, options?: StorageDeleteOptions): Promise<KubeObject>;
  watch(prefix: string, options?: StorageWatchOptions): StorageWatch;
  /** The latest revision of the whole store (for consistent reads). */
  currentRevision(): Promise<Revision>;
  /**
   * Whether `requestProgress` is answered, in order with the watch's events (kube's
   * RequestWatchProgress feature). Absent: it is (the in-process backends). The watch cache
   * serves consistent reads only when it is.
   */
  supportsProgressRequests?(): Promise<boolean>;
  /**
   * Drops history before `revision`: reads below it become 410 Expired (see fromRevision for
   * watches). Compacting to an already compacted revision is a no-op; past the current revision
   * it is ResourceVersionTooLarge.
   */
  compact(revision: Revision): Promise<void>;
  /**
   * The newest compaction this process knows of (0: none), without a round trip: reads below it
   * are 410 Expired (storage.Interface CompactRevision). The watch cache serves no older snapshot.
   */
  compactRevision(): Revision;
  close(): Promise<void>;
}

/** What every backend is configured with. */
export interface BackendOptions {
  /** Key prefix (default `/registry`). */
  prefix?: string;
  /** Milliseconds between automatic compactions; 0 disables (default 5 min). */
  compactionInterval?: number;
  /** Milliseconds between PROGRESS events on idle `progressNotify` watches (default 5 s). */
  progressNotifyInterval?: number;
  /** Encryption at rest: the transformer of each key's values (`--encryption-provider-config`). */
  transformerFor?: TransformerForKey;
}
