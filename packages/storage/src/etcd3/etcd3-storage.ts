import type { KubeObject } from '@listwatch/api';
import type { Etcd3, ICompare, IRequestOp, KVClient } from 'etcd3';
import type * as Etcd3Module from 'etcd3';
import { Compactor, DEFAULT_COMPACTION_INTERVAL, type CompactionClaim } from '../compactor.js';
import { guaranteedUpdate, type WrittenState } from '../guaranteed-update.js';
import {
  DEFAULT_PREFIX,
  prefixEnd,
  validateContinueFrom,
  validateKey,
  validateListPrefix,
  validateStoragePrefix,
} from '../keys.js';
import { DEFAULT_PROGRESS_NOTIFY_INTERVAL } from '../log-storage.js';
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
} from '../storage.js';
import { StorageError, isStorageError } from '../storage-error.js';
import { decodeObject, decodeRows, encodeObject, StoredObjectCodec } from '../stored-object.js';
import { WatchChannel } from '../watch-channel.js';
import { WATCH_QUEUE_BOUND } from '../watch-hub.js';
import { isFutureRevisionError, isTransient, neverSent, toStorageError } from './etcd3-errors.js';
import { Etcd3Watch } from './etcd3-watch.js';
import {
  ETCD_FLOW_CONTROL_WINDOW,
  Etcd3Unary,
  type KeyValue,
  type TxnAnswer,
} from './etcd3-unary.js';
import { HostHealth } from './host-health.js';
import { ProgressSupport } from './progress-support.js';
import { loadOptionalPeer } from '../optional-peer.js';

/** grpc call options (a deadline), typed off the client so grpc-js need not be a dependency. */
type CallOptions = NonNullable<Parameters<KVClient['range']>[1]>;

export const DEFAULT_ETCD_ENDPOINTS = ['http://127.0.0.1:2379'];

/** The key kube-apiserver's compactors coordinate through (etcd3/compact.go compactRevKey). */
export const COMPACT_REV_KEY = 'compact_rev_key';

export interface Etcd3StorageOptions extends BackendOptions {
  /** Client URLs of the etcd members (`--etcd-servers`). */
  endpoints?: string[];
  /** Every operation answers or fails with Unreachable within this many ms (default 5 s). */
  requestTimeout?: number;
  /** Called after each compaction this storage's compactor made (not the other apiservers'). */
  onCompacted?: (revision: Revision) => void;
  /** A watch without a working stream this long fails with Unreachable (default 30 s). */
  watchReconnectTimeout?: number;
  /** Events queued per watch at most before it catches up from etcd's history (default 1,000). */
  watchQueueBound?: number;
}

/** Characters of JSON the storage keeps of its own latest writes (see `written`). */
const WRITTEN_BYTES = 4 * 1024 * 1024;

const deadlineOf = (o: CallOptions): number => {
  const d = o.deadline;
  return d instanceof Date ? d.getTime() : Number(d);
};

function revisionOf(kv: { mod_revision: string }): Revision {
  return Number(kv.mod_revision);
}

/**
 * Storage in a real etcd cluster, as kube-apiserver keeps it: one key per object, the etcd
 * revision as resourceVersion, writes as transactions comparing the key's mod revision
 * (k8s.io/apiserver/pkg/storage/etcd3/store.go).
 */
export class Etcd3Storage implements Storage {
  readonly prefix: string;
  readonly endpoints: readonly string[];
  private readonly client: Etcd3;
  /** Range and Txn on a connected member without grpc-js (etcd3-unary.ts). */
  private readonly unary: Etcd3Unary;
  private readonly compactor: Compactor;
  /** The newest compaction made through this client (etcd tells no one else's without a read). */
  private compacted: Revision = 0;
  private readonly objects: StoredObjectCodec;
  private readonly watches = new Set<Etcd3Watch>();
  /** Watches still finding out "now"; this client's writes wait for them (see watch()). */
  private readonly starting = new Set<Promise<unknown>>();
  private readonly requestTimeout: number;
  private readonly watchReconnectTimeout: number;
  private readonly progressNotifyInterval: number;
  private readonly watchQueueBound: number;
  private readonly progressSupport: ProgressSupport;
  /**
   * The latest state this client wrote under each recently written key, oldest first, at most
   * WRITTEN_BYTES of JSON: guaranteedUpdate starts from it when the watch cache has not caught
   * up yet, instead of reading the key (the write's compare-and-swap proves it current).
   */
  private readonly written = new Map<string, WrittenState>();
  private writtenBytes = 0;
  private closed = false;

