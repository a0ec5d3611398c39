import { ApiError, queryBool } from '@listwatch/api';
import type Koa from 'koa';
import type { ServerContext } from '../server-context.js';

export interface InflightLimits {
  /** `--max-requests-inflight` (read-only requests; 0: no limit). */
  readOnly: number;
  /** `--max-mutating-requests-inflight` (0: no limit). */
  mutating: number;
}

function isLongRunning(ctx: Koa.Context): boolean {
  if (ctx.method !== 'GET') return false;
  return ctx.path.includes('/watch/') || queryBool(ctx.query['watch']);
}

/**
 * kube-apiserver's max-in-flight filter: past the limit a request is 429 with Retry-After, so
 * clients back off instead of piling up. Watches are long-running and never counted.
 */
export function inflightLimits(server: ServerContext, limits: InflightLimits): Koa.Middleware {
  const counts = { readOnly: 0, mutating: 0 };
  return async (ctx, next): Promise<void> => {
    if (isLongRunning(ctx)) {
      await next();
      return;
    }
    const kind = ctx.method === 'GET' || ctx.method === 'HEAD' ? 'readOnly' : 'mutating';
    const limit = limits[kind];
    if (limit > 0 && counts[kind] >= limit) {
      throw ApiError.tooManyRequests('Too many requests, please try again later.', 1);
    }
    counts[kind]++;
    server.metrics.inflight.set({ request_kind: kind }, counts[kind]);
    try {
      await next();
    } finally {
      counts[kind]--;
      server.metrics.inflight.set({ request_kind: kind }, counts[kind]);
    }
  };
}
