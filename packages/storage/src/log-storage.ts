import type { KubeObject } from '@listwatch/api';
import { yieldToEventLoop } from '@listwatch/codec';
import { Compactor, DEFAULT_COMPACTION_INTERVAL } from './compactor.js';
import { guaranteedUpdate, type WrittenState } from './guaranteed-update.js';
import {
  DEFAULT_PREFIX,
  prefixEnd,
  validateContinueFrom,
  validateKey,
  validateListPrefix,
  validateStoragePrefix,
} from './keys.js';
import type { LogRecord } from './log-record.js';
import type { RevisionLog } from './revision-log.js';
import type {
  BackendOptions,
  Revision,
  Storage,
  StorageDeleteOptions,
  StorageListOptions,
  StorageListResult,
  StorageUpdateOptions,
  StorageWatch,
  StorageWatchOptions,
  TryUpdate,
} from './storage.js';
import { StorageError, isStorageError } from './storage-error.js';
import { decodeRows, StoredObjectCodec } from './stored-object.js';
import { WatchChannel } from './watch-channel.js';
import { WatchHub } from './watch-hub.js';

/** The default period of PROGRESS events on idle watches that ask for them. */
export const DEFAULT_PROGRESS_NOTIFY_INTERVAL = 5_000;

export type LogStorageOptions = BackendOptions;

/**
 * The Storage contract over a revision log that this process owns (memory, SQLite): validation,
 * encoding, revision bounds and watch fan-out, shared so both backends behave the same.
 */
export class LogStorage implements Storage {
  readonly prefix: string;
  private readonly hub: WatchHub;
  private readonly compactor: Compactor;
  private readonly objects: StoredObjectCodec;
  private closed = false;

  /**
   * @param ownsValues every stored value is JSON this process's encodeObject made (memory): an
   * update may start from it as from its own last write.
   * @param rangeBatch rows a LIST reads and decodes per turn of the event loop (see list); 0
   * reads a range at once (memory: its reads at a past revision cost the whole range each).
   */
  protected constructor(
    private readonly log: RevisionLog,
    options: LogStorageOptions,
    private readonly ownsValues = false,
    private readonly rangeBatch = 0,
  ) {
    this.prefix = validateStoragePrefix(options.prefix ?? DEFAULT_PREFIX);
    this.objects = new StoredObjectCodec(options.transformerFor);
    this.hub = new WatchHub(
      log,
      options.progressNotifyInterval ?? DEFAULT_PROGRESS_NOTIFY_INTERVAL,
      this.objects,
    );
    this.compactor = new Compactor(this, {
      interval: options.compactionInterval ?? DEFAULT_COMPACTION_INTERVAL,
    }).start();
  }

  private usable(key: string): void {
    if (this.closed) throw StorageError.unreachable(key, 'storage is closed');
  }

  get(key: string): Promise<KubeObject | undefined> {
    return run(() => {
      validateKey(this.prefix, key);
      this.usable(key);
      const row = this.log.get(key);
      return row && this.objects.decode(key, row.value, row.modRevision);
    });
  }

  /**
   * A LIST read in batches of `rangeBatch` rows at one revision, the event loop's turn between
   * them: the log is read synchronously in this process (better-sqlite3, memory), and 30,000 pods
   * read and decoded at once would hold every other request for a second or more (issue 35).
   * Later batches read at the first one's revision, so the result is one revision whatever is
   * written meanwhile; compacted past it meanwhile, a read at the latest revision starts over.
   */
  async list(prefix: string, options: StorageListOptions = {}): Promise<StorageListResult> {
    const listPrefix = validateListPrefix(this.prefix, prefix);
    const start =
      options.continueFrom === undefined
        ? listPrefix
        : validateContinueFrom(listPrefix, options.continueFrom);
    const end = prefixEnd(listPrefix);
    const limit = options.limit ?? 0;
    read: for (;;) {
      this.usable(prefix);
      const revision = this.readRevision(listPrefix, options.revision);
      const items: KubeObject[] = [];
      const keys: string[] = [];
      const corrupt: StorageError[] = [];
      let read = 0;
      let count: number | undefined;
      let from = start;
      for (;;) {
        // 0: the rest at once (the log's range reads everything up to `end`).
        const batchSize = this.rangeBatch > 0 ? this.rangeBatch : Infinity;
        const left = limit > 0 ? limit - read : Infinity;
        const bound = Math.min(batchSize, left);
        const want = bound === Infinity ? 0 : bound;
        const batch = this.log.range(from, end, revision, want);
        count ??= batch.count;
        read += batch.rows.length;
        const decoded = decodeRows(
          listPrefix,
          batch.rows,
          (row) => row.key,
          (row) => this.objects.decode(row.key, row.value, row.modRevision),
          true,
        );
        // Not push(...): a range read at once may hold more rows than a call takes arguments.
        for (let i = 0; i < decoded.items.length; i++) {
          items.push(decoded.items[i]!);
          keys.push(decoded.keys[i]!);
        }
        for (const err of decoded.corrupt ?? []) corrupt.push(err);
        const done =
          want === 0 || batch.rows.length < want || read >= count || (limit > 0 && read >= limit);
        if (done) break;
        from = `${batch.rows.at(-1)!.key}\u0000`;
        await yieldToEventLoop();
        this.usable(prefix);
        if (revision < this.log.compactedRevision()) {
          if (options.revision)
            throw StorageError.expired(listPrefix, revision, this.log.compactedRevision());
          continue read;
        }
      }
      if (corrupt.length > 0 && !options.skipCorrupt)
        throw StorageError.corruptList(listPrefix, corrupt);
      const remaining = count - read;
      return {
        items,
        keys,
        ...(corrupt.length > 0 ? { corrupt } : {}),
        revision,
        more: remaining > 0,
        remaining,
      };
    }
  }

