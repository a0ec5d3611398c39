import type Koa from 'koa';
import type { UserInfo } from '../authentication/user.js';
import { requestAttributes } from '../authorization/attributes.js';
import type { RequestAuthorizer } from '../authorization/request-authorizer.js';

/** Every request is authorized (403 otherwise); its attributes go on as `ctx.state.attributes`. */
export function authorization(authorizer: RequestAuthorizer): Koa.Middleware {
  return async (ctx, next) => {
    const attributes = requestAttributes(
      ctx.state['user'] as UserInfo,
      ctx.method,
      ctx.path,
      new URLSearchParams(ctx.querystring),
    );
    authorizer.authorize(attributes);
    ctx.state['attributes'] = attributes;
    await next();
  };
}
