import { ApiError } from '@listwatch/api';
import type { IncomingHttpHeaders } from 'node:http';
import { isIP } from 'node:net';
import type Koa from 'koa';
import { isAnonymous, type UserInfo } from '../authentication/user.js';

/**
 * Which Host and Origin headers anonymous requests may carry, so a web page can
 * neither reach it through DNS rebinding (a Host naming the attacker's domain) nor read or watch
 * it cross-site (a foreign Origin). Like kubectl proxy's `--accept-hosts` (k8s.io/kubectl
 * pkg/proxy FilterServer): a Host must be an IP literal, `localhost` (or a `.localhost` name) or
 * match one of the accepted patterns; an Origin, when sent, must be loopback, the request's own
 * host, or match a pattern. IP literals pass: they guard against pages, not the network, which is
 * why a server whose anonymous requests may do anything refuses to listen off loopback
 * (server.ts).
 */
export class HostFilter {
  /**
   * `corsAllowed`: origins the operator opened to pages with --cors-allowed-origins, which
   * this filter lets through as well (else CORS would only work for authenticated requests).
   */
  constructor(
    private readonly accept: readonly RegExp[] = [],
    private readonly corsAllowed: (origin: string) => boolean = () => false,
  ) {}

  /** Patterns as `--accept-hosts` takes them (comma-separated regular expressions). */
  static parse(patterns: readonly string[], corsAllowed?: (origin: string) => boolean): HostFilter {
    return new HostFilter(
      patterns.map((p) => new RegExp(p)),
      corsAllowed,
    );
  }

  /** The hostname of a Host header (`127.0.0.1:8080`, `[::1]:80`), or undefined if malformed. */
  private static hostname(host: string): string | undefined {
    try {
      const url = new URL(`http://${host.trim()}`);
      return url.username || url.password || url.pathname !== '/' ? undefined : url.hostname;
    } catch {
      return undefined;
    }
  }

  private static isLoopbackName(hostname: string): boolean {
    const bare = hostname.replace(/^\[|\]$/g, '');
    if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
    if (bare === '::1') return true;
    const v4 = bare.replace(/^::ffff:/, '');
    return isIP(v4) === 4 && v4.startsWith('127.');
  }

  private matches(hostname: string): boolean {
    return this.accept.some((pattern) => pattern.test(hostname));
  }

  /** Hosts decided lately: a server is reached under few names, and this runs per request. */
  private readonly decided = new Map<string, boolean>();

  /** A request's Host: rebinding needs a domain name, so IP literals are always fine. */
  hostAllowed(host: string | undefined): boolean {
    if (host === undefined) return false;
    let allowed = this.decided.get(host);
    if (allowed === undefined) {
      allowed = this.decideHost(host);
      if (this.decided.size >= 256) this.decided.clear();
      this.decided.set(host, allowed);
    }
    return allowed;
  }

  private decideHost(host: string): boolean {
    const hostname = HostFilter.hostname(host);
    if (hostname === undefined) return false;
    if (isIP(hostname.replace(/^\[|\]$/g, '')) !== 0) return true;
    return HostFilter.isLoopbackName(hostname) || this.matches(hostname);
  }

  /** A request's Origin (when sent): a page served from loopback, this server, or an accepted host. */
  originAllowed(origin: string, host: string | undefined): boolean {
    if (this.corsAllowed(origin)) return true;
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false; // `null` (sandboxed frames, file:) and garbage
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
    if (HostFilter.isLoopbackName(url.hostname)) return true;
    if (host !== undefined && url.host === host.trim().toLowerCase()) return true;
    return this.matches(url.hostname);
  }

  /** Throws 403 when the request's Host or Origin is not allowed. */
  check(headers: IncomingHttpHeaders): void {
    const host = headers.host ?? (headers[':authority'] as string | undefined);
    if (!this.hostAllowed(host))
      throw forbidden(`host ${JSON.stringify(host ?? '')} is not accepted (see --accept-hosts)`);
    const origin = headers.origin;
    if (origin !== undefined && !this.originAllowed(origin, host))
      throw forbidden(`origin ${JSON.stringify(origin)} is not accepted (see --accept-hosts)`);
  }
}

function forbidden(message: string): ApiError {
  return new ApiError({ code: 403, reason: 'Forbidden', message });
}

/**
 * Anonymous requests pass the host filter: a page can make a browser send those, while it cannot
 * attach a bearer token or a client certificate the user configured for this server.
 */
export function hostFilter(filter: HostFilter): Koa.Middleware {
  return async (ctx, next) => {
    if (isAnonymous(ctx.state['user'] as UserInfo)) filter.check(ctx.req.headers);
    await next();
  };
}
