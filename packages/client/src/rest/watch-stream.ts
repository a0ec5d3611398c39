import {
  ApiError,
  errorField,
  errorFromStatus,
  toApiError,
  type KubeObject,
  type Logger,
  type Status,
  type WatchEvent,
} from '@listwatch/api';
import {
  acceptFor,
  createWatchDecoder,
  decodeCbor,
  decodeProtobuf,
  decodeWebSocketMessage,
  responseEncodingOf,
  watchFormatOf,
  type Encoding,
  type StreamDecoder,
} from '@listwatch/codec';
import type { Dispatcher } from 'undici';
import { request, WebSocket } from './undici.js';
import { refreshTimer } from '../util/refresh-timer.js';
import type { KubernetesObject } from '../runtime/kubernetes-object.js';
import { ConnectionError, errorFromResponse, toConnectionError, WatchIdleError } from './errors.js';
import type { Credentials } from '../clientcmd/credentials.js';

/**
 * An open watch: iterate it for events. Iteration ends when the server closes the watch cleanly
 * (timeoutSeconds reached) and throws an ApiError otherwise: the Status of an ERROR event
 * (410 Expired when the resourceVersion is too old), a ConnectionError when the connection
 * breaks, a WatchIdleError when it goes silent. `close()` ends it from the client side; the
 * iteration then just ends.
 */
export interface WatchStream<T extends KubernetesObject = KubeObject> extends AsyncIterable<
  WatchStreamEvent<T>
> {
  close(): void;
}

/**
 * What iterating a WatchStream yields: metav1.WatchEvent without its ERROR member, since an
 * ERROR event is thrown as its Status's ApiError, never handed over.
 */
export type WatchStreamEvent<T extends object = KubeObject> = Exclude<
  WatchEvent<T>,
  { type: 'ERROR' }
>;

export type WatchTransport = 'http' | 'websocket';

/**
 * The default idle timeout of a watch that asked for bookmarks. kube-apiserver sends one about
 * every minute on a quiet watch (cacher bookmarkFrequency, delivered on its next dispatch
 * tick); 90 s tolerates one late bookmark yet still finds a half-open connection in about a
 * minute and a half — far sooner than the 5–10 min watch timeout would.
 */
export const DEFAULT_BOOKMARK_IDLE_TIMEOUT_MS = 90_000;

/**
 * Without bookmarks a quiet server legitimately sends nothing until timeoutSeconds; the idle
 * timeout is then that plus this margin (and off when there is no timeout either).
 */
export const IDLE_MARGIN_AFTER_TIMEOUT_MS = 30_000;

/** Errors a watch raised for an ERROR event it received (the Watch class hands those on as events). */
const eventErrors = new WeakSet<object>();

function errorFromEvent(status: Status): ApiError {
  const err = errorFromStatus(status);
  eventErrors.add(err);
  return err;
}

/** Whether a watch stream raised `err` for an ERROR event (a 410 Expired Status, say). */
export function isWatchEventError(err: unknown): err is ApiError {
  return typeof err === 'object' && err !== null && eventErrors.has(err);
}

export interface WatchStreamOptions {
  transport?: WatchTransport | undefined;
  /** No bytes for this long → the stream fails with WatchIdleError; 0 disables. */
  idleTimeoutMs?: number | undefined;
  /** How long to wait for the response headers (default 30 s). */
  headersTimeoutMs?: number | undefined;
  signal?: AbortSignal | undefined;
}

/** What opening a watch needs from the REST client; RestClient implements it. */
export interface WatchConnector {
  readonly encoding: Encoding;
  readonly logger: Logger;
  /** The absolute URL of an API path with its query. */
  url(path: string, query: URLSearchParams): URL;
  credentials(): Promise<Credentials>;
  /** See CredentialProvider.unauthorized. */
  unauthorized(used: Credentials): boolean;
  /** Request headers for the credentials (Authorization, User-Agent, Accept). */
  headers(creds: Credentials, accept: string): Record<string, string>;
  /**
   * The dispatcher of one watch: over HTTP/1.1 a connection of its own (a watch holds its
   * connection for minutes and must never queue other requests behind it), over HTTP/2 the
   * shared session (streams are multiplexed). `release` closes what was opened for the watch.
   */
  watchDispatcher(creds: Credentials): { dispatcher: Dispatcher; release: () => void };
}

