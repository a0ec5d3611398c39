import { ApiError } from '@listwatch/api';
import type Koa from 'koa';
import type { UserInfo } from '../authentication/user.js';
import { verbOf } from '../handlers/verb.js';
import { parseRequestInfo } from '../request/request-info.js';
import type { ServerContext } from '../server-context.js';
import { atEnd } from './request-end.js';

export interface InflightLimits {
  /** `--max-requests-inflight` (read-only requests; 0: no limit). */
  readOnly: number;
  /** `--max-mutating-requests-inflight` (0: no limit). */
  mutating: number;
}

/** The subresources kube-apiserver counts as long-running (BasicLongRunningRequestCheck). */
const LONG_RUNNING_SUBRESOURCE =
  /\/namespaces\/[^/]+\/pods\/[^/]+\/(attach|exec|proxy|log|portforward)$/;

/**
 * Watches and streams (pods/log): long-running requests, which the in-flight limits do not count.
 * A watch is what requestinfo.go calls one (BasicLongRunningRequestCheck): `watch=true` on a named
 * GET is a plain get, bounded like any other.
 */
export function isLongRunning(ctx: Koa.Context): boolean {
  if (ctx.method !== 'GET') return false;
  if (LONG_RUNNING_SUBRESOURCE.test(ctx.path)) return true;
  let info;
  try {
    info = parseRequestInfo(ctx.path);
  } catch {
    return false; // a malformed path is answered 400 by the router, not held open
  }
  // Read from the query string, not ctx.query: koa would keep its parse for a watch's life.
  return (
    info !== undefined && verbOf('GET', info, new URLSearchParams(ctx.querystring)) === 'watch'
  );
}

/**
 * The watches each user has open, at most `perUser` (`--max-watches-per-user`, 0: no limit).
 * Not a kube-apiserver limit (its flow control counts watches only while they start): here one
 * credential cannot hold every watch the server can serve.
 */
export class WatchLimiter {
  private readonly open = new Map<string, number>();

  constructor(readonly perUser: number) {}

  /** Watches open now, all users together. */
  get total(): number {
    let n = 0;
    for (const count of this.open.values()) n += count;
    return n;
  }

  /** Counts a watch of `user`, or 429 with Retry-After past the limit; returns its release. */
  acquire(user: string): () => void {
    const count = this.open.get(user) ?? 0;
    if (this.perUser > 0 && count >= this.perUser)
      throw ApiError.tooManyRequests(
        `too many watches open for user ${JSON.stringify(user)}: the limit is ${this.perUser} (--max-watches-per-user)`,
        1,
      );
    this.open.set(user, count + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.open.get(user) ?? 1) - 1;
      if (left > 0) this.open.set(user, left);
      else this.open.delete(user);
    };
  }

  /** Open watches of a user (metrics, tests). */
  count(user: string): number {
    return this.open.get(user) ?? 0;
  }
}

/** Whose watch a request is: the authenticated requester, not whom it impersonates. */
export function watchOwner(state: Record<string, unknown>): string {
  const impersonatedBy = state['impersonatedBy'];
  if (typeof impersonatedBy === 'string') return impersonatedBy;
  return (state['user'] as UserInfo | undefined)?.name ?? '';
}

/**
 * kube-apiserver's max-in-flight filter: past the limit a request is 429 with Retry-After, so
 * clients back off instead of piling up. Watches are long-running and never counted there; they
 * count against their user's watch limit for as long as they stay open.
 */
export function inflightLimits(server: ServerContext, limits: InflightLimits): Koa.Middleware {
  const counts = { readOnly: 0, mutating: 0 };
  return (ctx, next): Promise<void> => {
    if (isLongRunning(ctx)) {
      const release = server.watchLimiter.acquire(watchOwner(ctx.state));
      return atEnd(ctx, next, (failure) => {
        release();
        if (failure) throw failure.error;
      });
    }
    const kind = ctx.method === 'GET' || ctx.method === 'HEAD' ? 'readOnly' : 'mutating';
    const limit = limits[kind];
    if (limit > 0 && counts[kind] >= limit) {
      throw ApiError.tooManyRequests('Too many requests, please try again later.', 1);
    }
    counts[kind]++;
    server.metrics.inflight.set({ request_kind: kind }, counts[kind]);
    return atEnd(ctx, next, (failure) => {
      counts[kind]--;
      server.metrics.inflight.set({ request_kind: kind }, counts[kind]);
      if (failure) throw failure.error;
    });
  };
}
