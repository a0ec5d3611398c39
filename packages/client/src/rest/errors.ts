import { ApiError, errorFromStatus, genericServerError, isStatus } from '@listwatch/api';

/**
 * The errors the client raises itself, all ApiErrors so callers handle one type: a response
 * that is not a Status is turned into one the way client-go does (apimachinery
 * errors.NewGenericServerResponse, owned by @listwatch/api), and network failures carry a
 * Status too.
 */

/** The client has always exported it; the code table is @listwatch/api's. */
export { reasonForCode } from '@listwatch/api';

/** `Retry-After` in whole seconds (the only form kube-apiserver sends), if present and sane. */
export function parseRetryAfter(value: string | string[] | undefined): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || !/^\s*\d+\s*$/.test(text)) return undefined;
  return Number(text);
}

/**
 * The ApiError for a failed response: the Status in the body when there is one (its code wins,
 * falling back to the HTTP code), else a generic Status for the HTTP code with the body's text.
 */
export function errorFromResponse(
  statusCode: number,
  body: string,
  retryAfterHeader?: string | string[],
): ApiError {
  const retryAfter = parseRetryAfter(retryAfterHeader);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    parsed = undefined;
  }
  if (isStatus(parsed) && parsed.status !== 'Success') {
    const err = errorFromStatus(parsed, statusCode);
    if (retryAfter !== undefined && err.status.details?.retryAfterSeconds === undefined) {
      err.status.details = { ...err.status.details, retryAfterSeconds: retryAfter };
    }
    return err;
  }
  return genericServerError(statusCode, body.trim().slice(0, 1024), retryAfter);
}

/** Error codes of failures before any response arrived. */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * The connection to the apiserver failed: refused, reset, or cut mid-stream. A 503 like the one
 * a proxy would answer with; `errno` tells "refused" (the request was never sent, so even a
 * write may be retried) from the rest.
 */
export class ConnectionError extends ApiError {
  constructor(
    readonly errno: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super({ code: 503, reason: 'ServiceUnavailable', message }, options);
    this.name = 'ConnectionError';
  }

  get refused(): boolean {
    return this.errno === 'ECONNREFUSED';
  }
}

/**
 * A watch that received no bytes for longer than its idle timeout: probably a half-open
 * connection (the peer vanished without a FIN). Retryable: the client re-watches.
 */
export class WatchIdleError extends ConnectionError {
  constructor(idleMs: number) {
    super(
      'IDLE',
      `watch stream received nothing for ${Math.round(idleMs / 1000)}s; assuming the connection is dead`,
    );
    this.name = 'WatchIdleError';
  }
}

/** Certificate and handshake failures: the connection could not be trusted, so none was made. */
function isTlsErrorCode(code: string): boolean {
  return (
    code.startsWith('ERR_TLS_') ||
    code.startsWith('ERR_SSL_') ||
    /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|DEPTH_ZERO/.test(code)
  );
}

/** The code of a network error, looked up through `cause` chains (undici wraps them). */
export function networkErrorCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (CONNECTION_CODES.has(code) || isTlsErrorCode(code)))
      return code;
    // AggregateError (happy eyeballs tried several addresses): the first one tells.
    const errors = (e as { errors?: unknown }).errors;
    if (Array.isArray(errors) && errors.length > 0) {
      const inner = networkErrorCode(errors[0]);
      if (inner) return inner;
    }
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** A network failure as a ConnectionError, or undefined if `err` is something else. */
export function toConnectionError(err: unknown, target: string): ConnectionError | undefined {
  if (err instanceof ConnectionError) return err;
  const code = networkErrorCode(err);
  if (code === undefined) return undefined;
  const why = err instanceof Error ? err.message : String(err);
  return new ConnectionError(
    code,
    `${target}: ${code === 'ECONNREFUSED' ? 'connection refused' : why}`,
    {
      cause: err,
    },
  );
}

/** client-go utilnet.IsConnectionRefused. */
export function isConnectionRefused(err: unknown): boolean {
  return err instanceof ConnectionError && err.refused;
}

/** 410: Expired (Kubernetes ≥ 1.18) or Gone (older servers) — client-go isExpiredError. */
export function isExpired(err: unknown): boolean {
  return (
    err instanceof ApiError &&
    (err.reason === 'Expired' || err.reason === 'Gone' || err.code === 410)
  );
}

/**
 * "Too large resource version": the server has not reached the requested revision
 * (a 504 with cause ResourceVersionTooLarge, or the pre-1.18 message) — client-go
 * isTooLargeResourceVersionError.
 */
export function isTooLargeResourceVersion(err: unknown): boolean {
  if (!(err instanceof ApiError)) return false;
  const causes = err.status.details?.causes ?? [];
  if (causes.some((c) => c.reason === 'ResourceVersionTooLarge')) return true;
  if (err.reason !== 'Timeout') return false;
  return (
    causes.some((c) => c.message === 'Too large resource version') ||
    err.message.includes('Too large resource version')
  );
}

export function isTooManyRequests(err: unknown): boolean {
  return err instanceof ApiError && (err.code === 429 || err.reason === 'TooManyRequests');
}

/** A client-side request timeout (not a watch: those have none). */
export function requestTimeoutError(ms: number, what: string): ApiError {
  return new ApiError({
    code: 504,
    reason: 'Timeout',
    message: `Timeout: ${what} did not complete within ${ms}ms`,
  });
}

/** A response the client cannot decode: the server's fault, a 500 as client-go reports it. */
export function undecodable(message: string, cause: unknown): ApiError {
  return new ApiError({ code: 500, reason: 'InternalError', message }, { cause });
}
