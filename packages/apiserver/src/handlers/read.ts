import { ApiError, parseListOptions, parseResourceVersion, type KubeObject } from '@listwatch/api';
import { interpret, objectKey, type RequestScope } from './request-scope.js';
import { listOf, writeList, writeObject } from './response.js';
import { predicateOf } from './selectors.js';

/** GET one object: from storage, or from the cache when `resourceVersion=0` allows any freshness. */
export async function getObject(scope: RequestScope, name: string): Promise<void> {
  const rv = scope.query.get('resourceVersion') ?? '';
  if (rv !== '') parseResourceVersion(rv);
  const object = await readObject(scope, name);
  writeObject(scope.ctx, 200, object, scope.definition);
}

export async function readObject(scope: RequestScope, name: string): Promise<KubeObject> {
  const object = await scope.server.storage.get(objectKey(scope, name)).catch((err: unknown) => {
    throw interpret(scope, name, err);
  });
  if (!object) throw ApiError.notFound(scope.gr, name);
  return object;
}

/** LIST with every resourceVersion semantic, served by the watch cache (or storage behind it). */
export async function listObjects(scope: RequestScope): Promise<void> {
  const options = parseListOptions(scope.query, { definition: scope.definition });
  const result = await scope.source.list({
    ...(scope.namespace !== undefined ? { namespace: scope.namespace } : {}),
    predicate: predicateOf(options),
    ...(options.resourceVersion !== undefined ? { resourceVersion: options.resourceVersion } : {}),
    ...(options.resourceVersionMatch !== undefined
      ? { resourceVersionMatch: options.resourceVersionMatch }
      : {}),
    ...(options.limit !== undefined ? { limit: options.limit } : {}),
    ...(options.continue !== undefined ? { continue: options.continue } : {}),
  });
  writeList(
    scope.ctx,
    listOf(
      scope.definition,
      {
        resourceVersion: result.resourceVersion,
        ...(result.continue !== undefined ? { continue: result.continue } : {}),
        ...(result.remainingItemCount !== undefined
          ? { remainingItemCount: result.remainingItemCount }
          : {}),
      },
      result.items,
    ),
    scope.definition,
    result.shared ? scope.server.listEncodings : undefined,
  );
}
