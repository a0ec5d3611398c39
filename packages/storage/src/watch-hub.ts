import type { LogRecord } from './log-record.js';
import { toChange } from './log-record.js';
import { plainObjects, type StoredObjectCodec } from './stored-object.js';
import type { Revision, StorageWatch, StorageWatchOptions } from './storage.js';
import { StorageError, isStorageError } from './storage-error.js';
import { WatchChannel } from './watch-channel.js';

/** What a backend that owns its revision log in this process offers its watchers. */
export interface LogSource {
  currentRevision(): Revision;
  compactedRevision(): Revision;
  /** Records with revision > `after` for keys under `prefix` (ending in '/'), oldest first. */
  history(prefix: string, after: Revision): Iterable<LogRecord>;
}

interface Watcher {
  prefix: string;
  /** Deliver only records after this revision. */
  after: Revision;
  channel: WatchChannel;
  /** Something was delivered since the last progress tick. */
  active: boolean;
  timer: NodeJS.Timeout | undefined;
  /**
   * Its queue reached the bound: live writes are not queued for it; it catches up from the log
   * once its consumer has drained the queue (etcd's unsynced watchers).
   */
  lagging: boolean;
}

/** Events queued for one watcher at most; past it the watcher reads the log instead. */
export const WATCH_QUEUE_BOUND = 1_000;

/**
 * Watches served from a revision log owned by this process (memory, SQLite). Every write is
 * published synchronously after it commits, so a watcher sees every revision exactly once, in
 * order, with no window for a gap. A watcher's queue is bounded: one whose consumer falls behind
 * (or that starts far back in history) stops receiving live writes and reads the log instead as
 * its consumer drains, as etcd serves its unsynced watchers.
 */
export class WatchHub {
  private readonly watchers = new Set<Watcher>();

  constructor(
    private readonly source: LogSource,
    private readonly progressNotifyInterval: number,
    private readonly objects: StoredObjectCodec = plainObjects,
    private readonly queueBound = WATCH_QUEUE_BOUND,
  ) {}

  /** `prefix`: validated, ending in '/'. */
  watch(prefix: string, options: StorageWatchOptions): StorageWatch {
    const current = this.source.currentRevision();
    const after = options.fromRevision ?? current;
    const watcher: Watcher = {
      prefix,
      after,
      active: false,
      timer: undefined,
      lagging: false,
      channel: new WatchChannel({
        onClose: () => this.remove(watcher),
        onProgressRequest: () => this.progress(watcher),
        onDrain: () => this.catchUp(watcher),
      }),
    };
    // etcd: a watch starting at revision after+1 is served while after+1 >= the compacted revision.
    const compacted = this.source.compactedRevision();
    if (after + 1 < compacted) {
      watcher.channel.fail(StorageError.expired(prefix, after, compacted));
      return watcher.channel;
    }
    this.watchers.add(watcher);
    if (after < current) {
      watcher.lagging = true;
      this.catchUp(watcher);
    }
    if (options.progressNotify && this.progressNotifyInterval > 0) {
      watcher.timer = setInterval(() => {
        if (!watcher.active) this.progress(watcher);
        watcher.active = false;
      }, this.progressNotifyInterval);
      watcher.timer.unref();
    }
    return watcher.channel;
  }

  /** Fans a committed write out to the watchers whose range holds its key. */
  publish(record: LogRecord): void {
    for (const watcher of this.watchers) {
      if (watcher.lagging || !record.key.startsWith(watcher.prefix)) continue;
      if (watcher.channel.queued >= this.queueBound) watcher.lagging = true;
      else this.deliver(watcher, record);
    }
  }

  /**
   * A lagging watcher reads the log from its last revision while its queue has room; once the
   * log has nothing newer it is live again. History compacted past it ends it with 410, as etcd
   * ends a slow watcher (ErrCompacted).
   */
  private catchUp(watcher: Watcher): void {
    if (!watcher.lagging || !this.watchers.has(watcher)) return;
    const compacted = this.source.compactedRevision();
    if (watcher.after + 1 < compacted) {
      watcher.channel.fail(StorageError.expired(watcher.prefix, watcher.after, compacted));
      this.remove(watcher);
      return;
    }
    for (const record of this.source.history(watcher.prefix, watcher.after)) {
      if (watcher.channel.queued >= this.queueBound) return;
      if (!this.deliver(watcher, record)) return;
    }
    watcher.lagging = false;
  }

  /** Ends every watch cleanly (the storage is closing). */
  closeAll(): void {
    for (const watcher of [...this.watchers]) watcher.channel.close();
  }

  private deliver(watcher: Watcher, record: LogRecord): boolean {
    if (record.revision <= watcher.after) return true;
    try {
      watcher.channel.push(toChange(record, this.objects));
    } catch (err) {
      watcher.channel.fail(isStorageError(err) ? err : StorageError.internal(record.key, err));
      this.remove(watcher);
      return false;
    }
    watcher.after = record.revision;
    watcher.active = true;
    return true;
  }

  private progress(watcher: Watcher): void {
    // Writes are delivered synchronously, so everything up to the current revision is queued,
    // unless the watcher lags: then only up to what it was given.
    if (watcher.lagging) return;
    const revision = Math.max(this.source.currentRevision(), watcher.after);
    watcher.channel.push({ type: 'PROGRESS', revision });
  }

  private remove(watcher: Watcher): void {
    this.watchers.delete(watcher);
    if (watcher.timer) clearInterval(watcher.timer);
  }
}
