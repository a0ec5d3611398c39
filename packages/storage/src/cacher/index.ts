export { Cacher, type CacherOptions } from './cacher.js';
export type { CacherMetrics, ListDelegationReason } from './cacher-metrics.js';
export { CacheWatcher, type CacheWatchEvent, type WatcherEndReason } from './cache-watcher.js';
export { bookmarkEvent } from './bookmarks.js';
export type * from './list-watch-source.js';
export { SelectionPredicate, type FieldMatcher, type LabelMatcher } from './predicate.js';
export { ResourceKeys } from './resource-keys.js';
export { UncachedSource } from './uncached-source.js';
export { tooLargeResourceVersion } from './watch-cache.js';
