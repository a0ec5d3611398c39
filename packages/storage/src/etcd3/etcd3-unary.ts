import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  connect,
  constants as h2,
  type ClientHttp2Session,
  type ClientHttp2Stream,
  type IncomingHttpHeaders,
} from 'node:http2';
import type { IRangeRequest, ITxnRequest } from 'etcd3';
import type * as Etcd3Module from 'etcd3';
import type * as Protobuf from 'protobufjs';
import type { HostHealth } from './host-health.js';

/**
 * The hot unary KV calls (Range, Txn) as plain gRPC over node:http2 with protobufjs codecs
 * compiled from etcd's own rpc.proto, kept in this package (proto/README.md says where from). grpc-js's per-call machinery (interceptors,
 * resolving, retrying and load-balancing calls, a captured stack per call, int64 as strings via
 * `long`) cost the apiserver more CPU per write than the rest of the storage layer; this path
 * only sends on a session that is already connected to a member the health check has not marked
 * down, so connecting, failover and everything else stay with the etcd3 client. Failures come
 * back as the same typed errors the etcd3 client gives (its castGrpcError over a grpc-js-shaped
 * error), so Etcd3Storage's retry and StorageError mapping see no difference.
 */

type Etcd3 = typeof Etcd3Module;

/**
 * What Etcd3Storage reads of etcd's answers, the same from both paths: the etcd3 client's shape
 * (snake_case, int64 as decimal strings), narrowed to the fields read.
 */
export interface KeyValue {
  key: Buffer;
  value: Buffer;
  create_revision: string;
  mod_revision: string;
  version: string;
}
export interface RangeAnswer {
  header: { revision: string };
  kvs: KeyValue[];
  more: boolean;
  count: string;
}
export interface TxnAnswer {
  header: { revision: string };
  succeeded: boolean;
  responses: { response_range: RangeAnswer; response_delete_range: { prev_kvs: KeyValue[] } }[];
}

interface Codec<T> {
  encode(message: unknown): Protobuf.Writer;
  decode(reader: Uint8Array): T;
  fromObject(object: unknown): unknown;
}

interface Codecs {
  txnRequest: Codec<unknown>;
  txnResponse: Codec<TxnAnswer>;
  rangeRequest: Codec<unknown>;
  rangeResponse: Codec<RangeAnswer>;
}

let codecs: Codecs | undefined;

/**
 * Flow-control window (bytes) for every HTTP/2 session to etcd, per stream and per connection.
 * HTTP/2 starts both at 64 KiB, so a watch stream or a LIST answer would come 64 KiB per round
 * trip through our event loop: under load, ~5 pod events (value + prev_kv) per loop turn, and
 * the watch cache falls seconds behind etcd. grpc-go (kube-apiserver's client) grows its windows
 * to 16 MiB with its BDP estimator; node's http2 and grpc-js keep the initial size.
 */
export const ETCD_FLOW_CONTROL_WINDOW = 4 * 1024 * 1024;

/** This package's copy of etcd's published API (proto/README.md: its source and pins). */
const PROTO_DIR = fileURLToPath(new URL('../../proto/', import.meta.url));

let etcdProto: Protobuf.Root | undefined;

/**
 * etcd's rpc.proto (and what it imports), parsed once; its enum values answer to the etcd3
 * client's names too.
 */
export function loadEtcdProto(): Protobuf.Root {
  if (etcdProto) return etcdProto;
  // Loaded with the etcd3 backend only, as etcd3 itself is (optional-peer.ts).
  const require = createRequire(import.meta.url);
  const protobuf = require('protobufjs') as typeof Protobuf;
  // protobufjs ships descriptor.proto, which gogo.proto and google/api extend.
  const bundled = dirname(require.resolve('protobufjs/package.json'));
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) =>
    join(target.startsWith('google/protobuf/') ? bundled : PROTO_DIR, target);
  root.loadSync('etcd/etcdserver/etcdserverpb/rpc.proto', { keepCase: true });
  addClientEnumNames(root, protobuf);
  return (etcdProto = root);
}

/**
 * `NOT_EQUAL` → `NotEqual`: the etcd3 client's spelling of etcd's enum values, which is what
 * Etcd3Storage's requests (typed as the etcd3 client's) carry.
 */
const etcd3ClientEnumName = (name: string): string =>
  name
    .toLowerCase()
    .split('_')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');

