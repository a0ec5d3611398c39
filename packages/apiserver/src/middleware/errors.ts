import { toApiError } from '@listwatch/api';
import type Koa from 'koa';
import { ClientClosedRequest } from '../handlers/body.js';
import { writeStatus } from '../handlers/response.js';
import type { ServerContext } from '../server-context.js';
import { atEnd } from './request-end.js';

/** What the access log counts a request the client abandoned as (nginx's 499). */
export const CLIENT_CLOSED_REQUEST = 499;

/** Every failure becomes a Kubernetes Status with its code; a 500 is logged, never its secrets. */
export function errors(server: ServerContext): Koa.Middleware {
  return (ctx, next) =>
    atEnd(ctx, next, (failure) => {
      if (!failure) return;
      const err = failure.error;
      if (err instanceof ClientClosedRequest) {
        // Nobody is left to answer: the client's doing, not a server error.
        ctx.state['code'] = CLIENT_CLOSED_REQUEST;
        ctx.respond = false;
        return;
      }
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
    });
}