/** The idle timeout a watch gets when none is configured. */
export function defaultIdleTimeoutMs(
  allowWatchBookmarks: boolean,
  timeoutSeconds?: number,
): number {
  if (allowWatchBookmarks) return DEFAULT_BOOKMARK_IDLE_TIMEOUT_MS;
  return timeoutSeconds === undefined ? 0 : timeoutSeconds * 1000 + IDLE_MARGIN_AFTER_TIMEOUT_MS;
}

/** Re-arms on every byte; fires once. */
class IdleTimer {
  private handle: ReturnType<typeof setTimeout> | undefined;
  fired = false;

  constructor(
    readonly ms: number,
    private readonly onIdle: () => void,
  ) {}

  touch(): void {
    if (this.ms <= 0 || this.fired) return;
    if (this.handle) this.handle = refreshTimer(this.handle, this.ms, this.fire);
    else this.handle = setTimeout(this.fire, this.ms);
  }

  private readonly fire = (): void => {
    this.fired = true;
    this.onIdle();
  };

  stop(): void {
    if (this.handle) clearTimeout(this.handle);
    this.handle = undefined;
  }
}

/**
 * A watch over one HTTP response (HTTP/1.1 chunked or an HTTP/2 stream): the body is decoded
 * incrementally by the codec's watch decoder for the negotiated encoding.
 */
class HttpWatchStream<T extends KubernetesObject> implements WatchStream<T> {
  private closed = false;
  private started = false;
  private released = false;
  private readonly idle: IdleTimer;
  private readonly decoder: StreamDecoder<WatchEvent>;