/** Each enum value of `root` also under the etcd3 client's name (an alias of the same number). */
function addClientEnumNames(root: Protobuf.Root, protobuf: typeof Protobuf): void {
  const visit = (ns: Protobuf.NamespaceBase): void => {
    for (const nested of ns.nestedArray) {
      if (nested instanceof protobuf.Enum) {
        nested.setOption('allow_alias', true);
        for (const [name, id] of Object.entries(nested.values)) {
          const alias = etcd3ClientEnumName(name);
          if (!(alias in nested.values)) nested.add(alias, id);
        }
      } else if (nested instanceof protobuf.Namespace) visit(nested);
    }
  };
  visit(root);
}

function loadCodecs(): Codecs {
  if (codecs) return codecs;
  const root = loadEtcdProto();
  const type = (name: string) => root.lookupType(`etcdserverpb.${name}`) as unknown as Codec<never>;
  codecs = {
    txnRequest: type('TxnRequest'),
    txnResponse: type('TxnResponse'),
    rangeRequest: type('RangeRequest'),
    rangeResponse: type('RangeResponse'),
  };
  return codecs;
}

/** grpc status names, for messages worded as grpc-js words them (`14 UNAVAILABLE: …`). */
const STATUS_NAMES = [
  'OK',
  'CANCELLED',
  'UNKNOWN',
  'INVALID_ARGUMENT',
  'DEADLINE_EXCEEDED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
  'UNAUTHENTICATED',
];
const UNAVAILABLE = 14;
const DEADLINE_EXCEEDED = 4;
const INTERNAL = 13;

/** int64 fields as the etcd3 client gives them (proto-loader `longs: String`). */
type Int64 = number | { toNumber(): number } | string;
const str = (v: Int64 | null | undefined): string =>
  v === null || v === undefined ? '0' : typeof v === 'object' ? String(v.toNumber()) : String(v);

interface Decoded {
  [field: string]: Int64;
}

/** Decoded KeyValues as the etcd3 client gives them. */
function fixKvs(kvs: KeyValue[] | null | undefined): void {
  if (!kvs) return;
  for (const kv of kvs as unknown as Decoded[]) {
    kv['create_revision'] = str(kv['create_revision']);
    kv['mod_revision'] = str(kv['mod_revision']);
    kv['version'] = str(kv['version']);
  }
}

function fixRange(res: RangeAnswer | null | undefined): void {
  if (!res) return;
  const header = res.header as unknown as Decoded | null;
  if (header) header['revision'] = str(header['revision']);
  fixKvs(res.kvs);
  (res as unknown as Decoded)['count'] = str(res.count);
}

function fixTxn(res: TxnAnswer): void {
  const header = res.header as unknown as Decoded | null;
  if (header) header['revision'] = str(header['revision']);
  for (const op of res.responses) {
    fixRange(op.response_range);
    fixKvs(op.response_delete_range?.prev_kvs);
  }
}

const CALL = Symbol('unary call');
/** Calls under way on a session: it holds the process open only while there are some. */
const ACTIVE = Symbol('active calls');
type CountedSession = ClientHttp2Session & { [ACTIVE]?: number };
type CallStream = ClientHttp2Stream & { [CALL]: UnaryCall<unknown> };

/** One unary call: its stream's answer so far, and how it settles. */
class UnaryCall<T> {
  readonly promise: Promise<T>;
  private resolve!: (value: T) => void;
  private reject!: (err: Error) => void;
  private readonly chunks: Buffer[] = [];
  private status: number | undefined;
  private message = '';
  private done = false;

