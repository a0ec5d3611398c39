import type { LogRecord } from './log-record.js';
import type { Revision } from './storage.js';
import type { LogSource } from './watch-hub.js';

/** A live key as a log stores it. */
export interface StoredRow {
  key: string;
  value: string | Uint8Array;
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
  create(key: string, value: string | Uint8Array): LogRecord;
  update(
    key: string,
    value: string | Uint8Array,
    expectedRevision: Revision | undefined,
  ): LogRecord;
  delete(key: string, expectedRevision: Revision | undefined): LogRecord;
  /** Forgets history before `revision` (compacted < revision <= current). */
  compact(revision: Revision): void;
  close(): void;
}
