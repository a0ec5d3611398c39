import type { ResourceDefinition } from '@listwatch/api';
import type { CacheWatcher } from './cache-watcher.js';
import type { CacheListRequest, CacheListResult, CacheWatchRequest } from './cacher.js';
import type { ResourceKeys } from './resource-keys.js';

/**
 * What serves a resource's LIST and WATCH: the Cacher, or storage directly when the watch cache
 * is disabled for it (UncachedSource). The apiserver sees only this.
 */
export interface ListWatchSource {
  readonly definition: ResourceDefinition;
  readonly keys: ResourceKeys;
  readonly isReady: boolean;
  start(): Promise<void>;
  stop(): Promise<void>;
  list(request: CacheListRequest): Promise<CacheListResult>;
  watch(request: CacheWatchRequest): Promise<CacheWatcher>;
}
