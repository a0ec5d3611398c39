import { ApiError } from '@listwatch/api';
import type Koa from 'koa';
import type { UserInfo } from '../authentication/user.js';
import type { Attributes } from '../authorization/attributes.js';
import type { ServerContext } from '../server-context.js';
import { decodeBody, readBody } from './body.js';

// The virtual, create-only review resources kubectl asks (`kubectl auth can-i`, `auth can-i
// --list`, `auth whoami`): pkg/registry/authorization/*review/rest.go and
// pkg/registry/authentication/selfsubjectreview/rest.go, and TokenReview for webhook token
// authenticators (pkg/registry/authentication/tokenreview/storage.go). Nothing is stored.

const PATHS: Record<string, string> = {
  '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews': 'SelfSubjectAccessReview',
  '/apis/authorization.k8s.io/v1/subjectaccessreviews': 'SubjectAccessReview',
  '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews': 'SelfSubjectRulesReview',
  '/apis/authentication.k8s.io/v1/selfsubjectreviews': 'SelfSubjectReview',
  '/apis/authentication.k8s.io/v1/tokenreviews': 'TokenReview',
};

/** authenticationv1.UserInfo of a user. */
function userInfo(user: UserInfo): Record<string, unknown> {
  return {
    username: user.name,
    ...(user.uid ? { uid: user.uid } : {}),
    groups: user.groups,
    ...(user.extra ? { extra: user.extra } : {}),
  };
}

/** TokenReview's status for its spec (tokenreview/storage.go Create). */
async function tokenReview(
  server: ServerContext,
  spec: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const token = spec['token'];
  if (typeof token !== 'string' || token === '')
    throw ApiError.badRequest('token is required for TokenReview in authentication');
  const audiences = Array.isArray(spec['audiences'])
    ? spec['audiences'].filter((a): a is string => typeof a === 'string')
    : [];
  const review = await server.authenticator.reviewToken(token, audiences);
  if (!review) return { user: {} };
  return {
    authenticated: true,
    user: userInfo(review.user),
    ...(review.audiences.length ? { audiences: review.audiences } : {}),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** The attributes a review asks about (authorizationutil.ResourceAttributesFrom & co). */
function attributesOf(user: UserInfo, spec: Record<string, unknown>, kind: string): Attributes {
  const resource = spec['resourceAttributes'];
  const nonResource = spec['nonResourceAttributes'];
  if (isRecord(resource)) {
    const optional = (key: string) => (text(resource[key]) ? { [key]: text(resource[key]) } : {});
    return {
      user,
      verb: text(resource['verb']),
      resourceRequest: true,
      path: '',
      apiGroup: text(resource['group']),
      resource: text(resource['resource']),
      ...optional('namespace'),
      ...optional('subresource'),
      ...optional('name'),
    };
  }
  if (isRecord(nonResource))
    return {
      user,
      verb: text(nonResource['verb']),
      resourceRequest: false,
      path: text(nonResource['path']),
      apiGroup: '',
    };
  throw ApiError.invalid({ group: 'authorization.k8s.io', kind }, '', [
    {
      type: 'FieldValueRequired',
      field: 'spec.resourceAttributes',
      detail: 'exactly one of nonResourceAttributes or resourceAttributes must be specified',
    },
  ]);
}

/** Serves the review resources; every other request goes on. */
export function reviews(server: ServerContext): Koa.Middleware {
  return async (ctx, next) => {
    const kind = PATHS[ctx.path];
    if (kind === undefined) {
      await next();
      return;
    }
    if (ctx.method !== 'POST')
      throw ApiError.methodNotAllowed(
        'the server does not allow this method on the requested resource',
      );
    const user = ctx.state['user'] as UserInfo;
    const apiVersion = ctx.path.split('/').slice(2, 4).join('/');
    const body = decodeBody(
      await readBody(ctx.req, server.maxRequestBodyBytes),
      ctx.get('content-type'),
    );
    if (!isRecord(body)) throw ApiError.badRequest(`a ${kind} must be an object`);
    const spec = isRecord(body['spec']) ? body['spec'] : {};
    let status: Record<string, unknown>;
    switch (kind) {
      case 'SelfSubjectReview':
        status = { userInfo: userInfo(user) };
        break;
      case 'TokenReview':
        status = await tokenReview(server, spec);
        break;
      case 'SelfSubjectRulesReview':
        status = server.authorizer.rulesReview(user, text(spec['namespace']));
        break;
      default: {
        const subject: UserInfo =
          kind === 'SubjectAccessReview'
            ? {
                name: text(spec['user']),
                groups: Array.isArray(spec['groups']) ? spec['groups'].map(text) : [],
                ...(text(spec['uid']) ? { uid: text(spec['uid']) } : {}),
              }
            : user;
        const allowed = server.authorizer.allowed(attributesOf(subject, spec, kind));
        status = { allowed, ...(allowed ? {} : { reason: '' }) };
      }
    }
    ctx.status = 201;
    ctx.type = 'application/json';
    ctx.body = JSON.stringify({
      kind,
      apiVersion,
      metadata: { creationTimestamp: null },
      spec,
      status,
    });
  };
}