  constructor(
    private readonly client: Etcd3Unary,
    readonly member: Member,
    readonly session: ClientHttp2Session,
    readonly stream: ClientHttp2Stream,
    readonly deadline: number,
    private readonly decode: (bytes: Uint8Array) => T,
  ) {
    this.promise = new Promise<T>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  response(headers: IncomingHttpHeaders): void {
    const http = Number(headers[h2.HTTP2_HEADER_STATUS]);
    if (http !== 200 && headers['grpc-status'] === undefined)
      this.fail(UNAVAILABLE, `Received HTTP status code ${http}`);
    else this.trailers(headers);
  }

  /** grpc-status and grpc-message, from the trailers (or a trailers-only response's headers). */
  trailers(headers: IncomingHttpHeaders): void {
    const s = headers['grpc-status'];
    if (s === undefined) return;
    this.status = Number(s);
    const m = headers['grpc-message'];
    this.message = typeof m === 'string' ? decodeURIComponent(m) : '';
  }

  data(chunk: Buffer): void {
    this.chunks.push(chunk);
  }

  fail(code: number, details: string): void {
    if (this.done) return;
    this.done = true;
    this.client.ended(this as UnaryCall<unknown>, false);
    if (!this.stream.destroyed) this.stream.close(h2.NGHTTP2_CANCEL);
    this.reject(this.client.error(this.member, code, details));
  }

  close(): void {
    if (this.done) return;
    if (this.status === undefined) return this.fail(UNAVAILABLE, 'Connection dropped');
    if (this.status !== 0) return this.fail(this.status, this.message);
    const chunks = this.chunks;
    const data = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    if (data.length < 5 || data[0] !== 0 || data.readUInt32BE(1) !== data.length - 5)
      return this.fail(INTERNAL, 'Malformed gRPC response');
    let result: T;
    try {
      result = this.decode(data.subarray(5));
    } catch (err) {
      return this.fail(INTERNAL, `Response message parsing error: ${(err as Error).message}`);
    }
    this.done = true;
    this.client.ended(this as UnaryCall<unknown>, true);
    this.resolve(result);
  }
}

function onResponse(this: CallStream, headers: IncomingHttpHeaders): void {
  this[CALL].response(headers);
}
function onTrailers(this: CallStream, headers: IncomingHttpHeaders): void {
  this[CALL].trailers(headers);
}
function onData(this: CallStream, chunk: Buffer): void {
  this[CALL].data(chunk);
}
function onError(this: CallStream, err: Error): void {
  this[CALL].fail(UNAVAILABLE, err.message);
}
function onClose(this: CallStream): void {
  this[CALL].close();
}

class Member {
  session: ClientHttp2Session | undefined;
  ready = false;
  private nextConnect = 0;

  constructor(
    readonly host: string,
    private readonly url: string,
  ) {}

  /** The connected session, or undefined (then one is on its way unless tried a moment ago). */
  usable(): ClientHttp2Session | undefined {
    if (this.ready) return this.session;
    if (!this.session && Date.now() >= this.nextConnect) this.connect();
    return undefined;
  }

  private connect(): void {
    this.nextConnect = Date.now() + 1_000;
    const session = connect(this.url, {
      // A LIST answer is not held back by flow control (grpc-go's BDP estimator grows its
      // windows the same way).
      settings: { initialWindowSize: ETCD_FLOW_CONTROL_WINDOW },
    });
    this.session = session;
    session.on('connect', () => {
      // The connection's own window stays at HTTP/2's 64 KiB unless raised: every answer on
      // this session would then arrive 64 KiB per round trip through our event loop.
      // A session closed before its 'connect' handler ran refuses the setting: it is dropped.
      if (session.destroyed || session.closed) return;
      session.setLocalWindowSize(ETCD_FLOW_CONTROL_WINDOW);
      if (this.session === session) this.ready = true;
    });
    const gone = () => this.drop(session);
    session.on('error', gone);
    session.on('goaway', gone);
    session.on('close', gone);
    session.unref();
  }

  /** `session` is no longer usable: the next call connects again (after the backoff). */
  drop(session: ClientHttp2Session): void {
    if (this.session !== session) return;
    this.session = undefined;
    this.ready = false;
  }

  close(): void {
    // Calls under way finish; no new ones start.
    this.session?.close();
    this.session = undefined;
    this.ready = false;
    this.nextConnect = Infinity;
  }
}

export class Etcd3Unary {
  private readonly members: Member[];
  private readonly codecs: Codecs;
  private readonly castGrpcError: Etcd3['castGrpcError'];
  private readonly pending = new Set<UnaryCall<unknown>>();
  private readonly sweeper: NodeJS.Timeout;
  private next = 0;

  constructor(
    endpoints: readonly string[],
    private readonly health: HostHealth,
    etcd3: Etcd3,
  ) {
    this.members = endpoints
      // TLS endpoints keep to the etcd3 client (its credentials); plain ones take this path.
      .filter((e) => !e.startsWith('https:'))
      .map((e) => {
        const url = /^https?:\/\//.test(e) ? e : `http://${e}`;
        return new Member(e, url);
      });
    this.codecs = loadCodecs();
    this.castGrpcError = etcd3.castGrpcError;
    // Calls past their deadline are cancelled here, as grpc-js cancels them, with one timer.
    this.sweeper = setInterval(() => this.sweep(), 500).unref();
  }

  /** A connected member's session the health check has not marked down. */
  private session(): { member: Member; session: ClientHttp2Session } | undefined {
    const n = this.members.length;
    for (let i = 0; i < n; i++) {
      const member = this.members[(this.next + i) % n]!;
      const session = member.usable();
      if (session && !session.destroyed && this.health.usable(member.host)) {
        this.next = (this.next + i + 1) % n;
        return { member, session };
      }
    }
    return undefined;
  }

