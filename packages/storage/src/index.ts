// The watch cache.
export * from './cacher/index.js';
// Logging is @listwatch/api's (one Logger, one redaction rule); re-exported for compatibility.
export { silentLogger, type Logger } from '@listwatch/api';

// Storage: the interface, its errors, the backends and their helpers.
export type {
  Revision,
  Storage,
  StorageChange,
  StorageDeleteOptions,
  StorageEvent,
  StorageEventType,
  StorageListOptions,
  StorageListResult,
  StorageProgress,
  StorageUpdateOptions,
  StorageWatch,
  StorageWatchOptions,
  TryUpdate,
  BackendOptions,
} from './storage.js';
// Encryption at rest: value transformers (k8s.io/apiserver pkg/storage/value).
export {
  ENCRYPTED_PREFIX,
  identityTransformer,
  prefixTransformers,
  type PrefixedTransformer,
  type Transformer,
  type TransformerForKey,
} from './value/transformer.js';
export { cbcTransformer, gcmTransformer } from './value/aes.js';
export { secretboxTransformer } from './value/secretbox.js';
export { StorageError, isStorageError, type StorageErrorCode } from './storage-error.js';
export {
  createStorage,
  SQLITE_FILE,
  STORAGE_BACKENDS,
  type CreateStorageOptions,
  type StorageBackend,
} from './create-storage.js';
export { MemoryStorage, type MemoryStorageOptions } from './memory/memory-storage.js';
export { SqliteStorage, type SqliteStorageOptions } from './sqlite/sqlite-storage.js';
export type { SqliteSynchronous } from './sqlite/sqlite-log.js';
export {
  COMPACT_REV_KEY,
  Etcd3Storage,
  DEFAULT_ETCD_ENDPOINTS,
  type Etcd3StorageOptions,
} from './etcd3/etcd3-storage.js';
export { DEFAULT_PROGRESS_NOTIFY_INTERVAL, type LogStorageOptions } from './log-storage.js';
export {
  Compactor,
  DEFAULT_COMPACTION_INTERVAL,
  type CompactionClaim,
  type CompactionCoordinator,
  type CompactorOptions,
} from './compactor.js';
// Go durations are an api fact now; re-exported for compatibility.
export {
  formatDuration,
  formatDurationNanos,
  parseDuration,
  parseDurationNanos,
} from '@listwatch/api';
export {
  DEFAULT_PREFIX,
  compareKeys,
  keyAfter,
  prefixEnd,
  validateKey,
  validateListPrefix,
} from './keys.js';
export { MAX_REQUEST_BYTES, maxObjectBytes } from './stored-object.js';
export {
  listResourceVersion,
  objectResourceVersion,
  updateObject,
} from './api-object-versioner.js';
