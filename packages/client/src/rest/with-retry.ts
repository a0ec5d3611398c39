import { Backoff, type BackoffOptions } from '../util/backoff.js';
import type { Clock } from '../util/clock.js';
import type { RetryOptions } from './config.js';
import { ConnectionError } from './errors.js';
import type { HttpMethod } from './request.js';

const CONNECT_RETRY_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

/** Verbs whose repetition leaves the server as one request would (RFC 9110 §9.2.2). */
const IDEMPOTENT = new Set<HttpMethod>(['GET', 'PUT', 'DELETE']);

/**
 * When a request may be sent again (client-go rest/with_retry.go), and the backoff between
 * attempts when the server named no delay. Only what cannot do harm is retried: an idempotent
 * request after 429 or a 5xx with Retry-After; a GET after a broken connection; any verb when the
 * connection was refused (the request never left).
 */
export class WithRetry {
  readonly maxRetries: number;
  private readonly backoff: BackoffOptions;

  constructor(
    options: RetryOptions | undefined,
    private readonly clock: Clock,
  ) {
    this.maxRetries = options?.maxRetries ?? 10;
    this.backoff = { initialMs: 200, maxMs: 10_000, factor: 2, jitter: 1, ...options?.backoff };
  }

  /** The delays of one call's attempts. */
  newBackoff(): Backoff {
    return new Backoff({ ...this.backoff, clock: this.clock });
  }

  /** After attempt `attempt` failed without a response. */
  afterConnectionError(method: HttpMethod, err: unknown, attempt: number): boolean {
    // A reset may come after the server acted: only a read is safe to send again.
    const retryable =
      err instanceof ConnectionError &&
      (err.refused || (method === 'GET' && CONNECT_RETRY_CODES.has(err.errno)));
    return retryable && attempt < this.maxRetries;
  }

  /** After attempt `attempt` was answered with an error status. */
  afterResponse(
    method: HttpMethod,
    statusCode: number,
    retryAfter: number | undefined,
    attempt: number,
  ): boolean {
    const retryable =
      IDEMPOTENT.has(method) &&
      (statusCode === 429 || (statusCode >= 500 && retryAfter !== undefined));
    return retryable && attempt < this.maxRetries;
  }
}
