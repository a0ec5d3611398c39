import type { LogRecord } from './log-record.js';
import type { Revision } from './storage.js';
import { StorageError } from './storage-error.js';
import type { StoredValue } from './stored-object.js';
import type { LogSource } from './watch-hub.js';

/** A live key as a log stores it. */
export interface StoredRow {
  key: string;
  value: StoredValue;
  modRevision: Revision;
}

export interface RangeResult {
  /** Live keys in key order, at most the limit. */
  rows: StoredRow[];
  /** All live keys in the range, returned ones included. */
  count: number;
}

/**
 * An MVCC revision log owned by this process: the engine under the memory and SQLite backends.
 * Every method is synchronous, so each one is atomic with respect to the others; inputs are
 * already validated and encoded. Writes throw StorageErrors (KeyExists, KeyNotFound, Conflict)
 * and return the record to publish to watchers.
 */
export interface RevisionLog extends LogSource {
  get(key: string): StoredRow | undefined;
  /** Live keys in [start, end) at `revision` (between the compacted and current revision). */
  range(start: string, end: string, revision: Revision, limit: number): RangeResult;
  create(key: string, value: StoredValue): LogRecord;
  update(key: string, value: StoredValue, expectedRevision: Revision | undefined): LogRecord;
  delete(key: string, expectedRevision: Revision | undefined): LogRecord;
  /** Forgets history before `revision` (compacted < revision <= current). */
  compact(revision: Revision): void;
  close(): void;
}

/**
 * The precondition of every log's update and delete: the key is live and, when a revision is
 * expected, last written at it (etcd's txn compare on mod_revision).
 */
export function requireLive<T>(
  key: string,
  row: T | undefined,
  modRevision: (row: T) => Revision,
  expectedRevision: Revision | undefined,
): T {
  if (row === undefined) throw StorageError.keyNotFound(key);
  const actual = modRevision(row);
  if (expectedRevision !== undefined && actual !== expectedRevision) {
    throw StorageError.revisionConflict(key, expectedRevision, actual);
  }
  return row;
}
