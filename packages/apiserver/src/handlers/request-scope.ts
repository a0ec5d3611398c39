import {
  ApiError,
  groupResourceOf,
  type GroupResource,
  type ResourceDefinition,
} from '@listwatch/api';
import type Koa from 'koa';
import { requestAttributes, type Attributes } from '../authorization/attributes.js';
import type { UserInfo } from '../authentication/user.js';
import type { Store } from '../registry/generic/store.js';
import type { RequestInfo } from '../request/request-info.js';
import type { ResourceEntry } from '../registry/resource-registry.js';
import type { RequestContext } from '../registry/rest/rest.js';
import type { ServerContext } from '../server-context.js';

/** One resource request, resolved: what it targets and the Store it goes through. */
export interface RequestScope {
  ctx: Koa.Context;
  server: ServerContext;
  info: RequestInfo;
  definition: ResourceDefinition;
  /** The resource's Store: every verb goes through it. */
  store: Store;
  /** What the storages are told of this request. */
  context: RequestContext;
  namespace: string | undefined;
  query: URLSearchParams;
  /** `pods` / `deployments.apps`: how errors name the resource. */
  gr: GroupResource;
}

export function requestScope(
  ctx: Koa.Context,
  server: ServerContext,
  info: RequestInfo,
  entry: ResourceEntry,
): RequestScope {
  const { definition } = entry;
  if (!definition.namespaced && info.namespace !== undefined) {
    throw ApiError.notFound({ resource: 'namespaces' }, info.namespace);
  }
  const namespace = definition.namespaced ? info.namespace : undefined;
  const query = new URLSearchParams(ctx.querystring);
  return {
    ctx,
    server,
    info,
    definition,
    store: entry.store,
    context: requestContext(ctx, server, namespace, query),
    namespace,
    query,
    gr: groupResourceOf(definition),
  };
}

/** The request's authorized attributes (set by the authorization middleware), or derived anew. */
function attributesOf(ctx: Koa.Context, query: URLSearchParams): Attributes {
  const state = ctx.state as { attributes?: Attributes; user?: UserInfo };
  if (state.attributes) return state.attributes;
  const user = state.user ?? { name: '', groups: [] };
  return requestAttributes(user, ctx.method, ctx.path, query);
}

/** What the storages are told of a request (kube's request context): never the koa context. */
function requestContext(
  ctx: Koa.Context,
  server: ServerContext,
  namespace: string | undefined,
  query: URLSearchParams,
): RequestContext {
  return {
    namespace,
    attributes: attributesOf(ctx, query),
    authorizer: server.authorizer,
    authenticator: server.authenticator,
    logger: server.logger,
    inputFailed: (err) =>
      server.logger.warn('a write failed on its input', {
        method: ctx.method,
        path: ctx.path,
        error: err instanceof Error ? (err.stack ?? err.message) : String(err),
      }),
  };
}

export function requireName(scope: RequestScope): string {
  const name = scope.info.name;
  if (name === undefined) throw ApiError.methodNotAllowed();
  return name;
}

/** Query `dryRun=All`: validate and answer, write nothing. */
export function isDryRun(scope: RequestScope): boolean {
  const values = scope.query.getAll('dryRun');
  for (const v of values) if (v !== 'All') throw ApiError.badRequest(`Invalid dry run value: ${v}`);
  return values.length > 0;
}