  constructor(options: Etcd3StorageOptions = {}) {
    this.prefix = validateStoragePrefix(options.prefix ?? DEFAULT_PREFIX);
    this.endpoints = options.endpoints?.length ? [...options.endpoints] : DEFAULT_ETCD_ENDPOINTS;
    this.requestTimeout = options.requestTimeout ?? 5_000;
    this.objects = new StoredObjectCodec(options.transformerFor);
    this.watchReconnectTimeout = options.watchReconnectTimeout ?? 30_000;
    this.watchQueueBound = options.watchQueueBound ?? WATCH_QUEUE_BOUND;
    this.progressNotifyInterval =
      options.progressNotifyInterval ?? DEFAULT_PROGRESS_NOTIFY_INTERVAL;
    this.progressSupport = new ProgressSupport(this.endpoints, this.requestTimeout);
    void this.progressSupport.check();
    const etcd3 = loadOptionalPeer<typeof Etcd3Module>('etcd3', 'etcd3');
    const health = new HostHealth(this.endpoints);
    this.unary = new Etcd3Unary(this.endpoints, health, etcd3);
    this.client = new etcd3.Etcd3({
      hosts: [...this.endpoints],
      faultHandling: health.options(),
      grpcOptions: {
        // Reconnect quickly to a restarted member (grpc's default backoff grows to 2 minutes).
        'grpc.initial_reconnect_backoff_ms': 100,
        'grpc.max_reconnect_backoff_ms': 1_000,
        // kube-apiserver lifts the receive limit too: a LIST can be far over grpc's 4 MiB.
        'grpc.max_receive_message_length': -1,
        'grpc.use_local_subchannel_pool': 1,
        // The watch streams: the stream's and the connection's window (etcd3-unary.ts).
        'grpc-node.flow_control_window': ETCD_FLOW_CONTROL_WINDOW,
      },
    });
    this.compactor = new Compactor(this, {
      interval: options.compactionInterval ?? DEFAULT_COMPACTION_INTERVAL,
      coordinator: { claim: (round, revision) => this.claimCompaction(round, revision) },
      ...(options.onCompacted ? { onCompacted: options.onCompacted } : {}),
    }).start();
  }

