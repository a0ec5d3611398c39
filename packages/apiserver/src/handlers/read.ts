import {
  ApiError,
  parseGetOptions,
  parseListOptions,
  withExactResourceVersion,
  type GetOptions,
  type KubeObject,
} from '@listwatch/api';
import { interpret, type RequestScope } from './request-scope.js';
import { listOf, writeList, writeObject } from './response.js';
import { predicateOf } from './selectors.js';

/**
 * GET one object. Where from is the source's call (delegator.go Get): no resourceVersion reads
 * storage; "0" (any) and N (not older than N) read the watch cache, or storage when the cache is
 * disabled for the resource or not initialized yet.
 */
export async function getObject(scope: RequestScope, name: string): Promise<void> {
  const object = await readObject(scope, name, parseGetOptions(scope.query));
  writeObject(scope.ctx, 200, object, scope.definition);
}

export async function readObject(
  scope: RequestScope,
  name: string,
  options: GetOptions = {},
): Promise<KubeObject> {
  const request = {
    ...options,
    ...(scope.namespace !== undefined ? { namespace: scope.namespace } : {}),
    name,
  };
  const object = await scope.source.get(request).catch((err: unknown) => {
    throw withExactResourceVersion(interpret(scope, name, err), options.resourceVersion);
  });
  if (!object) throw ApiError.notFound(scope.gr, name);
  return object;
}

/** LIST with every resourceVersion semantic, served by the watch cache (or storage behind it). */
export async function listObjects(scope: RequestScope): Promise<void> {
  const options = parseListOptions(scope.query, { definition: scope.definition });
  // The typed options go down as they are; the source classifies them (classifyList).
  const result = await scope.source
    .list({
      ...options,
      ...(scope.namespace !== undefined ? { namespace: scope.namespace } : {}),
      predicate: predicateOf(options),
    })
    .catch((err: unknown) => {
      throw withExactResourceVersion(err, options.resourceVersion);
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
