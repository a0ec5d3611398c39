import type Koa from 'koa';
import type { ServerContext } from '../server-context.js';

/** /healthz, /livez, /readyz (ready only once every watch cache is) and /metrics. */
export function health(server: ServerContext): Koa.Middleware {
  return async (ctx, next): Promise<void> => {
    switch (ctx.path) {
      case '/healthz':
      case '/livez':
        ctx.type = 'text/plain';
        ctx.body = 'ok';
        return;
      case '/readyz': {
        const ready = server.registry.ready && !server.shuttingDown;
        ctx.status = ready ? 200 : 503;
        ctx.type = 'text/plain';
        ctx.body = ready
          ? 'ok'
          : server.shuttingDown
            ? 'shutting down'
            : 'watch caches are not ready';
        return;
      }
      case '/metrics':
        ctx.type = server.metrics.registry.contentType;
        ctx.body = await server.metrics.registry.metrics();
        return;
      default:
        await next();
    }
  };
}