  /**
   * Runs one etcd call within the request timeout. Reads are retried on another member after any
   * network failure; writes only when the request certainly never left (a retried write that did
   * land would report a false conflict).
   */
  private async call<T>(
    key: string,
    idempotent: boolean,
    op: (options: CallOptions) => Promise<T>,
  ): Promise<T> {
    if (this.closed) throw StorageError.unreachable(key, 'storage is closed');
    const deadline = Date.now() + this.requestTimeout;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            StorageError.unreachable(key, `etcd did not answer within ${this.requestTimeout} ms`),
          ),
        this.requestTimeout,
      );
    });
    const attempt = async (): Promise<T> => {
      for (let tries = 1; ; tries++) {
        try {
          return await op({ deadline: new Date(deadline) });
        } catch (err) {
          const retry = idempotent ? isTransient(err) : neverSent(err);
          if (
            !retry ||
            this.closed ||
            Date.now() + 100 >= deadline ||
            tries > this.endpoints.length * 2
          )
            throw err;
          await new Promise((r) => setTimeout(r, Math.min(50 * tries, 250)));
        }
      }
    };
    try {
      return await Promise.race([attempt(), timeout]);
    } catch (err) {
      throw toStorageError(key, err);
    } finally {
      clearTimeout(timer);
    }
  }

  private async beforeWrite(): Promise<void> {
    if (this.starting.size > 0) await Promise.all(this.starting);
  }

  private decode(kv: KeyValue, revision = revisionOf(kv)): KubeObject {
    return this.objects.decode(kv.key.toString('utf8'), kv.value, revision);
  }

  async get(key: string): Promise<KubeObject | undefined> {
    validateKey(this.prefix, key);
    const request = { key: Buffer.from(key) };
    const res = await this.call(
      key,
      true,
      (o) => this.unary.range(request, deadlineOf(o)) ?? this.client.kv.range(request, o),
    );
    const kv = res.kvs[0];
    return kv && this.decode(kv);
  }

  async list(prefix: string, options: StorageListOptions = {}): Promise<StorageListResult> {
    const listPrefix = validateListPrefix(this.prefix, prefix);
    const start =
      options.continueFrom === undefined
        ? listPrefix
        : validateContinueFrom(listPrefix, options.continueFrom);
    const requested = options.revision ?? 0;
    const res = await this.call(listPrefix, true, (o) =>
      this.client.kv.range(
        {
          key: Buffer.from(start),
          range_end: Buffer.from(prefixEnd(listPrefix)),
          limit: options.limit ?? 0,
          revision: requested,
        },
        o,
      ),
    ).catch(async (err: unknown) => {
      if (isStorageError(err, 'Expired')) throw StorageError.expired(listPrefix, requested);
      if (isStorageError(err) && isFutureRevisionError(err.cause)) {
        throw StorageError.resourceVersionTooLarge(
          listPrefix,
          requested,
          await this.currentRevision(),
        );
      }
      throw err;
    });
    const remaining = Number(res.count) - res.kvs.length;
    return {
      ...decodeRows(
        listPrefix,
        res.kvs,
        (kv) => kv.key.toString('utf8'),
        (kv) => this.decode(kv),
        options.skipCorrupt,
      ),
      revision: requested || Number(res.header.revision),
      more: res.more,
      remaining,
    };
  }

  async count(prefix: string): Promise<number> {
    const listPrefix = validateListPrefix(this.prefix, prefix);
    const res = await this.call(listPrefix, true, (o) =>
      this.client.kv.range(
        {
          key: Buffer.from(listPrefix),
          range_end: Buffer.from(prefixEnd(listPrefix)),
          count_only: true,
        },
        o,
      ),
    );
    return Number(res.count);
  }

  async create(key: string, object: KubeObject): Promise<KubeObject> {
    validateKey(this.prefix, key);
    const json = encodeObject(key, object);
    const data = this.objects.fromJson(key, json);
    await this.beforeWrite();
    const res = await this.txn(
      key,
      [{ key: Buffer.from(key), target: 'Create', result: 'Equal', create_revision: 0 }],
      {
        request_put: { key: Buffer.from(key), value: Buffer.from(data) },
      },
    );
    if (!res.succeeded) throw StorageError.keyExists(key);
    return this.wrote(key, json, Number(res.header.revision));
  }

  async update(
    key: string,
    object: KubeObject,
    options: StorageUpdateOptions = {},
  ): Promise<KubeObject> {
    validateKey(this.prefix, key);
    const json = encodeObject(key, object);
    const res = await this.put(key, json, options.expectedRevision);
    if (!res.succeeded) {
      this.forget(key);
      this.failed(key, res, options.expectedRevision);
    }
    return this.wrote(key, json, Number(res.header.revision));
  }

  /** guaranteedUpdate's write: a failed compare answers with the key's current state. */
  async updateEncoded(
    key: string,
    json: string,
    expectedRevision: Revision,
  ): Promise<{ updated: KubeObject } | { current: KubeObject | undefined }> {
    validateKey(this.prefix, key);
    const res = await this.put(key, json, expectedRevision);
    if (res.succeeded) return { updated: this.wrote(key, json, Number(res.header.revision)) };
    this.forget(key);
    const current = res.responses[0]?.response_range.kvs[0];
    return { current: current && this.decode(current) };
  }

  private async put(
    key: string,
    json: string,
    expectedRevision: Revision | undefined,
  ): Promise<TxnAnswer> {
    const data = this.objects.fromJson(key, json);
    await this.beforeWrite();
    return this.txn(key, [this.modCompare(key, expectedRevision)], {
      request_put: { key: Buffer.from(key), value: Buffer.from(data) },
    });
  }

  /** The object just written, from its JSON (no round trip through the transformer). */
  private wrote(key: string, json: string, revision: Revision): KubeObject {
    const known = this.written.get(key);
    // Responses to concurrent writes of one key may arrive in any order: keep the newest.
    if (!known || known.revision < revision) {
      this.forget(key);
      if (json.length <= WRITTEN_BYTES / 16) {
        this.written.set(key, { json, revision });
        this.writtenBytes += json.length;
        for (const [oldest, state] of this.written) {
          if (this.writtenBytes <= WRITTEN_BYTES) break;
          this.written.delete(oldest);
          this.writtenBytes -= state.json.length;
        }
      }
    }
    return decodeObject(key, json, revision);
  }

  private forget(key: string): void {
    const known = this.written.get(key);
    if (!known) return;
    this.written.delete(key);
    this.writtenBytes -= known.json.length;
  }

  async guaranteedUpdate(
    key: string,
    tryUpdate: TryUpdate,
    cachedExisting?: KubeObject,
  ): Promise<KubeObject> {
    validateKey(this.prefix, key);
    return await guaranteedUpdate(this, key, tryUpdate, cachedExisting, this.written.get(key));
  }

  async delete(key: string, options: StorageDeleteOptions = {}): Promise<KubeObject> {
    validateKey(this.prefix, key);
    await this.beforeWrite();
    this.forget(key);
    const res = await this.txn(key, [this.modCompare(key, options.expectedRevision)], {
      request_delete_range: { key: Buffer.from(key), prev_kv: true },
    });
    if (!res.succeeded) this.failed(key, res, options.expectedRevision);
    const prev = res.responses[0]?.response_delete_range.prev_kvs[0];
    if (!prev) throw StorageError.keyNotFound(key);
    return this.decode(prev, Number(res.header.revision));
  }

  /** Exactly this mod revision, or (none expected) any: the key exists. */
  private modCompare(key: string, expected: Revision | undefined): ICompare {
    return expected === undefined
      ? { key: Buffer.from(key), target: 'Mod', result: 'Greater', mod_revision: 0 }
      : { key: Buffer.from(key), target: 'Mod', result: 'Equal', mod_revision: expected };
  }

  /** One compare-and-swap; the else branch reads the key so a failure can say why. */
  private txn(key: string, compare: ICompare[], success: IRequestOp): Promise<TxnAnswer> {
    const request = {
      compare,
      success: [success],
      failure: [{ request_range: { key: Buffer.from(key) } }],
    };
    return this.call(
      key,
      false,
      (o) => this.unary.txn(request, deadlineOf(o)) ?? this.client.kv.txn(request, o),
    );
  }

  private failed(key: string, res: TxnAnswer, expected: Revision | undefined): never {
    const current = res.responses[0]?.response_range.kvs[0];
    if (!current) throw StorageError.keyNotFound(key);
    throw StorageError.revisionConflict(key, expected ?? 0, revisionOf(current));
  }

  watch(prefix: string, options: StorageWatchOptions = {}): StorageWatch {
    let watchPrefix: string;
    try {
      watchPrefix = validateListPrefix(this.prefix, prefix);
      if (this.closed) throw StorageError.unreachable(prefix, 'storage is closed');
    } catch (err) {
      const channel = new WatchChannel();
      channel.fail(err as StorageError);
      return channel;
    }
    let after: Revision | (() => Promise<Revision>);
    if (options.fromRevision !== undefined) {
      after = options.fromRevision;
    } else {
      // "From now" needs the current revision, which takes a round trip. Until it is known this
      // client's own writes wait, so a write issued after watch() returns is always seen.
      const known = this.currentRevision();
      const settled = known.then(
        () => undefined,
        () => undefined,
      );
      this.starting.add(settled);
      void settled.then(() => this.starting.delete(settled));
      after = () => known;
    }
    const watch: Etcd3Watch = new Etcd3Watch({
      client: this.client,
      prefix: watchPrefix,
      after,
      progressNotify: options.progressNotify ?? false,
      progressNotifyInterval: this.progressNotifyInterval,
      reconnectTimeout: this.watchReconnectTimeout,
      createTimeout: this.requestTimeout,
      objects: this.objects,
      queueBound: this.watchQueueBound,
      progressRequests: () => this.progressSupport.reliable,
      onEnd: () => this.watches.delete(watch),
    });
    this.watches.add(watch);
    return watch.channel;
  }

  /**
   * Whether every etcd member answers watch progress requests in order with events (etcd
   * 3.4.31+, 3.5.13+; progress-support.ts), as kube's feature support checker decides
   * RequestWatchProgress. Without it the watch cache serves no consistent read.
   */
  supportsProgressRequests(): Promise<boolean> {
    return this.progressSupport.check();
  }

  async currentRevision(): Promise<Revision> {
    // kube-apiserver's GetCurrentResourceVersion: a linearizable limit-1 read of the prefix.
    const listPrefix = `${this.prefix}/`;
    const res = await this.call(this.prefix, true, (o) =>
      this.client.kv.range(
        {
          key: Buffer.from(listPrefix),
          range_end: Buffer.from(prefixEnd(listPrefix)),
          limit: 1,
          keys_only: true,
        },
        o,
      ),
    );
    return Number(res.header.revision);
  }

  /**
   * compact.go's compare-and-swap on `compact_rev_key` (outside any prefix: compaction is the
   * whole cluster's): the put succeeds only while the key's version is the round this
   * apiserver saw, so one apiserver per round wins; the others learn the round from the key.
   */
  private async claimCompaction(round: number, revision: Revision): Promise<CompactionClaim> {
    const key = Buffer.from(COMPACT_REV_KEY);
    const res = await this.call(COMPACT_REV_KEY, false, (o) =>
      this.client.kv.txn(
        {
          compare: [{ key, target: 'Version', result: 'Equal', version: round }],
          success: [{ request_put: { key, value: Buffer.from(String(revision)) } }],
          failure: [{ request_range: { key } }],
        },
        o,
      ),
    );
    const current = Number(res.header.revision);
    if (res.succeeded) return { round: round + 1, revision: current, won: true };
    const kv = res.responses[0]?.response_range.kvs[0];
    // The winner stored the revision it compacted to: this apiserver knows it is gone too.
    const compactedByOther = Number(kv?.value.toString() ?? 0);
    if (Number.isSafeInteger(compactedByOther))
      this.compacted = Math.max(this.compacted, compactedByOther);
    return { round: Number(kv?.version ?? 0), revision: current, won: false };
  }

  compactRevision(): Revision {
    return this.compacted;
  }

  async compact(revision: Revision): Promise<void> {
    try {
      await this.call(this.prefix, true, (o) => this.client.kv.compact({ revision }, o));
      this.compacted = Math.max(this.compacted, revision);
    } catch (err) {
      // Already compacted that far: a no-op, as for the other backends.
      if (isStorageError(err, 'Expired')) {
        this.compacted = Math.max(this.compacted, revision);
        return;
      }
      if (isStorageError(err) && isFutureRevisionError(err.cause)) {
        throw StorageError.resourceVersionTooLarge(
          this.prefix,
          revision,
          await this.currentRevision(),
        );
      }
      throw err;
    }
  }

  close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      this.compactor.stop();
      this.progressSupport.stop();
      for (const watch of [...this.watches]) watch.close();
      this.written.clear();
      this.unary.close();
      this.client.close();
    }
    return Promise.resolve();
  }
}
