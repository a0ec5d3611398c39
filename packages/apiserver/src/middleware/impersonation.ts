import { ApiError } from '@listwatch/api';
import type Koa from 'koa';
import type { IncomingHttpHeaders } from 'node:http';
import {
  ALL_AUTHENTICATED,
  ALL_UNAUTHENTICATED,
  ANONYMOUS,
  type UserInfo,
} from '../authentication/user.js';
import type { Attributes } from '../authorization/attributes.js';
import type { RequestAuthorizer } from '../authorization/request-authorizer.js';

const SERVICE_ACCOUNT = /^system:serviceaccount:([^:]+):([^:]+)$/;

function values(headers: IncomingHttpHeaders, name: string): string[] {
  const value = headers[name];
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : value.split(',')).map((v) => v.trim()).filter(Boolean);
}

/** What `Impersonate-*` headers ask for, or undefined when none is sent. */
function requested(headers: IncomingHttpHeaders): UserInfo | undefined {
  const user = headers['impersonate-user'];
  const groups = values(headers, 'impersonate-group');
  const uid = headers['impersonate-uid'];
  const extras = Object.keys(headers).filter((h) => h.startsWith('impersonate-extra-'));
  if (user === undefined) {
    if (groups.length > 0 || uid !== undefined || extras.length > 0)
      throw ApiError.badRequest('requested impersonation of groups, uid or extra without a user');
    return undefined;
  }
  const name = (Array.isArray(user) ? user[0] : user)?.trim() ?? '';
  if (name === '') throw ApiError.badRequest('Impersonate-User must not be empty');
  return { name, groups, ...(typeof uid === 'string' && uid !== '' ? { uid } : {}) };
}

/**
 * `Impersonate-User`, `Impersonate-Group` and `Impersonate-Uid` (k8s.io/apiserver
 * endpoints/filters/impersonation.go): the requester must be allowed the `impersonate` verb on
 * each (users, groups, serviceaccounts, uids); the request then goes on as that user.
 */
export function impersonation(authorizer: RequestAuthorizer): Koa.Middleware {
  return async (ctx, next) => {
    const wanted = requested(ctx.req.headers);
    if (wanted) {
      const requester = ctx.state['user'] as UserInfo;
      const check = (resource: string, name: string, apiGroup = '', namespace?: string) => {
        const attributes: Attributes = {
          user: requester,
          verb: 'impersonate',
          resourceRequest: true,
          path: ctx.path,
          apiGroup,
          resource,
          name,
          ...(namespace !== undefined ? { namespace } : {}),
        };
        authorizer.authorize(attributes);
      };
      const account = SERVICE_ACCOUNT.exec(wanted.name);
      if (account) check('serviceaccounts', account[2]!, '', account[1]);
      else check('users', wanted.name);
      for (const group of wanted.groups) check('groups', group);
      if (wanted.uid !== undefined) check('uids', wanted.uid, 'authentication.k8s.io');
      const groups = [...wanted.groups];
      if (account && groups.length === 0)
        groups.push('system:serviceaccounts', `system:serviceaccounts:${account[1]!}`);
      const anonymous = wanted.name === ANONYMOUS.name;
      const everyone = anonymous ? ALL_UNAUTHENTICATED : ALL_AUTHENTICATED;
      if (!groups.includes(everyone)) groups.push(everyone);
      ctx.state['user'] = { ...wanted, groups };
      ctx.state['impersonatedBy'] = requester.name;
    }
    await next();
  };
}
