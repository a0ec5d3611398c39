import { ApiError } from '@listwatch/api';
import type Koa from 'koa';
import { readBody } from '../handlers/body.js';
import type { ServerContext } from '../server-context.js';

/** Methods whose requests carry a body the handlers read. */
const WITH_BODY = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Reads a request's body before the request takes an in-flight slot, within the request timeout:
 * a client trickling its body in holds a connection, never the capacity others' writes need.
 * A body refused (408 too slow, 413 too large) ends its HTTP/1.1 connection after the answer,
 * since the rest of it would still be on the way.
 */
export function requestBody(server: ServerContext): Koa.Middleware {
  return async (ctx, next) => {
    if (WITH_BODY.has(ctx.method)) {
      try {
        await readBody(ctx.req, server.maxRequestBodyBytes, server.requestTimeoutMs);
      } catch (err) {
        if (err instanceof ApiError && ctx.req.httpVersionMajor === 1)
          ctx.set('Connection', 'close');
        throw err;
      }
    }
    await next();
  };
}
