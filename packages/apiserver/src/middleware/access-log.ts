import type Koa from 'koa';
import type { UserInfo } from '../authentication/user.js';
import type { RequestLabels } from '../handlers/resource-router.js';
import type { ServerContext } from '../server-context.js';
import { atEnd } from './request-end.js';

/**
 * One structured line per request and its metrics, once the request is over (a watch: when it
 * ends); headers (tokens) are never logged.
 */
export function accessLog(server: ServerContext): Koa.Middleware {
  return (ctx, next) => {
    const started = process.hrtime.bigint();
    return atEnd(ctx, next, (failure) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const labels = ctx.state['request'] as RequestLabels | undefined;
      const verb = labels?.verb ?? ctx.method.toLowerCase();
      const resource = labels?.resource ?? '';
      // A watch streams past koa (respond false) after its 200; errors() sets a code for the rest.
      const code =
        (ctx.state['code'] as number | undefined) ?? (ctx.respond === false ? 200 : ctx.status);
      server.metrics.requests.inc({ verb, resource, code: String(code) });
      server.metrics.requestDuration.observe({ verb, resource }, seconds);
      server.logger.debug('request', {
        method: ctx.method,
        path: ctx.path,
        verb,
        resource,
        code,
        user: (ctx.state['user'] as UserInfo | undefined)?.name,
        ms: Math.round(seconds * 1000),
        userAgent: ctx.get('user-agent'),
      });
      if (failure) throw failure.error;
    });
  };
}
