import type { Etcd3, IDuplexStream, IWatchRequest, IWatchResponse } from 'etcd3';
import { prefixEnd } from '../keys.js';
import { toChange, type LogRecord } from '../log-record.js';
import type { StoredObjectCodec } from '../stored-object.js';
import type { Revision } from '../storage.js';
import { StorageError, isStorageError } from '../storage-error.js';
import { WatchChannel } from '../watch-channel.js';

type WatchStream = IDuplexStream<IWatchRequest, IWatchResponse>;

const RECONNECT_BACKOFF_MIN = 100;
const RECONNECT_BACKOFF_MAX = 1_000;

export interface Etcd3WatchOptions {
  client: Etcd3;
  /** Validated, ending in '/'. */
  prefix: string;
  /** Deliver changes after this revision; a function resolves "now" when the watch starts. */
  after: Revision | (() => Promise<Revision>);
  progressNotify: boolean;
  progressNotifyInterval: number;
  /**
   * Whether etcd answers progress requests in order with events (progress-support.ts). When it
   * does not, requests are not sent: PROGRESS comes only from etcd's own periodic notifications
   * (`progress_notify`, every --experimental-watch-progress-notify-interval), which etcd sends
   * through the watcher's event queue once it is synced, so they never overtake an event.
   */
  progressRequests: () => boolean;
  /** How long a watch may stay without a working stream before it fails with Unreachable. */
  reconnectTimeout: number;
  /** How long etcd may take to confirm a watch it was asked to create. */
  createTimeout: number;
  /** How stored values become objects (the storage's transformers). */
  objects: StoredObjectCodec;
  /** Most events queued for the consumer (plus what etcd sent before the cancel); see `lagging`. */
  queueBound: number;
  onEnd: () => void;
}

/**
 * One storage watch over its own etcd watch stream. It owns the resume point: the revision of
 * the last event delivered, never the stream's header revision (the etcd3 package resumes from
 * the header and can skip events), and re-creates the etcd watch from there after any stream
 * failure, on whichever member answers. Compaction of that point ends it with 410 Expired; no
 * working stream for `reconnectTimeout` ends it with Unreachable. It never stalls silently.
 */
export class Etcd3Watch {
  readonly channel: WatchChannel;
  /** Everything up to here has been delivered. */
  private after: Revision = 0;
  private stream: WatchStream | undefined;
  private created = false;
  private ended = false;
  private backoff = RECONNECT_BACKOFF_MIN;
  private disconnectedSince: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  /** Events delivered since the last idle tick. */
  private active = false;
  /** A progress request is outstanding (sent again on a new stream until answered). */
  private progressWanted = false;
  private lastProgress: Revision = 0;
  /**
   * The consumer fell `queueBound` events behind: the etcd watch is canceled and re-created from
   * the last queued revision once the queue drains, so a slow consumer costs a bounded queue here
   * and etcd serves the rest from its history (an unsynced watcher, mvcc/watchable_store.go), or
   * 410 if it was compacted meanwhile — the policy of the in-process backends (watch-hub.ts).
   */
  private lagging = false;

  constructor(private readonly options: Etcd3WatchOptions) {
    this.channel = new WatchChannel({
      onClose: () => this.stop(),
      onProgressRequest: () => this.wantProgress(),
      onDrain: () => this.catchUp(),
    });
    void this.start();
  }

  private async start(): Promise<void> {
    const { after } = this.options;
    try {
      this.after = typeof after === 'number' ? after : await after();
    } catch (err) {
      this.fail(isStorageError(err) ? err : StorageError.unreachable(this.options.prefix, err));
      return;
    }
    this.lastProgress = this.after;
    if (this.options.progressNotify && this.options.progressNotifyInterval > 0) {
      this.idleTimer = setInterval(() => {
        if (!this.active && this.options.progressRequests()) this.wantProgress();
        this.active = false;
      }, this.options.progressNotifyInterval);
      this.idleTimer.unref();
    }
    await this.connect();
  }

  private async connect(): Promise<void> {
    if (this.ended || this.lagging) return;
    let stream: WatchStream;
    try {
      stream = await this.options.client.watchClient.watch();
    } catch (err) {
      this.retry(err);
      return;
    }
    if (this.ended) {
      stream.cancel();
      return;
    }
    this.stream = stream;
    this.created = false;
    stream.on('data', (res) => this.onResponse(stream, res));
    stream.on('error', (err) => this.onBroken(stream, err));
    stream.on('end', () => this.onBroken(stream, new Error('etcd closed the watch stream')));
    const { prefix } = this.options;
    stream.write({
      create_request: {
        key: Buffer.from(prefix),
        range_end: Buffer.from(prefixEnd(prefix)),
        start_revision: this.after + 1,
        prev_kv: true,
        progress_notify: this.options.progressNotify,
      },
    });
    // A member without quorum may never confirm (kubernetes#89881): do not wait forever.
    this.setTimer(() => {
      if (this.stream === stream && !this.created)
        this.onBroken(stream, new Error('etcd did not confirm the watch'));
    }, this.options.createTimeout);
  }

