import { ApiError, parseDuration } from '@listwatch/api';
import type Koa from 'koa';
import type { ServerContext } from '../server-context.js';
import { isLongRunning } from './limits.js';

// A deadline on every request that is not long-running, as kube-apiserver's
// endpoints/filters/request_deadline.go (the `timeout` query parameter, capped by
// --request-timeout) and server/filters/timeout.go (504 once it passes) set it.

const INVALID_TIMEOUT = 'invalid timeout specified in the request URL';

/** The request's deadline in ms: `?timeout=` when shorter than the server's, else the server's. */
export function requestDeadlineMs(query: Koa.Context['query'], maximum: number): number {
  const given = query['timeout'];
  const value = Array.isArray(given) ? given[0] : given;
  if (value === undefined || value === '') return maximum;
  let timeout: number;
  try {
    timeout = parseDuration(value);
  } catch (err) {
    throw ApiError.badRequest(
      `${INVALID_TIMEOUT} - ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  // 0 (no timeout asked) or more than the server allows: the server's.
  return timeout > 0 && timeout < maximum ? timeout : maximum;
}

/**
 * Answers 504 Timeout when a request has not started its response by its deadline; the work
 * it started may still finish, its answer is dropped (kube's timeout handler does the same).
 * Watches are bound by timeoutSeconds instead.
 */
export function requestDeadline(server: ServerContext): Koa.Middleware {
  return async (ctx, next) => {
    if (isLongRunning(ctx)) {
      await next();
      return;
    }
    const deadline = requestDeadlineMs(ctx.query, server.requestTimeoutMs);
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        if (!ctx.headerSent)
          reject(
            ApiError.timeout(
              'request did not complete within requested timeout - context deadline exceeded',
            ),
          );
      }, deadline);
    });
    try {
      await Promise.race([next(), expired]);
    } finally {
      clearTimeout(timer);
    }
  };
}