  constructor(
    private readonly body: AsyncIterable<Buffer>,
    private readonly abort: AbortController,
    private readonly releaseConnection: () => void,
    encoding: Encoding,
    idleTimeoutMs: number,
    private readonly target: string,
  ) {
    this.decoder = createWatchDecoder(watchFormatOf(encoding));
    this.idle = new IdleTimer(idleTimeoutMs, () => this.abort.abort());
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    // The generator may be parked at a yield that is never resumed: release here too (the
    // body is cancelled by the abort).
    this.idle.stop();
    this.release();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<WatchStreamEvent<T>> {
    if (this.started)
      throw ApiError.internalError(new Error('a watch stream can be iterated once'));
    this.started = true;
    if (this.closed) return;
    this.idle.touch();
    try {
      for await (const chunk of this.body) {
        this.idle.touch();
        for (const event of this.decoder.push(chunk)) yield this.checked(event);
      }
      for (const event of this.decoder.end()) yield this.checked(event);
    } catch (err) {
      if (
        err instanceof ApiError &&
        !(err instanceof ConnectionError) &&
        !this.abort.signal.aborted
      ) {
        throw err;
      }
      if (this.idle.fired) throw new WatchIdleError(this.idle.ms);
      if (this.closed) return;
      throw (
        toConnectionError(err, this.target) ??
        new ConnectionError('ECONNRESET', `${this.target}: ${errorField(err)}`, { cause: err })
      );
    } finally {
      this.idle.stop();
      this.release();
    }
  }

  private checked(event: WatchEvent): WatchStreamEvent<T> {
    if (event.type === 'ERROR') throw errorFromEvent(event.object);
    return event as unknown as WatchStreamEvent<T>;
  }

  private release(): void {
    if (this.released) return;
    this.released = true;
    // Cancels the body if it was not read to the end (undici needs one or the other).
    if (!this.abort.signal.aborted) this.abort.abort();
    this.releaseConnection();
  }
}

/** What every transport's opener takes: the connection, the path and query, the stream's options. */
type WatchOpenArgs = [
  connector: WatchConnector,
  path: string,
  query: URLSearchParams,
  options: WatchStreamOptions & { idleTimeoutMs: number },
];

/** Opens a watch over HTTP (1.1 by default, 2 when the connector negotiates it). */
export async function openHttpWatch<T extends KubernetesObject = KubeObject>(
  ...[connector, path, query, options]: WatchOpenArgs
): Promise<WatchStream<T>> {
  const url = connector.url(path, query);
  const target = `watch ${url.pathname}`;
  for (let authRetry = true; ; authRetry = false) {
    const creds = await connector.credentials();
    // A fresh controller per watch: aborting it must end this watch and nothing else.
    const abort = new AbortController();
    const outer = options.signal;
    const opened: { stream?: HttpWatchStream<T> } = {};
    // The caller giving up ends the watch quietly, like close().
    const onOuterAbort = (): void => (opened.stream ? opened.stream.close() : abort.abort());
    if (outer?.aborted) abort.abort();
    outer?.addEventListener('abort', onOuterAbort, { once: true });
    const { dispatcher, release } = connector.watchDispatcher(creds);
    const releaseAll = (): void => {
      outer?.removeEventListener('abort', onOuterAbort);
      release();
    };
    let response: Dispatcher.ResponseData;
    try {
      response = await request(url, {
        dispatcher,
        method: 'GET',
        headers: connector.headers(creds, acceptFor(connector.encoding, true)),
        signal: abort.signal,
        // The stream is long-lived and may be quiet: undici's 300 s body timeout would cut it.
        bodyTimeout: 0,
        headersTimeout: options.headersTimeoutMs ?? 30_000,
      });
    } catch (err) {
      releaseAll();
      if (outer?.aborted)
        throw new ApiError({ code: 499, reason: '', message: 'watch canceled' }, { cause: err });
      throw toConnectionError(err, target) ?? toApiError(err);
    }
    if (response.statusCode !== 200) {
      let text = '';
      try {
        const bytes = Buffer.from(await response.body.arrayBuffer());
        const encoding = responseEncodingOf(response.headers['content-type']);
        // A protobuf or CBOR Status is read as its JSON would be.
        text =
          encoding === 'json'
            ? bytes.toString('utf8')
            : JSON.stringify(encoding === 'cbor' ? decodeCbor(bytes) : decodeProtobuf(bytes));
      } catch {
        text = '';
      }
      releaseAll();
      if (response.statusCode === 401 && authRetry && connector.unauthorized(creds)) continue;
      throw errorFromResponse(response.statusCode, text, response.headers['retry-after']);
    }
    const stream = new HttpWatchStream<T>(
      response.body,
      abort,
      releaseAll,
      // What the server answered in: JSON for a kind without protobuf, whatever was asked.
      responseEncodingOf(response.headers['content-type']),
      options.idleTimeoutMs,
      target,
    );
    opened.stream = stream;
    if (outer?.aborted) stream.close();
    return stream;
  }
}

/** `base64url.bearer.authorization.k8s.io.<token>`: how browsers-style clients authenticate a WebSocket. */
export function bearerSubprotocol(token: string): string {
  return `base64url.bearer.authorization.k8s.io.${Buffer.from(token, 'utf8').toString('base64url')}`;
}

type Pending<T extends KubernetesObject> =
  | { kind: 'event'; event: WatchStreamEvent<T> }
  | { kind: 'end' }
  | { kind: 'error'; error: ApiError };

/**
 * A watch over a WebSocket (kube-apiserver HandleWS): one event per message, JSON in text
 * frames, CBOR in binary ones. WebSocket has no backpressure, so events queue in memory until
 * iterated.
 */
class WebSocketWatchStream<T extends KubernetesObject> implements WatchStream<T> {
  private readonly queue: Pending<T>[] = [];
  private wake: (() => void) | undefined;
  private closed = false;
  private done = false;
  private offset = 0;
  private readonly idle: IdleTimer;

