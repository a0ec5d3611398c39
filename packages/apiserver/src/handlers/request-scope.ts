import {
  ApiError,
  groupResourceOf,
  type GroupResource,
  type ResourceDefinition,
} from '@listwatch/api';
import { isStorageError, type ListWatchSource, type Storage } from '@listwatch/storage';
import type Koa from 'koa';
import type { RequestInfo } from '../registry/request-info.js';
import type { ResourceEntry } from '../registry/resource-registry.js';
import type { ServerContext } from '../server-context.js';

/** One resource request, resolved: what it targets and where that lives. */
export interface RequestScope {
  ctx: Koa.Context;
  server: ServerContext;
  info: RequestInfo;
  definition: ResourceDefinition;
  source: ListWatchSource;
  /** What this resource's objects are read and written through (ResourceEntry.storage). */
  storage: Storage;
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
  return {
    ctx,
    server,
    info,
    definition,
    source: entry.source,
    storage: entry.storage,
    namespace: definition.namespaced ? info.namespace : undefined,
    query: new URLSearchParams(ctx.querystring),
    gr: groupResourceOf(definition),
  };
}

/** The storage key of the named object of this request. */
export function objectKey(scope: RequestScope, name: string): string {
  return scope.source.keys.object(scope.namespace, name);
}

/** Storage errors as the API reports them for this object (`pods "x" not found`). */
export function interpret(scope: RequestScope, name: string, err: unknown): unknown {
  return isStorageError(err) ? err.interpret(scope.gr, name) : err;
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
