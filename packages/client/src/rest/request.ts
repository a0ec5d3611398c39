import { errorField, toApiError, type ApiError, type Logger } from '@listwatch/api';
import {
  acceptFor,
  decodeCbor,
  decodeObject,
  decodeProtobuf,
  responseEncodingOf,
  type Encoding,
} from '@listwatch/codec';
import type { Dispatcher } from 'undici';
import { request } from './undici.js';
import type { Credentials } from '../clientcmd/credentials.js';
import type { Clock } from '../util/clock.js';
import { refreshTimer } from '../util/refresh-timer.js';
import { abortedError, sleep } from '../util/sleep.js';
import {
  errorFromResponse,
  parseRetryAfter,
  requestTimeoutError,
  toConnectionError,
  undecodable,
} from './errors.js';
import { decodeStreamingList } from './streaming-list.js';
import type { WithRetry } from './with-retry.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RequestOptions {
  method: HttpMethod;
  /** The API path, e.g. `/api/v1/namespaces/default/pods`; the server's path prefix is added. */
  path: string;
  query?: URLSearchParams;
  /** Serialized as JSON. */
  body?: unknown;
  contentType?: string;
  signal?: AbortSignal;
  timeoutMs?: number;
  /**
   * The response is a JSON list: decode its items as the bytes arrive (JsonListDecoder) rather
   * than after the whole body, overlapping the parse with the transfer of a large LIST, and
   * with RestClientOptions.slimLists slim them as they come (ObjectSlimmer).
   */
  streamList?: boolean;
  /** Replaces the Accept the client's encoding asks for (discovery's aggregated media type). */
  accept?: string;
  /** More request headers, e.g. `if-none-match`; a 304 to one is then an answer, not an error. */
  headers?: Record<string, string>;
  /**
   * The caller retries on its own schedule (a reflector's backoff): a refused or broken
   * connection fails at once instead of being tried again here, so the caller hears of it on
   * the first attempt. Answers (429, 5xx with Retry-After) are still retried.
   */
  noConnectionRetry?: boolean;
  /** Told the status and headers of the answer (a discovery document's ETag). */
  onResponse?: (statusCode: number, headers: Record<string, string | string[] | undefined>) => void;
}

/** What a request needs from its client; RestClient hands one over. */
export interface RequestContext {
  readonly encoding: Encoding;
  /** Per attempt, unless the request says otherwise; 0 disables. */
  readonly timeoutMs: number;
  /** Slim the items of a streamed JSON LIST (RestClientOptions.slimLists). */
  readonly slimLists?: boolean;
  readonly retry: WithRetry;
  readonly logger: Logger;
  readonly clock: Clock;
  url(path: string, query?: URLSearchParams): URL;
  credentials(): Promise<Credentials>;
  /** See CredentialProvider.unauthorized. */
  unauthorized(used: Credentials): boolean;
  headers(creds: Credentials, accept: string): Record<string, string>;
  /** The connection pool for these credentials. */
  pool(creds: Credentials): Dispatcher;
}

const EMPTY = Buffer.alloc(0);

/** A response as `send` returns it: the body's bytes, or — streamed — what they decoded to. */
interface Response {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  decoded?: unknown;
}

/**
 * The attempts of one call (client-go rest/request.go Request.request): WithRetry decides what
 * is sent again, after Retry-After or else the backoff; a 401 once more when the credential
 * provider has fresher credentials.
 */
export async function execute<R>(ctx: RequestContext, options: RequestOptions): Promise<R> {
  const backoff = ctx.retry.newBackoff();
  let authRetried = false;
  for (let attempt = 0; ; attempt++) {
    if (options.signal?.aborted) throw abortedError(options.signal);
    const creds = await ctx.credentials();
    let response: Response;
    try {
      response = await send(ctx, options, creds);
    } catch (err) {
      if (
        options.noConnectionRetry ||
        !ctx.retry.afterConnectionError(options.method, err, attempt)
      )
        throw err;
      const delay = backoff.next();
      ctx.logger.info('retrying request after connection error', {
        method: options.method,
        path: options.path,
        attempt: attempt + 1,
        delayMs: Math.round(delay),
        error: errorField(err),
      });
      await sleep(ctx.clock, delay, options.signal);
      continue;
    }
    const { statusCode, headers, body } = response;
    if ((statusCode >= 200 && statusCode < 300) || (statusCode === 304 && options.headers))
      options.onResponse?.(statusCode, headers);
    if (response.decoded !== undefined) return response.decoded as R;
    if (statusCode >= 200 && statusCode < 300)
      return decodeBody(body, headers['content-type']) as R;
    // Not Modified: the caller's cached copy, validated by the If-None-Match it sent.
    if (statusCode === 304 && options.headers) return undefined as R;
    if (statusCode === 401 && !authRetried && ctx.unauthorized(creds)) {
      authRetried = true;
      continue;
    }
    const err = responseError(statusCode, body, headers);
    const retryAfter = parseRetryAfter(headers['retry-after']) ?? err.retryAfterSeconds;
    if (!ctx.retry.afterResponse(options.method, statusCode, retryAfter, attempt)) throw err;
    const delay = retryAfter !== undefined ? retryAfter * 1000 : backoff.next();
    ctx.logger.info('retrying request', {
      method: options.method,
      path: options.path,
      code: statusCode,
      attempt: attempt + 1,
      delayMs: Math.round(delay),
    });
    await sleep(ctx.clock, delay, options.signal);
  }
}