  constructor(
    private readonly socket: WebSocket,
    private readonly encoding: Encoding,
    private readonly idleMs: number,
    private readonly target: string,
    private readonly release: () => void,
  ) {
    this.idle = new IdleTimer(idleMs, () => {
      this.push({ kind: 'error', error: new WatchIdleError(this.idleMs) });
      this.socket.close();
    });
    this.idle.touch();
    socket.addEventListener('message', (ev) => {
      this.idle.touch();
      const data = ev.data as unknown;
      try {
        const bytes = typeof data === 'string' ? data : new Uint8Array(data as ArrayBuffer);
        // A text message is JSON (a kind without protobuf), whatever was asked for.
        const encoding = typeof bytes === 'string' ? 'json' : this.encoding;
        const event = decodeWebSocketMessage(bytes, encoding, this.offset);
        this.offset += typeof bytes === 'string' ? Buffer.byteLength(bytes) : bytes.byteLength;
        if (event.type === 'ERROR')
          this.push({ kind: 'error', error: errorFromEvent(event.object) });
        else this.push({ kind: 'event', event: event as unknown as WatchStreamEvent<T> });
      } catch (err) {
        this.push({ kind: 'error', error: toApiError(err) });
        this.socket.close();
      }
    });
    socket.addEventListener('close', (ev) => {
      this.idle.stop();
      // 1000: the server ended the watch (timeoutSeconds); anything else broke it.
      if (ev.code === 1000 || this.closed) this.push({ kind: 'end' });
      else {
        this.push({
          kind: 'error',
          error: new ConnectionError(
            'ECONNRESET',
            `${this.target}: websocket closed with code ${ev.code}${ev.reason ? ` (${ev.reason})` : ''}`,
          ),
        });
      }
      this.release();
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.idle.stop();
    this.push({ kind: 'end' });
    try {
      this.socket.close(1000);
    } catch {
      // Already closing.
    }
  }

  private push(item: Pending<T>): void {
    if (this.done) return;
    if (item.kind !== 'event') this.done = true;
    this.queue.push(item);
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<WatchStreamEvent<T>> {
    try {
      for (;;) {
        const item = this.queue.shift();
        if (item === undefined) {
          await new Promise<void>((resolve) => (this.wake = resolve));
          continue;
        }
        if (item.kind === 'end') return;
        if (item.kind === 'error') {
          if (this.closed && item.error instanceof ConnectionError) return;
          throw item.error;
        }
        yield item.event;
      }
    } finally {
      this.close();
    }
  }
}

/** Opens a watch over a WebSocket (undici's WebSocket, which Node 20 has without a flag). */
export async function openWebSocketWatch<T extends KubernetesObject = KubeObject>(
  ...[connector, path, query, options]: WatchOpenArgs
): Promise<WatchStream<T>> {
  const url = connector.url(path, query);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  const target = `watch ${url.pathname}`;
  const creds = await connector.credentials();
  // kube-apiserver (golang.org/x/net/websocket) refuses a WebSocket handshake without Origin.
  const headers: Record<string, string> = {
    ...connector.headers(creds, acceptFor(connector.encoding, true)),
    origin: connector.url('/', new URLSearchParams()).origin,
  };
  const protocols: string[] = [];
  const auth = creds.authorization;
  if (auth?.startsWith('Bearer ')) {
    // The token travels as a subprotocol, as kubectl and browsers send it; not as a header.
    protocols.push(bearerSubprotocol(auth.slice('Bearer '.length)));
    delete headers.authorization;
  }
  const opened = connector.watchDispatcher(creds);
  const { dispatcher } = opened;
  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    opened.release();
  };
  const socket = new WebSocket(url, { protocols, dispatcher, headers });
  socket.binaryType = 'arraybuffer';
  await new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      socket.close();
      reject(new ApiError({ code: 499, reason: '', message: 'watch canceled' }));
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    socket.addEventListener(
      'open',
      () => {
        options.signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      { once: true },
    );
    socket.addEventListener(
      'error',
      (ev) => {
        options.signal?.removeEventListener('abort', onAbort);
        release();
        const cause = (ev as unknown as { error?: unknown }).error;
        reject(
          toConnectionError(cause, target) ??
            new ConnectionError(
              'ECONNRESET',
              `${target}: websocket handshake failed${cause instanceof Error ? `: ${cause.message}` : ''}`,
              { cause },
            ),
        );
      },
      { once: true },
    );
  });
  const stream = new WebSocketWatchStream<T>(
    socket,
    connector.encoding,
    options.idleTimeoutMs,
    target,
    release,
  );
  const onAbort = (): void => stream.close();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  // A reflector passes one long-lived signal to every watch it opens: don't pile up on it.
  socket.addEventListener('close', () => options.signal?.removeEventListener('abort', onAbort), {
    once: true,
  });
  return stream;
}