  count(prefix: string): Promise<number> {
    return run(() => {
      const listPrefix = validateListPrefix(this.prefix, prefix);
      this.usable(prefix);
      return this.log.range(listPrefix, prefixEnd(listPrefix), this.log.currentRevision(), 1).count;
    });
  }

  create(key: string, object: KubeObject): Promise<KubeObject> {
    return run(() => {
      validateKey(this.prefix, key);
      const data = this.objects.encode(key, object);
      this.usable(key);
      return this.committed(this.log.create(key, data));
    });
  }

  update(key: string, object: KubeObject, options: StorageUpdateOptions = {}): Promise<KubeObject> {
    return run(() => {
      validateKey(this.prefix, key);
      const data = this.objects.encode(key, object);
      this.usable(key);
      return this.committed(this.log.update(key, data, options.expectedRevision));
    });
  }

  /**
   * update() of JSON guaranteedUpdate has already encoded, so a write encodes its object once;
   * on a conflict, the key's state now (undefined: gone), as the etcd3 transaction reads it.
   */
  updateEncoded(
    key: string,
    json: string,
    expectedRevision: Revision,
  ): Promise<{ updated: KubeObject } | { current: KubeObject | undefined }> {
    return run(() => {
      validateKey(this.prefix, key);
      const data = this.objects.fromJson(key, json);
      this.usable(key);
      let record: LogRecord;
      try {
        record = this.log.update(key, data, expectedRevision);
      } catch (err) {
        if (!isStorageError(err, 'ResourceVersionConflicts') && !isStorageError(err, 'KeyNotFound'))
          throw err;
        const row = this.log.get(key);
        return { current: row && this.objects.decode(key, row.value, row.modRevision) };
      }
      return { updated: this.committed(record) };
    });
  }

  async guaranteedUpdate(
    key: string,
    tryUpdate: TryUpdate,
    cachedExisting?: KubeObject,
  ): Promise<KubeObject> {
    validateKey(this.prefix, key);
    return guaranteedUpdate(this, key, tryUpdate, cachedExisting, this.ownJson(key));
  }

  /**
   * The key's stored JSON when this process encoded it (see ownsValues and no transformer's
   * bytes), so an update starts from it instead of encoding the watch cache's copy again.
   */
  private ownJson(key: string): WrittenState | undefined {
    if (!this.ownsValues || this.closed) return undefined;
    const row = this.log.get(key);
    return row && typeof row.value === 'string'
      ? { json: row.value, revision: row.modRevision }
      : undefined;
  }

  delete(key: string, options: StorageDeleteOptions = {}): Promise<KubeObject> {
    return run(() => {
      validateKey(this.prefix, key);
      this.usable(key);
      const record = this.log.delete(key, options.expectedRevision);
      this.hub.publish(record);
      return this.objects.decode(key, record.prev!.value, record.revision);
    });
  }

  watch(prefix: string, options: StorageWatchOptions = {}): StorageWatch {
    let watchPrefix: string;
    try {
      watchPrefix = validateListPrefix(this.prefix, prefix);
      this.usable(prefix);
    } catch (err) {
      const channel = new WatchChannel();
      channel.fail(err as StorageError);
      return channel;
    }
    return this.hub.watch(watchPrefix, options);
  }

  currentRevision(): Promise<Revision> {
    return run(() => {
      this.usable(this.prefix);
      return this.log.currentRevision();
    });
  }

  compact(revision: Revision): Promise<void> {
    return run(() => {
      this.usable(this.prefix);
      const current = this.log.currentRevision();
      if (revision > current)
        throw StorageError.resourceVersionTooLarge(this.prefix, revision, current);
      // Compacting to an already compacted revision is a no-op, so competing compactors agree.
      if (revision > this.log.compactedRevision()) this.log.compact(revision);
    });
  }

  compactRevision(): Revision {
    return this.closed ? 0 : this.log.compactedRevision();
  }

  close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      this.compactor.stop();
      this.hub.closeAll();
      this.log.close();
    }
    return Promise.resolve();
  }

  /** The revision a list reads at: latest, or one still in history. */
  private readRevision(key: string, requested: Revision | undefined): Revision {
    const current = this.log.currentRevision();
    if (!requested) return current;
    if (requested > current) throw StorageError.resourceVersionTooLarge(key, requested, current);
    const compacted = this.log.compactedRevision();
    if (requested < compacted) throw StorageError.expired(key, requested, compacted);
    return requested;
  }

  private committed(record: LogRecord): KubeObject {
    this.hub.publish(record);
    return this.objects.decode(record.key, record.value!, record.revision);
  }
}

/** Runs a synchronous step as a promise, so validation errors reject instead of throwing. */
function run<T>(step: () => T): Promise<T> {
  return new Promise((resolve) => resolve(step()));
}
