import {
  ApiError,
  decodeDeleteOptions,
  deleteOptionsFromQuery,
  parseListOptions,
  validateDeleteOptions,
  type DeleteOptions,
} from '@listwatch/api';
import { decodeBody, readBody } from './body.js';
import { requireName, type RequestScope } from './request-scope.js';
import { listOf, writeList, writeObject } from './response.js';

// DELETE of one object and of a collection (endpoints/handlers/delete.go): DeleteOptions
// decoded, the Store's GracefulDeleter or CollectionDeleter called, the answer encoded.

/**
 * DeleteOptions from the body, or from the query when the body is empty (endpoints/handlers
 * delete.go): kubectl and the typed clients send them in the body.
 */
async function deleteOptions(scope: RequestScope): Promise<DeleteOptions> {
  const raw = await readBody(scope.ctx.req, scope.server.maxRequestBodyBytes);
  const options =
    raw.length === 0
      ? deleteOptionsFromQuery(scope.query)
      : decodeDeleteOptions(decodeBody(raw, scope.ctx.get('content-type') || 'application/json'));
  validateDeleteOptions(options);
  return options;
}

/**
 * DELETE one object. Objects with finalizers are only marked (deletionTimestamp) and kept until
 * their finalizers are removed, pods bound to a node until their kubelet confirms; a kind whose
 * strategy deletes its own way (namespaces) does so. A marked object is the reply, 202 when the
 * client asked for cascading deletion (orphanDependents: false).
 */
export async function deleteObject(scope: RequestScope): Promise<void> {
  const name = requireName(scope);
  if (scope.info.subresource !== undefined) throw ApiError.methodNotAllowed();
  const options = await deleteOptions(scope);
  const { reply, deleted } = await scope.store.delete(scope.context, name, options);
  const code = !deleted && options.orphanDependents === false ? 202 : 200;
  writeObject(scope.ctx, code, reply, scope.definition);
}

/** DELETE on a collection: the reply lists the objects as each delete left them. */
export async function deleteCollection(scope: RequestScope): Promise<void> {
  const listOptions = parseListOptions(scope.query, { definition: scope.definition });
  const options = await deleteOptions(scope);
  const result = await scope.store.deleteCollection(scope.context, options, listOptions);
  writeList(
    scope.ctx,
    listOf(scope.definition, { resourceVersion: result.resourceVersion }, result.items),
    scope.definition,
  );
}