/** One attempt: the response, its body read (or, for a streamed LIST, decoded) in full. */
async function send(
  ctx: RequestContext,
  options: RequestOptions,
  creds: Credentials,
): Promise<Response> {
  const url = ctx.url(options.path, options.query);
  const target = `${options.method} ${url.pathname}`;
  const timeoutMs = options.timeoutMs ?? ctx.timeoutMs;
  const abort = new AbortController();
  let timedOut = false;
  const onTimeout = (): void => ((timedOut = true), abort.abort());
  let timer = timeoutMs > 0 ? setTimeout(onTimeout, timeoutMs) : undefined;
  const onAbort = (): void => abort.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const headers = {
    ...ctx.headers(creds, options.accept ?? acceptFor(ctx.encoding)),
    ...options.headers,
  };
  let body: string | undefined;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = options.contentType ?? 'application/json';
  }
  try {
    // Raced with the abort: undici only acts on it once a request queued for a connection
    // is dispatched, and the deadline counts from the call, not from the dispatch.
    const res = await Promise.race([
      request(url, {
        dispatcher: ctx.pool(creds),
        method: options.method,
        headers,
        ...(body !== undefined ? { body } : {}),
        signal: abort.signal,
      }),
      rejectOnAbort(abort.signal),
    ]);
    const ok = res.statusCode >= 200 && res.statusCode < 300;
    if (ok && options.streamList && isJson(res.headers['content-type'])) {
      // A large LIST may take long in full: from its first byte on, only a stall as long as
      // the timeout fails it (client-go sets no timeout on a LIST at all).
      const decoded = await decodeStreamingList(
        res.body,
        () => {
          if (timer) timer = refreshTimer(timer, timeoutMs, onTimeout);
        },
        ctx.slimLists ?? false,
      );
      return { statusCode: res.statusCode, headers: res.headers, body: EMPTY, decoded };
    }
    const bytes = Buffer.from(await res.body.arrayBuffer());
    return { statusCode: res.statusCode, headers: res.headers, body: bytes };
  } catch (err) {
    if (timedOut) throw requestTimeoutError(timeoutMs, target);
    if (options.signal?.aborted) throw abortedError(options.signal);
    throw toConnectionError(err, target) ?? toApiError(err);
  } finally {
    if (timer) clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
  }
}

/** JSON, not CBOR or protobuf (an absent Content-Type is taken for JSON, as `decodeBody` does). */
function isJson(contentType: string | string[] | undefined): boolean {
  return responseEncodingOf(contentType) === 'json';
}

/** A successful response's body, by the codec; an empty body is undefined. */
function decodeBody(body: Buffer, contentType: string | string[] | undefined): unknown {
  if (body.length === 0) return undefined;
  const type = String(contentType ?? '');
  try {
    return decodeObject(body, responseEncodingOf(type));
  } catch (err) {
    throw undecodable(`cannot decode the ${type || 'response'} body: ${errorField(err)}`, err);
  }
}

/** An error response as an ApiError; a CBOR Status is read as the JSON one would be. */
function responseError(
  statusCode: number,
  body: Buffer,
  headers: Record<string, string | string[] | undefined>,
): ApiError {
  let text = body.toString('utf8');
  const encoding = responseEncodingOf(headers['content-type']);
  if (encoding !== 'json') {
    try {
      text = JSON.stringify(encoding === 'cbor' ? decodeCbor(body) : decodeProtobuf(body));
    } catch {
      // Not a CBOR Status: report the raw text.
    }
  }
  return errorFromResponse(statusCode, text, headers['retry-after']);
}

/** Rejects when `signal` aborts; never settles otherwise. */
function rejectOnAbort(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
  });
}
