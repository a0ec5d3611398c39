import type { GetOptions, KubeObject, ListOptions, ResourceDefinition } from '@listwatch/api';
import type { CacheWatcher } from './cache-watcher.js';
import type { SelectionPredicate } from './predicate.js';
import type { ResourceKeys } from './resource-keys.js';

// The requests carry the typed options parseListOptions / parseGetOptions decoded, as
// storage.ListOptions carries ResourceVersion, ResourceVersionMatch, Predicate and
// SendInitialEvents (k8s.io/apiserver/pkg/storage/interfaces.go). A source classifies them once,
// with classifyList / classifyWatch / classifyGet of @listwatch/api, and branches on that.

/** A LIST: ListOptions' resourceVersion semantics, scoped to a namespace and a selection. */
export interface CacheListRequest extends Pick<
  ListOptions,
  'resourceVersion' | 'resourceVersionMatch' | 'limit' | 'continue' | 'continueToken'
> {
  namespace?: string;
  predicate?: SelectionPredicate;
}

export interface CacheListResult {
  items: KubeObject[];
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
  /**
   * The items are the watch cache's own objects: never mutated, the same for every LIST until
   * they change — what may remember their encodings (ListStreamOptions.encodings).
   */
  shared?: boolean;
}

export interface CacheWatchRequest
  extends
    Pick<ListOptions, 'resourceVersion' | 'sendInitialEvents'>,
    Partial<Pick<ListOptions, 'allowWatchBookmarks'>> {
  namespace?: string;
  /** Watch one object (a `metadata.name` field selector or a legacy `/watch/.../name` path). */
  name?: string;
  predicate?: SelectionPredicate;
  /** The watch ends by itself after this long (timeoutSeconds). */
  timeoutMs?: number;
}

/** A GET of one object (storage.Interface Get with GetOptions). */
export interface CacheGetRequest extends GetOptions {
  namespace?: string;
  name: string;
}

/**
 * What serves a resource's GET, LIST and WATCH: the Cacher, or storage directly when the watch
 * cache is disabled for it (UncachedSource). The apiserver sees only this.
 */
export interface ListWatchSource {
  readonly definition: ResourceDefinition;
  readonly keys: ResourceKeys;
  readonly isReady: boolean;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** The object, or undefined when there is none. */
  get(request: CacheGetRequest): Promise<KubeObject | undefined>;
  /**
   * The cache's current copy of the object under `key`, shared and never to be mutated; possibly
   * behind storage. What a write starts from instead of reading storage (cacher.go
   * GuaranteedUpdate passes it down as cachedExistingObject). Undefined without a cache.
   */
  cachedObject(key: string): KubeObject | undefined;
  list(request: CacheListRequest): Promise<CacheListResult>;
  watch(request: CacheWatchRequest): Promise<CacheWatcher>;
}
