import { chmodSync, closeSync, openSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { loadOptionalPeer } from '../optional-peer.js';
import type { LogRecord } from '../log-record.js';
import { prefixEnd } from '../keys.js';
import {
  requireLive,
  type RangeResult,
  type RevisionLog,
  type StoredRow,
} from '../revision-log.js';
import type { Revision } from '../storage.js';
import { StorageError } from '../storage-error.js';
import type { StoredValue } from '../stored-object.js';

export type SqliteSynchronous = 'FULL' | 'NORMAL' | 'OFF';

// kine's layout (k3s's embedded datastore), simplified: every write appends one row to the log;
// kv_current points at each live key's latest row; deletions are tombstone rows.
const SCHEMA = `
CREATE TABLE IF NOT EXISTS kv_log (
  rev        INTEGER PRIMARY KEY,
  key        TEXT    NOT NULL,
  create_rev INTEGER NOT NULL,
  prev_rev   INTEGER NOT NULL,
  deleted    INTEGER NOT NULL,
  value      TEXT
);
CREATE INDEX IF NOT EXISTS kv_log_key_rev ON kv_log (key, rev);
CREATE TABLE IF NOT EXISTS kv_current (
  key TEXT PRIMARY KEY,
  rev INTEGER NOT NULL
) WITHOUT ROWID;
CREATE VIEW IF NOT EXISTS kv AS
  SELECT c.key AS key, l.rev AS mod_rev, l.create_rev AS create_rev, l.value AS value
  FROM kv_current c JOIN kv_log l ON l.rev = c.rev;
CREATE TABLE IF NOT EXISTS meta (
  name  TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
INSERT OR IGNORE INTO meta (name, value) VALUES ('compact_revision', 0);
`;

interface CurrentRow {
  rev: number;
  create_rev: number;
  value: string | Buffer | null;
}

interface HistoryRow {
  rev: number;
  key: string;
  create_rev: number;
  deleted: number;
  value: string | Buffer | null;
  prev_rev: number | null;
  prev_value: string | Buffer | null;
}

interface RangeRow {
  key: string;
  rev: number;
  value: string | Buffer | null;
}

/** A NULL where an object belongs decodes as CorruptObject, not as a crash. */
function stored(value: string | Buffer | null): StoredValue {
  return value ?? '';
}

/** JSON is stored as TEXT; an encrypted value as a BLOB (better-sqlite3 binds Buffers only). */
function bindable(value: StoredValue): string | Buffer {
  return typeof value === 'string' || Buffer.isBuffer(value)
    ? value
    : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
}

// The log holds Secrets: owner-only, as etcd keeps its data files (0600).
const FILE_MODE = 0o600;

/** Creates `file` 0600 if missing, so SQLite's -wal and -shm, which copy its mode, are 0600 too. */
function createPrivate(file: string): void {
  if (file === '' || file === ':memory:') return;
  closeSync(openSync(file, 'a', FILE_MODE));
}

/** Tightens the files an older release or a wide umask left readable to others. */
function restrictFiles(file: string): void {
  if (file === '' || file === ':memory:') return;
  for (const path of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      chmodSync(path, FILE_MODE);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
}

function isBusy(err: unknown): boolean {
  return (
    err instanceof Error &&
    'code' in err &&
    String((err as { code: unknown }).code).startsWith('SQLITE_BUSY')
  );
}

function prepareStatements(db: Database.Database) {
  return {
    current: db.prepare<[string], CurrentRow>(
      'SELECT c.rev AS rev, l.create_rev AS create_rev, l.value AS value FROM kv_current c JOIN kv_log l ON l.rev = c.rev WHERE c.key = ?',
    ),
    insertLog: db.prepare<[number, string, number, number, number, string | Buffer | null]>(
      'INSERT INTO kv_log (rev, key, create_rev, prev_rev, deleted, value) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    setCurrent: db.prepare<[string, number]>(
      'INSERT INTO kv_current (key, rev) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET rev = excluded.rev',
    ),
    dropCurrent: db.prepare<[string]>('DELETE FROM kv_current WHERE key = ?'),
    rangeLatest: db.prepare<[string, string, number], RangeRow>(
      'SELECT key, mod_rev AS rev, value FROM kv WHERE key >= ? AND key < ? ORDER BY key LIMIT ?',
    ),
    countLatest: db.prepare<[string, string], { n: number }>(
      'SELECT COUNT(*) AS n FROM kv_current WHERE key >= ? AND key < ?',
    ),
    // SQLite takes bare columns from the row that holds MAX(rev): each key's state as of rev.
    rangeAt: db.prepare<[string, string, number, number], RangeRow>(
      `SELECT key, rev, value FROM (
         SELECT key, MAX(rev) AS rev, deleted, value FROM kv_log
         WHERE key >= ? AND key < ? AND rev <= ? GROUP BY key
       ) WHERE deleted = 0 ORDER BY key LIMIT ?`,
    ),
    countAt: db.prepare<[string, string, number], { n: number }>(
      `SELECT COUNT(*) AS n FROM (
         SELECT key, MAX(rev) AS rev, deleted FROM kv_log
         WHERE key >= ? AND key < ? AND rev <= ? GROUP BY key
       ) WHERE deleted = 0`,
    ),
    history: db.prepare<[number, string, string], HistoryRow>(
      `SELECT l.rev AS rev, l.key AS key, l.create_rev AS create_rev, l.deleted AS deleted, l.value AS value,
              p.rev AS prev_rev, p.value AS prev_value
       FROM kv_log l LEFT JOIN kv_log p ON p.rev = l.prev_rev AND l.prev_rev > 0
       WHERE l.rev > ? AND l.key >= ? AND l.key < ? ORDER BY l.rev`,
    ),
    // Superseded rows (a newer row of the key at or before the target) and tombstones go; the
    // state as of the target and everything after it stay.
    compact: db.prepare<{ rev: number }>(
      `DELETE FROM kv_log WHERE rev < :rev AND (deleted = 1 OR EXISTS (
         SELECT 1 FROM kv_log n WHERE n.key = kv_log.key AND n.rev > kv_log.rev AND n.rev <= :rev))`,
    ),
    setCompacted: db.prepare<[number]>("UPDATE meta SET value = ? WHERE name = 'compact_revision'"),
  };
}

/**
 * The revision log in one SQLite file (WAL mode). The connection holds an exclusive lock for its
 * whole life: one process owns the file, so in-process notification after each commit is a
 * complete watch feed. The log and the compact revision survive restarts; the current revision
 * is the newest row, which compaction never removes.
 */
export class SqliteLog implements RevisionLog {
  private readonly db: Database.Database;
  private revision: Revision;
  private compacted: Revision;
  private readonly stmt: ReturnType<typeof prepareStatements>;

  constructor(file: string, synchronous: SqliteSynchronous = 'FULL') {
    const BetterSqlite = loadOptionalPeer<typeof Database>('better-sqlite3', 'sqlite');
    try {
      createPrivate(file);
      // Nobody else may hold the file, so waiting on its lock only delays the error.
      this.db = new BetterSqlite(file, { timeout: 100 });
    } catch (err) {
      throw StorageError.unreachable(file, err);
    }
    try {
      this.db.pragma('locking_mode = EXCLUSIVE');
      this.db.pragma('journal_mode = WAL');
      this.db.pragma(`synchronous = ${synchronous}`);
      // Writing at once takes the exclusive lock now, not at the first user write.
      this.db.exec(`BEGIN IMMEDIATE; ${SCHEMA} COMMIT;`);
      // After the first transaction: the -wal (and any -shm) exist now.
      restrictFiles(file);
    } catch (err) {
      this.db.close();
      if (isBusy(err))
        throw StorageError.unreachable(
          file,
          `${file} is in use by another storage (database is locked)`,
        );
      // Not a database (corrupted, another file): said with the path, the file left as it is.
      const text = err instanceof Error ? err.message : String(err);
      throw StorageError.internal(
        file,
        new Error(`cannot open the sqlite database ${file}: ${text}`, { cause: err }),
      );
    }
    const db = this.db;
    this.stmt = prepareStatements(db);
    const newest =
      db.prepare<[], { rev: number | null }>('SELECT MAX(rev) AS rev FROM kv_log').get()?.rev ?? 0;
    this.revision = Math.max(newest, 1);
    this.compacted =
      db
        .prepare<[], { value: number }>("SELECT value FROM meta WHERE name = 'compact_revision'")
        .get()?.value ?? 0;
  }

  currentRevision(): Revision {
    return this.revision;
  }

  compactedRevision(): Revision {
    return this.compacted;
  }

  get(key: string): StoredRow | undefined {
    const row = this.stmt.current.get(key);
    return row && { key, value: stored(row.value), modRevision: row.rev };
  }

  range(start: string, end: string, revision: Revision, limit: number): RangeResult {
    const max = limit > 0 ? limit : -1;
    const latest = revision === this.revision;
    const rows = latest
      ? this.stmt.rangeLatest.all(start, end, max)
      : this.stmt.rangeAt.all(start, end, revision, max);
    const count =
      limit > 0 && rows.length < limit
        ? rows.length
        : latest
          ? this.stmt.countLatest.get(start, end)!.n
          : this.stmt.countAt.get(start, end, revision)!.n;
    return {
      rows: rows.map((r) => ({ key: r.key, value: stored(r.value), modRevision: r.rev })),
      count,
    };
  }

  *history(prefix: string, after: Revision): Generator<LogRecord> {
    // Read it all first: the statement would keep the connection busy across the consumer's code.
    const rows = this.stmt.history.all(after, prefix, prefixEnd(prefix));
    for (const row of rows) {
      yield {
        revision: row.rev,
        key: row.key,
        createRevision: row.create_rev,
        value: row.deleted ? undefined : stored(row.value),
        prev:
          row.prev_rev === null
            ? undefined
            : { value: stored(row.prev_value), modRevision: row.prev_rev },
      };
    }
  }

  create(key: string, value: StoredValue): LogRecord {
    if (this.stmt.current.get(key)) throw StorageError.keyExists(key);
    const revision = this.revision + 1;
    this.commit(key, () => {
      this.stmt.insertLog.run(revision, key, revision, 0, 0, bindable(value));
      this.stmt.setCurrent.run(key, revision);
    });
    return { revision, key, createRevision: revision, value, prev: undefined };
  }

  update(key: string, value: StoredValue, expectedRevision: Revision | undefined): LogRecord {
    const prev = this.existing(key, expectedRevision);
    const revision = this.revision + 1;
    this.commit(key, () => {
      this.stmt.insertLog.run(revision, key, prev.create_rev, prev.rev, 0, bindable(value));
      this.stmt.setCurrent.run(key, revision);
    });
    return {
      revision,
      key,
      createRevision: prev.create_rev,
      value,
      prev: { value: stored(prev.value), modRevision: prev.rev },
    };
  }

  delete(key: string, expectedRevision: Revision | undefined): LogRecord {
    const prev = this.existing(key, expectedRevision);
    const revision = this.revision + 1;
    this.commit(key, () => {
      this.stmt.insertLog.run(revision, key, prev.create_rev, prev.rev, 1, null);
      this.stmt.dropCurrent.run(key);
    });
    return {
      revision,
      key,
      createRevision: prev.create_rev,
      value: undefined,
      prev: { value: stored(prev.value), modRevision: prev.rev },
    };
  }

  compact(revision: Revision): void {
    this.db.transaction(() => {
      this.stmt.compact.run({ rev: revision });
      this.stmt.setCompacted.run(revision);
    })();
    this.compacted = revision;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  private existing(key: string, expectedRevision: Revision | undefined): CurrentRow {
    return requireLive(key, this.stmt.current.get(key), (row) => row.rev, expectedRevision);
  }

  /** Runs one write transaction; the revision moves only once it has committed. */
  private commit(key: string, write: () => void): void {
    try {
      this.db.transaction(write).immediate();
    } catch (err) {
      throw StorageError.internal(key, err);
    }
    this.revision += 1;
  }
}
