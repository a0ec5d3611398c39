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
}

/**
 * Watches served from a revision log owned by this process (memory, SQLite). Every write is
 * published synchronously after it commits and history is replayed synchronously on watch start,
 * so a watcher sees every revision exactly once, in order, with no window for a gap.
 */
export class WatchHub {
  private readonly watchers = new Set<Watcher>();

  constructor(
    private readonly source: LogSource,
    private readonly progressNotifyInterval: number,
    private readonly objects: StoredObjectCodec = plainObjects,
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
      channel: new WatchChannel({
        onClose: () => this.remove(watcher),
        onProgressRequest: () => this.progress(watcher),
      }),
    };
    // etcd: a watch starting at revision after+1 is served while after+1 >= the compacted revision.
    const compacted = this.source.compactedRevision();
    if (after + 1 < compacted) {
      watcher.channel.fail(StorageError.expired(prefix, after, compacted));
      return watcher.channel;
    }
    if (after < current) {
      for (const record of this.source.history(prefix, after)) {
        if (!this.deliver(watcher, record)) return watcher.channel;
      }
    }
    this.watchers.add(watcher);
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
      if (record.key.startsWith(watcher.prefix)) this.deliver(watcher, record);
    }
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
    // Writes are delivered synchronously, so everything up to the current revision is queued.
    const revision = Math.max(this.source.currentRevision(), watcher.after);
    watcher.channel.push({ type: 'PROGRESS', revision });
  }

  private remove(watcher: Watcher): void {
    this.watchers.delete(watcher);
    if (watcher.timer) clearInterval(watcher.timer);
  }
}
