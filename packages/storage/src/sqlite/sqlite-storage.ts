import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { LogStorage, type LogStorageOptions } from '../log-storage.js';
import { SqliteLog, type SqliteSynchronous } from './sqlite-log.js';

export interface SqliteStorageOptions extends LogStorageOptions {
  /**
   * The database file; created 0600 if missing, with missing directories 0700 (an existing
   * directory keeps its mode). An existing file and its -wal and -shm are tightened to 0600.
   */
  file: string;
  /**
   * SQLite's `synchronous`: FULL (default) syncs every commit to disk like etcd does; NORMAL
   * survives process crashes but may lose the last commits on power loss.
   */
  synchronous?: SqliteSynchronous;
}

/** Rows a LIST reads and decodes per turn of the event loop (about 6 MB of pods). */
const RANGE_BATCH = 1_000;

/**
 * The embedded, durable default (k3s's choice, via kine): one SQLite file that survives restarts
 * with its revisions and compaction point. One process owns the file at a time.
 */
export class SqliteStorage extends LogStorage {
  readonly file: string;

  constructor(options: SqliteStorageOptions) {
    // Private like etcd's data dir: the database holds Secrets.
    mkdirSync(dirname(options.file), { recursive: true, mode: 0o700 });
    super(new SqliteLog(options.file, options.synchronous), options, false, RANGE_BATCH);
    this.file = options.file;
  }
}
