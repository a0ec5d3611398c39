import type Koa from 'koa';
import type { RequestAuthenticator } from '../authentication/request-authenticator.js';

/** Who each request is, as `ctx.state.user`; a credential that fails is 401 here. */
export function authentication(authenticator: RequestAuthenticator): Koa.Middleware {
  return async (ctx, next) => {
    ctx.state['user'] = await authenticator.authenticate(ctx.req);
    await next();
  };
}
