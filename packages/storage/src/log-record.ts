import type { KubeObject } from '@listwatch/api';
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
  if (value === undefined) {
    return {
      type: 'DELETED',
      key,
      revision,
      object: objects.decode(key, prev.value, revision),
      prevObject: objects.decode(key, prev.value, prev.modRevision),
    };
  }
  return modified(key, revision, objects.decode(key, value, revision), prev, objects);
}

/**
 * A modification whose previous object is decoded only when read: the watch cache has it
 * already, and etcd3/watcher.go's transform decodes prevValue for a modification only when its
 * watch filters (never for the cacher's). A previous value that does not decode reads as
 * undefined, as such a watch never decoding it would have it.
 */
function modified(
  key: string,
  revision: Revision,
  object: KubeObject,
  prev: StoredVersion,
  objects: StoredObjectCodec,
): StorageChange {
  let pending: StoredVersion | undefined = prev;
  let prevObject: KubeObject | undefined;
  return {
    type: 'MODIFIED',
    key,
    revision,
    object,
    get prevObject(): KubeObject | undefined {
      if (pending) {
        const { value, modRevision } = pending;
        pending = undefined;
        try {
          prevObject = objects.decode(key, value, modRevision);
        } catch {
          prevObject = undefined;
        }
      }
      return prevObject;
    },
  };
}
