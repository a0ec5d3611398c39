import type Koa from 'koa';
import type { UserInfo } from '../authentication/user.js';
import { requestAttributes } from '../authorization/attributes.js';
import { forbidden, type RequestAuthorizer } from '../authorization/request-authorizer.js';
import { annotateAuthorization } from './audit.js';

/**
 * Every request is authorized (403 otherwise), its decision and reason noted on its audit event;
 * its attributes go on as `ctx.state.attributes`.
 */
export function authorization(authorizer: RequestAuthorizer): Koa.Middleware {
  return async (ctx, next) => {
    const attributes = requestAttributes(
      ctx.state['user'] as UserInfo,
      ctx.method,
      ctx.path,
      new URLSearchParams(ctx.querystring),
    );
    const result = authorizer.decide(attributes);
    annotateAuthorization(ctx.state, result);
    if (result.decision !== 'allow') throw forbidden(attributes, result.reason);
    ctx.state['attributes'] = attributes;
    await next();
  };
}
