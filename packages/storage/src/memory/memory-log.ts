import { compareKeys } from '../keys.js';
import type { LogRecord, StoredVersion } from '../log-record.js';
import {
  requireLive,
  type RangeResult,
  type RevisionLog,
  type StoredRow,
} from '../revision-log.js';
import type { Revision } from '../storage.js';
import { StorageError } from '../storage-error.js';
import type { StoredValue } from '../stored-object.js';

interface Version extends StoredVersion {
  value: StoredValue;
  createRevision: Revision;
}

/** Index of the first element for which `before` is false (elements ordered). */
function lowerBound<T>(items: readonly T[], before: (item: T) => boolean): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (before(items[mid]!)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * An in-process MVCC store: the current state in a sorted index, plus one record per revision
 * kept until compaction. A read at an older revision undoes the records after it.
 */
export class MemoryLog implements RevisionLog {
  // An empty etcd is at revision 1; the first write gets 2. Matching it keeps the backends alike.
  private revision: Revision = 1;
  private compacted: Revision = 0;
  private readonly current = new Map<string, Version>();
  /** Keys of `current`, in byte order. */
  private keys: string[] = [];
  /** One record per revision after `compacted`, oldest first (plus the record at `compacted`). */
  private records: LogRecord[] = [];

  currentRevision(): Revision {
    return this.revision;
  }

  compactedRevision(): Revision {
    return this.compacted;
  }

  get(key: string): StoredRow | undefined {
    const version = this.current.get(key);
    return version && { key, value: version.value, modRevision: version.modRevision };
  }

  range(start: string, end: string, revision: Revision, limit: number): RangeResult {
    const from = lowerBound(this.keys, (k) => compareKeys(k, start) < 0);
    const to = lowerBound(this.keys, (k) => compareKeys(k, end) < 0);
    if (revision === this.revision) {
      const stop = limit > 0 ? Math.min(to, from + limit) : to;
      const rows: StoredRow[] = [];
      for (let i = from; i < stop; i++) rows.push(this.get(this.keys[i]!)!);
      return { rows, count: to - from };
    }
    // Undo newer writes, newest first, so each key ends at its state as of `revision`.
    const past = new Map<string, StoredVersion | undefined>();
    for (let i = this.records.length - 1; i >= 0; i--) {
      const record = this.records[i]!;
      if (record.revision <= revision) break;
      past.set(record.key, record.prev);
    }
    const all: StoredRow[] = [];
    for (let i = from; i < to; i++) {
      const key = this.keys[i]!;
      if (past.has(key)) continue;
      all.push(this.get(key)!);
    }
    for (const [key, version] of past) {
      if (version && compareKeys(key, start) >= 0 && compareKeys(key, end) < 0) {
        all.push({ key, value: version.value, modRevision: version.modRevision });
      }
    }
    all.sort((a, b) => compareKeys(a.key, b.key));
    return { rows: limit > 0 ? all.slice(0, limit) : all, count: all.length };
  }

  *history(prefix: string, after: Revision): Generator<LogRecord> {
    const first = lowerBound(this.records, (r) => r.revision <= after);
    for (let i = first; i < this.records.length; i++) {
      const record = this.records[i]!;
      if (record.key.startsWith(prefix)) yield record;
    }
  }

  create(key: string, value: StoredValue): LogRecord {
    if (this.current.has(key)) throw StorageError.keyExists(key);
    const revision = this.revision + 1;
    this.keys.splice(
      lowerBound(this.keys, (k) => compareKeys(k, key) < 0),
      0,
      key,
    );
    return this.write(key, { value, modRevision: revision, createRevision: revision }, undefined);
  }

  update(key: string, value: StoredValue, expectedRevision: Revision | undefined): LogRecord {
    const prev = this.existing(key, expectedRevision);
    const version = { value, modRevision: this.revision + 1, createRevision: prev.createRevision };
    return this.write(key, version, prev);
  }

  delete(key: string, expectedRevision: Revision | undefined): LogRecord {
    const prev = this.existing(key, expectedRevision);
    this.keys.splice(
      lowerBound(this.keys, (k) => compareKeys(k, key) < 0),
      1,
    );
    return this.write(key, undefined, prev);
  }

  compact(revision: Revision): void {
    const keep = lowerBound(this.records, (r) => r.revision < revision);
    this.records = this.records.slice(keep);
    // etcd serves the event at the compacted revision but no longer knows what came before it.
    const first = this.records[0];
    if (first && first.revision === revision && first.prev) {
      this.records[0] = { ...first, prev: undefined };
    }
    this.compacted = revision;
  }

  close(): void {
    this.current.clear();
    this.keys = [];
    this.records = [];
  }

  private existing(key: string, expectedRevision: Revision | undefined): Version {
    return requireLive(key, this.current.get(key), (v) => v.modRevision, expectedRevision);
  }

  private write(key: string, next: Version | undefined, prev: Version | undefined): LogRecord {
    const revision = this.revision + 1;
    if (next) this.current.set(key, next);
    else this.current.delete(key);
    this.revision = revision;
    const record: LogRecord = {
      revision,
      key,
      createRevision: next?.createRevision ?? prev!.createRevision,
      value: next?.value,
      prev: prev && { value: prev.value, modRevision: prev.modRevision },
    };
    this.records.push(record);
    return record;
  }
}
