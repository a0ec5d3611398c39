import { ApiError } from '@listwatch/api';
import type Koa from 'koa';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Http2ServerRequest } from 'node:http2';
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

const EXTRA_PREFIX = 'impersonate-extra-';

/** A header's key after the prefix, as client-go escaped it (impersonation.go unescapeExtraKey). */
function unescapeExtraKey(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}

/**
 * `Impersonate-Extra-<key>` headers: one value per header line, as Go's http.Header keeps them
 * (a value is never split at commas); the key is the header name's rest, lower case, unescaped.
 */
function requestedExtra(req: IncomingMessage | Http2ServerRequest): Record<string, string[]> {
  const extra: Record<string, string[]> = {};
  // rawHeaders, not headers: Node joins repeated lines with ", " (and HTTP/2's request has no
  // headersDistinct).
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const header = raw[i]!.toLowerCase();
    if (!header.startsWith(EXTRA_PREFIX)) continue;
    const key = unescapeExtraKey(header.slice(EXTRA_PREFIX.length));
    (extra[key] ??= []).push(raw[i + 1]!);
  }
  return extra;
}

/** What `Impersonate-*` headers ask for, or undefined when none is sent. */
function requested(req: IncomingMessage | Http2ServerRequest): UserInfo | undefined {
  const headers = req.headers;
  const user = headers['impersonate-user'];
  const groups = values(headers, 'impersonate-group');
  const uid = headers['impersonate-uid'];
  const extra = requestedExtra(req);
  const hasExtra = Object.keys(extra).length > 0;
  if (user === undefined) {
    if (groups.length > 0 || uid !== undefined || hasExtra)
      throw ApiError.badRequest('requested impersonation of groups, uid or extra without a user');
    return undefined;
  }
  const name = (Array.isArray(user) ? user[0] : user)?.trim() ?? '';
  if (name === '') throw ApiError.badRequest('Impersonate-User must not be empty');
  return {
    name,
    groups,
    ...(typeof uid === 'string' && uid !== '' ? { uid } : {}),
    ...(hasExtra ? { extra } : {}),
  };
}

/**
 * `Impersonate-User`, `Impersonate-Group`, `Impersonate-Extra-<key>` and `Impersonate-Uid`
 * (k8s.io/apiserver endpoints/filters/impersonation.go): the requester must be allowed the
 * `impersonate` verb on each (users, groups, serviceaccounts, `userextras/<key>` named by each
 * value, uids); the request then goes on as that user, extras included.
 */
export function impersonation(authorizer: RequestAuthorizer): Koa.Middleware {
  return async (ctx, next) => {
    const wanted = requested(ctx.req);
    if (wanted) {
      const requester = ctx.state['user'] as UserInfo;
      const check = (
        resource: string,
        name: string,
        apiGroup = '',
        namespace?: string,
        subresource?: string,
      ) => {
        const attributes: Attributes = {
          user: requester,
          verb: 'impersonate',
          resourceRequest: true,
          path: ctx.path,
          apiGroup,
          resource,
          name,
          ...(namespace !== undefined ? { namespace } : {}),
          ...(subresource !== undefined ? { subresource } : {}),
        };
        authorizer.authorize(attributes);
      };
      const account = SERVICE_ACCOUNT.exec(wanted.name);
      if (account) check('serviceaccounts', account[2]!, '', account[1]);
      else check('users', wanted.name);
      for (const group of wanted.groups) check('groups', group);
      for (const [key, keyValues] of Object.entries(wanted.extra ?? {}))
        for (const value of keyValues)
          check('userextras', value, 'authentication.k8s.io', undefined, key);
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
