import type { Revision, StorageChange } from './storage.js';
import { StorageError } from './storage-error.js';
import type { StoredObjectCodec, StoredValue } from './stored-object.js';

/** A key's state at one revision, as a log keeps it. */
export interface StoredVersion {
  value: StoredValue;
  modRevision: Revision;
}

/**
 * One write in a revision log (the memory history, the SQLite log, an etcd watch event): what
 * the key holds after it (`value` undefined: deleted) and, unless compacted away, before it.
 */
export interface LogRecord {
  revision: Revision;
  key: string;
  createRevision: Revision;
  value: StoredValue | undefined;
  prev: StoredVersion | undefined;
}

/**
 * The watch event for a record. A modification or deletion whose previous state was compacted
 * cannot be described (a deletion has no object at all), so it is 410 Expired, as etcd gives no
 * prev_kv there and kube-apiserver's watcher refuses such events (etcd3/watcher.go parseEvent).
 */
export function toChange(record: LogRecord, objects: StoredObjectCodec): StorageChange {
  const { key, revision, value, prev } = record;
  if (value !== undefined && record.createRevision === revision) {
    return { type: 'ADDED', key, revision, object: objects.decode(key, value, revision) };
  }
  if (!prev) throw StorageError.expired(key, revision - 1, revision);
  const prevObject = objects.decode(key, prev.value, prev.modRevision);
  if (value === undefined) {
    return {
      type: 'DELETED',
      key,
      revision,
      object: objects.decode(key, prev.value, revision),
      prevObject,
    };
  }
  return {
    type: 'MODIFIED',
    key,
    revision,
    object: objects.decode(key, value, revision),
    prevObject,
  };
}
