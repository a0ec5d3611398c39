import type Koa from 'koa';

// k8s.io/apiserver pkg/server/filters/cors.go WithCORS, as DefaultBuildHandlerChain installs it
// (outside authentication, so a preflight needs no credentials): the answer to a request whose
// Origin matches a pattern of --cors-allowed-origins carries the Access-Control-* headers, and
// its preflight OPTIONS ends there with 204; any other request passes untouched.

/** kube-apiserver's help text, whose advice the validation enforces. */
export const CORS_ALLOWED_ORIGINS_HELP =
  "List of allowed origins for CORS, comma separated. An allowed origin can be a regular expression to support subdomain matching. If this list is empty CORS will not be enabled. Please ensure each expression matches the entire hostname by anchoring to the start with '^' or including the '//' prefix, and by anchoring to the end with '$' or including the ':' port separator suffix. Examples of valid expressions are '//example\\.com(:|$)' and '^https://example\\.com(:|$)'";

// cors.go's defaults (WithCORS given nil methods, headers and exposed headers).
const ALLOW_METHODS = ['POST', 'GET', 'OPTIONS', 'PUT', 'DELETE', 'PATCH'].join(', ');
const ALLOW_HEADERS = [
  'Content-Type',
  'Content-Length',
  'Accept-Encoding',
  'X-CSRF-Token',
  'Authorization',
  'X-Requested-With',
  'If-Modified-Since',
].join(', ');
const EXPOSE_HEADERS = 'Date';

/**
 * The problems of `--cors-allowed-origins` patterns, empty when they are fine
 * (server_run_options.go validateCorsAllowedOriginList): each must compile and be pinned to the
 * start and end of the host, so `example.com` cannot match `example.com.evil.org`
 * (CVE-2022-1996).
 */
export function validateCorsAllowedOrigins(patterns: readonly string[]): string[] {
  const problems: string[] = [];
  for (const pattern of patterns) {
    if (pattern === '') {
      problems.push('empty value in --cors-allowed-origins');
      continue;
    }
    try {
      new RegExp(pattern);
    } catch (err) {
      problems.push(
        `--cors-allowed-origins has an invalid regular expression ${JSON.stringify(pattern)}: ${(err as Error).message}`,
      );
      continue;
    }
    const pinStart = pattern.includes('^') || pattern.includes('//');
    const pinEnd = pattern.includes('$') || pattern.includes(':');
    if (!pinStart || !pinEnd)
      problems.push(
        `--cors-allowed-origins has an invalid regular expression ${JSON.stringify(pattern)}: it does not pin to the start and end of the host in the Origin header`,
      );
  }
  return problems;
}

/** The origins a server answers CORS requests from; none: CORS off. */
export class CorsPolicy {
  private constructor(private readonly patterns: readonly RegExp[]) {}

  /** Patterns as `--cors-allowed-origins` takes them; throws naming every bad one. */
  static parse(patterns: readonly string[]): CorsPolicy {
    const problems = validateCorsAllowedOrigins(patterns);
    if (problems.length > 0)
      throw new Error(`${problems.join('; ')} (${CORS_ALLOWED_ORIGINS_HELP})`);
    return new CorsPolicy(patterns.map((p) => new RegExp(p)));
  }

  get enabled(): boolean {
    return this.patterns.length > 0;
  }

  /** cors.go isOriginAllowed: the Origin header as sent, matched against each pattern. */
  allows(origin: string): boolean {
    return this.patterns.some((pattern) => pattern.test(origin));
  }
}

export function cors(policy: CorsPolicy): Koa.Middleware {
  return async (ctx, next) => {
    const origin = ctx.get('origin');
    if (!policy.enabled || origin === '' || !policy.allows(origin)) {
      await next();
      return;
    }
    ctx.set('Access-Control-Allow-Origin', origin);
    ctx.set('Access-Control-Allow-Methods', ALLOW_METHODS);
    ctx.set('Access-Control-Allow-Headers', ALLOW_HEADERS);
    ctx.set('Access-Control-Expose-Headers', EXPOSE_HEADERS);
    ctx.set('Access-Control-Allow-Credentials', 'true');
    // The answer depends on Origin: caches must not hand it to another page.
    ctx.vary('Origin');
    if (ctx.method === 'OPTIONS') {
      ctx.status = 204;
      return;
    }
    await next();
  };
}