  private onResponse(stream: WatchStream, res: IWatchResponse): void {
    if (stream !== this.stream || this.ended) return;
    if (res.canceled) {
      this.onCanceled(stream, res);
      return;
    }
    if (res.created) {
      this.created = true;
      this.clearTimer();
      this.disconnectedSince = undefined;
      this.backoff = RECONNECT_BACKOFF_MIN;
      if (this.progressWanted) this.sendProgressRequest();
      return;
    }
    if (res.events.length === 0) {
      const revision = Number(res.header.revision);
      // watch_id -1 answers our progress request (on a fixed etcd: sent through the watchers'
      // queue once all are synced, server/etcdserver/api/v3rpc/watch.go RequestProgressAll);
      // otherwise it is etcd's own periodic notification, sent the same way.
      if (res.watch_id !== '-1' || this.progressWanted) this.emitProgress(revision);
      return;
    }
    const floor = this.after;
    let last = floor;
    for (const event of res.events) {
      const revision = Number(event.kv.mod_revision);
      // A re-created watch may repeat what was delivered; one revision never spans two responses.
      if (revision <= floor) continue;
      const record: LogRecord = {
        revision,
        key: event.kv.key.toString('utf8'),
        createRevision: Number(event.kv.create_revision),
        value: event.type === 'Delete' ? undefined : event.kv.value,
        prev: event.prev_kv
          ? { value: event.prev_kv.value, modRevision: Number(event.prev_kv.mod_revision) }
          : undefined,
      };
      try {
        this.channel.push(toChange(record, this.options.objects));
      } catch (err) {
        this.fail(isStorageError(err) ? err : StorageError.internal(record.key, err));
        return;
      }
      last = revision;
    }
    if (last === floor) return;
    this.after = last;
    this.active = true;
    if (this.channel.queued >= this.options.queueBound) this.pause(stream);
  }

  /** Stops reading from etcd until the consumer has drained the queue (see `lagging`). */
  private pause(stream: WatchStream): void {
    this.lagging = true;
    this.stream = undefined;
    this.created = false;
    this.clearTimer();
    this.disconnectedSince = undefined;
    try {
      stream.cancel();
    } catch {
      // already gone
    }
  }

  private catchUp(): void {
    if (!this.lagging || this.ended) return;
    this.lagging = false;
    void this.connect();
  }

  private onCanceled(stream: WatchStream, res: IWatchResponse): void {
    const compacted = Number(res.compact_revision);
    if (compacted > 0) {
      this.fail(StorageError.expired(this.options.prefix, this.after, compacted));
      return;
    }
    this.onBroken(
      stream,
      new Error(`etcd canceled the watch: ${res.cancel_reason || 'no reason given'}`),
    );
  }

  private onBroken(stream: WatchStream, err: unknown): void {
    if (stream !== this.stream || this.ended) return;
    this.stream = undefined;
    this.created = false;
    try {
      stream.cancel();
    } catch {
      // already gone
    }
    this.retry(err);
  }

  private retry(err: unknown): void {
    if (this.ended) return;
    const now = Date.now();
    this.disconnectedSince ??= now;
    if (now - this.disconnectedSince >= this.options.reconnectTimeout) {
      this.fail(StorageError.unreachable(this.options.prefix, err));
      return;
    }
    const delay = this.backoff;
    this.backoff = Math.min(this.backoff * 2, RECONNECT_BACKOFF_MAX);
    this.setTimer(() => void this.connect(), delay);
  }

  /** kube's RequestWatchProgress: answered with a PROGRESS at etcd's current revision. */
  private wantProgress(): void {
    if (this.ended || !this.options.progressRequests()) return;
    // Sent each time it is asked for: etcd does not answer while the watcher is unsynced
    // (RequestProgressAll), so a caller that still waits asks again (kube's progress requester).
    this.progressWanted = true;
    this.sendProgressRequest();
  }

  private sendProgressRequest(): void {
    if (this.stream && this.created) this.stream.write({ progress_request: {} });
  }

  private emitProgress(revision: Revision): void {
    const at = Math.max(revision, this.after);
    this.progressWanted = false;
    if (at < this.lastProgress) return;
    this.lastProgress = at;
    this.channel.push({ type: 'PROGRESS', revision: at });
  }

  private fail(error: StorageError): void {
    this.channel.fail(error);
    this.stop();
  }

  /** Ends the watch cleanly (the storage is closing). */
  close(): void {
    this.channel.close();
  }

  /** Releases everything: timers, the stream, the registration in the storage. */
  private stop(): void {
    if (this.ended) return;
    this.ended = true;
    this.clearTimer();
    if (this.idleTimer) clearInterval(this.idleTimer);
    const stream = this.stream;
    this.stream = undefined;
    if (stream) {
      try {
        stream.cancel();
      } catch {
        // already gone
      }
    }
    this.options.onEnd();
  }

  private setTimer(fn: () => void, ms: number): void {
    this.clearTimer();
    this.timer = setTimeout(fn, ms);
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
