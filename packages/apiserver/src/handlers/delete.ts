import {
  ApiError,
  parseListOptions,
  successStatus,
  type KubeObject,
  type Status,
} from '@listwatch/api';
import { isStorageError } from '@listwatch/storage';
import { beginNamespaceDeletion } from '../registry/namespace-lifecycle.js';
import { decodeBody, readBody } from './body.js';
import { interpret, isDryRun, objectKey, requireName, type RequestScope } from './request-scope.js';
import { listOf, writeList, writeObject } from './response.js';
import { predicateOf } from './selectors.js';

interface DeleteOptions {
  preconditions?: { uid?: string; resourceVersion?: string };
}

async function deleteOptions(scope: RequestScope): Promise<DeleteOptions> {
  const raw = await readBody(scope.ctx.req, scope.server.maxRequestBodyBytes);
  if (raw.length === 0) return {};
  const decoded = decodeBody(raw, scope.ctx.get('content-type') || 'application/json');
  if (typeof decoded !== 'object' || decoded === null)
    throw ApiError.badRequest('DeleteOptions must be an object');
  return decoded;
}

/** Preconditions of DeleteOptions (uid, resourceVersion): a mismatch is 409 Conflict. */
function checkPreconditions(
  scope: RequestScope,
  name: string,
  current: KubeObject,
  options: DeleteOptions,
): void {
  const want = options.preconditions;
  if (want?.uid !== undefined && want.uid !== current.metadata.uid) {
    throw ApiError.conflict(
      scope.gr,
      name,
      `Precondition failed: UID in precondition: ${want.uid}, UID in object meta: ${current.metadata.uid ?? ''}`,
    );
  }
  if (
    want?.resourceVersion !== undefined &&
    want.resourceVersion !== current.metadata.resourceVersion
  ) {
    throw ApiError.conflict(
      scope.gr,
      name,
      `Precondition failed: ResourceVersion in precondition: ${want.resourceVersion}, ResourceVersion in object meta: ${current.metadata.resourceVersion ?? ''}`,
    );
  }
}

/**
 * What an immediate delete answers (registry/generic Store.Delete): pods return the deleted
 * object (ReturnDeletedObject), everything else a Success Status naming it.
 */
function deletedReply(scope: RequestScope, deleted: KubeObject): KubeObject | Status {
  if (scope.definition.plural === 'pods') return deleted;
  return successStatus({
    name: deleted.metadata.name ?? '',
    ...(scope.definition.group ? { group: scope.definition.group } : {}),
    kind: scope.definition.plural,
    ...(deleted.metadata.uid ? { uid: deleted.metadata.uid } : {}),
  });
}

/**
 * DELETE one object. Objects with finalizers are only marked (deletionTimestamp) and kept until
 * their finalizers are removed; namespaces go through the namespace lifecycle. The reply is the
 * object's last state, as kube-apiserver sends it.
 */
export async function deleteObject(scope: RequestScope): Promise<void> {
  const name = requireName(scope);
  if (scope.info.subresource !== undefined)
    throw ApiError.methodNotAllowed(
      'the server does not allow this method on the requested resource',
    );
  const options = await deleteOptions(scope);
  const { storage } = scope.server;
  const key = objectKey(scope, name);
  const current = await storage.get(key);
  if (!current) throw ApiError.notFound(scope.gr, name);
  checkPreconditions(scope, name, current, options);
  if (isDryRun(scope)) return writeObject(scope.ctx, 200, current, scope.definition);
  try {
    if (scope.definition.plural === 'namespaces') {
      const terminating = await beginNamespaceDeletion(
        scope.server.registry,
        name,
        scope.server.logger,
      );
      return writeObject(scope.ctx, 200, terminating, scope.definition);
    }
    if (current.metadata.finalizers?.length) {
      const marked = await storage.guaranteedUpdate(key, (latest) =>
        latest.metadata.deletionTimestamp
          ? latest
          : {
              ...latest,
              metadata: {
                ...latest.metadata,
                deletionTimestamp: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
                deletionGracePeriodSeconds: 0,
              },
            },
      );
      return writeObject(scope.ctx, 200, marked, scope.definition);
    }
    const deleted = await storage.delete(key, {
      expectedRevision: Number(current.metadata.resourceVersion),
    });
    writeObject(scope.ctx, 200, deletedReply(scope, deleted), scope.definition);
  } catch (err) {
    if (isStorageError(err, 'ResourceVersionConflicts')) throw ApiError.conflict(scope.gr, name);
    throw interpret(scope, name, err);
  }
}

/** DELETE on a collection: every object the selectors match, returned as a list. */
export async function deleteCollection(scope: RequestScope): Promise<void> {
  const options = parseListOptions(scope.query, { definition: scope.definition });
  await deleteOptions(scope);
  const list = await scope.source.list({
    ...(scope.namespace !== undefined ? { namespace: scope.namespace } : {}),
    predicate: predicateOf(options),
  });
  const deleted: KubeObject[] = [];
  const dryRun = isDryRun(scope);
  for (const object of list.items) {
    const key = objectKey(scope, object.metadata.name ?? '');
    if (dryRun) {
      deleted.push(object);
      continue;
    }
    try {
      deleted.push(await scope.server.storage.delete(key));
    } catch (err) {
      if (!isStorageError(err, 'KeyNotFound')) throw err;
    }
  }
  writeList(
    scope.ctx,
    listOf(scope.definition, { resourceVersion: list.resourceVersion }, deleted),
    scope.definition,
  );
}
