import { parseGetOptions, parseListOptions } from '@listwatch/api';
import type { RequestScope } from './request-scope.js';
import { listOf, writeList, writeObject } from './response.js';

// GET and LIST (endpoints/handlers/get.go): the options parsed, the Store asked, the answer
// encoded.

/** GET one object. */
export async function getObject(scope: RequestScope, name: string): Promise<void> {
  const object = await scope.store.get(scope.context, name, parseGetOptions(scope.query));
  writeObject(scope.ctx, 200, object, scope.definition);
}

/** LIST with every resourceVersion semantic, served by the watch cache (or storage behind it). */
export async function listObjects(scope: RequestScope): Promise<void> {
  const options = parseListOptions(scope.query, { definition: scope.definition });
  const result = await scope.store.list(scope.context, options);
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
