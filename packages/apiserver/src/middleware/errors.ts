import { toApiError } from '@listwatch/api';
import type Koa from 'koa';
import { writeStatus } from '../handlers/response.js';
import type { ServerContext } from '../server-context.js';

/** Every failure becomes a Kubernetes Status with its code; a 500 is logged, never its secrets. */
export function errors(server: ServerContext): Koa.Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      const apiError = toApiError(err);
      if (apiError.code >= 500) {
        server.logger.error('request failed', {
          method: ctx.method,
          path: ctx.path,
          code: apiError.code,
          error: err instanceof Error ? (err.stack ?? err.message) : String(err),
        });
      }
      if (ctx.respond === false) return; // a watch already streaming: nothing more to send
      writeStatus(ctx, apiError.status);
    }
  };
}