  /** Txn on a ready session, or undefined: the caller sends it with the etcd3 client. */
  txn(request: ITxnRequest, deadline: number): Promise<TxnAnswer> | undefined {
    return this.unary(
      '/etcdserverpb.KV/Txn',
      this.codecs.txnRequest,
      request,
      deadline,
      this.decodeTxn,
    );
  }

  /** Range on a ready session, or undefined: the caller sends it with the etcd3 client. */
  range(request: IRangeRequest, deadline: number): Promise<RangeAnswer> | undefined {
    return this.unary(
      '/etcdserverpb.KV/Range',
      this.codecs.rangeRequest,
      request,
      deadline,
      this.decodeRange,
    );
  }

  private readonly decodeTxn = (bytes: Uint8Array): TxnAnswer => {
    const decoded = this.codecs.txnResponse.decode(bytes);
    fixTxn(decoded);
    return decoded;
  };

  private readonly decodeRange = (bytes: Uint8Array): RangeAnswer => {
    const decoded = this.codecs.rangeResponse.decode(bytes);
    fixRange(decoded);
    return decoded;
  };

  private unary<T>(
    path: string,
    codec: Codec<unknown>,
    request: unknown,
    deadline: number,
    decode: (bytes: Uint8Array) => T,
  ): Promise<T> | undefined {
    const picked = this.session();
    if (!picked) return undefined;
    const { member, session } = picked;
    const body = codec.encode(codec.fromObject(request)).finish();
    const frame = Buffer.allocUnsafe(5 + body.length);
    frame[0] = 0;
    frame.writeUInt32BE(body.length, 1);
    frame.set(body, 5);
    let stream: ClientHttp2Stream;
    try {
      stream = session.request(
        {
          [h2.HTTP2_HEADER_METHOD]: 'POST',
          [h2.HTTP2_HEADER_PATH]: path,
          [h2.HTTP2_HEADER_CONTENT_TYPE]: 'application/grpc',
          [h2.HTTP2_HEADER_TE]: 'trailers',
          'grpc-timeout': `${Math.max(1, deadline - Date.now())}m`,
        },
        { endStream: false },
      );
    } catch {
      // The session is closing (its close not yet seen): nothing was sent, so the call goes
      // with the etcd3 client instead, which may safely retry even a write elsewhere.
      member.drop(session);
      return undefined;
    }
    const call = new UnaryCall(this, member, session, stream, deadline, decode);
    // Like a grpc-js call, an answer awaited keeps the process alive; an idle session does not.
    const counted = session as CountedSession;
    if ((counted[ACTIVE] = (counted[ACTIVE] ?? 0) + 1) === 1) session.ref();
    this.pending.add(call as UnaryCall<unknown>);
    (stream as CallStream)[CALL] = call as UnaryCall<unknown>;
    // Listeners shared by every call (no closures per call): each finds its call on the stream.
    stream.on('response', onResponse);
    stream.on('trailers', onTrailers);
    stream.on('data', onData);
    stream.on('error', onError);
    stream.on('close', onClose);
    stream.end(frame);
    return call.promise;
  }

  /** A call has ended: it no longer needs sweeping; an answered call proves its member up. */
  ended(call: UnaryCall<unknown>, answered: boolean): void {
    this.pending.delete(call);
    const session: CountedSession = call.session;
    const left = (session[ACTIVE] ?? 1) - 1;
    session[ACTIVE] = left;
    if (left === 0) session.unref();
    if (answered) this.health.succeeded(call.member.host);
  }

  /** A failure as the etcd3 client gives it: grpc-js's error, cast by etcd3's castGrpcError. */
  error(member: Member, code: number, details: string): Error {
    const err = Object.assign(new Error(`${code} ${STATUS_NAMES[code] ?? code}: ${details}`), {
      code,
      details,
    });
    const cast = this.castGrpcError(err);
    if (code === UNAVAILABLE) this.health.failed(member.host, cast);
    return cast;
  }

  private sweep(): void {
    if (this.pending.size === 0) return;
    const now = Date.now();
    for (const p of [...this.pending])
      if (now >= p.deadline) p.fail(DEADLINE_EXCEEDED, 'Deadline exceeded');
  }

  close(): void {
    clearInterval(this.sweeper);
    for (const m of this.members) m.close();
  }
}
