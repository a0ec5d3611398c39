import { Etcd3 } from 'etcd3';
import { NAMESPACE } from './chaos-config.js';
import type { Seen } from './validate-watch.js';

/**
 * etcd's own history of the namespace's ConfigMaps, recorded live from the start by a raw etcd
 * watch (so compaction during the run cannot take it away), resumed after its last revision
 * when a member dies. `progress` is etcd's periodic notification: everything up to it is here.
 */
export class HistoryRecorder {
  readonly events: Seen[] = [];
  progress = 0;
  failure: string | undefined;
  private last: number;
  private compacted = 0;
  private readonly client: Etcd3;
  private stream:
    { cancel(): void; write(request: { progress_request: object }): void } | undefined;
  private stopped = false;
  private readonly prefix = `/registry/configmaps/${NAMESPACE}/`;

  constructor(endpoints: string[], from: number) {
    this.last = from;
    this.client = new Etcd3({
      hosts: endpoints,
      grpcOptions: {
        'grpc.initial_reconnect_backoff_ms': 100,
        'grpc.max_reconnect_backoff_ms': 1000,
      },
    });
    void this.connect();
  }

  /** Everything recorded is at least this far along. */
  get revision(): number {
    return Math.max(this.last, this.progress);
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    let stream;
    try {
      stream = await this.client.watchClient.watch();
    } catch {
      setTimeout(() => void this.connect(), 200);
      return;
    }
    this.stream = stream;
    let broken = false;
    const reconnect = () => {
      if (broken || this.stopped) return;
      broken = true;
      try {
        stream.cancel();
      } catch {
        // gone
      }
      setTimeout(() => void this.connect(), 200);
    };
    stream.on('error', reconnect);
    stream.on('end', reconnect);
    stream.on('data', (res) => {
      if (res.canceled) {
        if (Number(res.compact_revision) > 0)
          this.failure = `the history recorder fell behind a compaction at ${res.compact_revision}`;
        reconnect();
        return;
      }
      for (const e of res.events) {
        const rv = Number(e.kv.mod_revision);
        if (rv <= this.last) continue;
        this.last = rv;
        this.events.push({
          type:
            e.type === 'Delete'
              ? 'DELETED'
              : e.kv.create_revision === e.kv.mod_revision
                ? 'ADDED'
                : 'MODIFIED',
          name: e.kv.key.toString().slice(this.prefix.length),
          rv,
        });
      }
      // A progress notification: etcd's periodic one, or (3.4) the answer to a progress
      // request, which etcd 3.5+ sends as watch_id -1.
      if (!res.created && res.events.length === 0)
        this.progress = Math.max(this.progress, Number(res.header.revision));
    });
    stream.write({
      create_request: {
        key: Buffer.from(this.prefix),
        range_end: Buffer.from(this.prefix.slice(0, -1) + '0'),
        start_revision: this.last + 1,
        progress_notify: true,
      },
    });
  }

  /**
   * Asks etcd where the watch is. On etcd before 3.4.31/3.5.13 the answer may overtake an event
   * written at that moment (etcd#15220): asked only once every write has stopped, it cannot.
   * With etcd's default flags (periodic notifications every 10 minutes) it is the only way to
   * know the history is whole when the last revision is not a ConfigMap's.
   */
  requestProgress(): void {
    try {
      this.stream?.write({ progress_request: {} });
    } catch {
      // reconnecting: asked again
    }
  }

  /** Compacts etcd, never past what this recorder has: its history stays whole. */
  async compact(revision: number): Promise<number> {
    const at = Math.max(Math.min(revision, this.last), this.compacted);
    if (at === this.compacted) return at;
    try {
      await this.client.kv.compact({ revision: at });
    } catch (err) {
      // Compacted that far already (a retried request that had landed): nothing to do.
      if (!/compacted/.test(String(err))) throw err;
    }
    this.compacted = at;
    return at;
  }

  close(): void {
    this.stopped = true;
    this.stream?.cancel();
    this.client.close();
  }
}
