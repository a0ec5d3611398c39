import {
  ApiError,
  decodeDeleteOptions,
  deleteOptionsFromQuery,
  isDryRunOf,
  parseListOptions,
  successStatus,
  validateDeleteOptions,
  type DeleteOptions,
  type KubeObject,
  type Status,
} from '@listwatch/api';
import { isStorageError } from '@listwatch/storage';
import {
  beforeDelete,
  deletionFinalizersForGarbageCollection,
  markAsDeleting,
} from '../registry/graceful-deletion.js';
import { strategyOf } from '../registry/strategy.js';
import { decodeBody, readBody } from './body.js';
import { interpret, objectKey, requireName, type RequestScope } from './request-scope.js';
import { listOf, writeList, writeObject } from './response.js';
import { predicateOf } from './selectors.js';

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
 * What an immediate delete answers (registry/generic Store.Delete finalizeDelete): the deleted
 * object for kinds whose store returns it (pods), else a Success Status naming it.
 */
function deletedReply(scope: RequestScope, deleted: KubeObject): KubeObject | Status {
  if (strategyOf(scope.definition).returnDeletedObject) return deleted;
  return successStatus({
    name: deleted.metadata.name ?? '',
    ...(scope.definition.group ? { group: scope.definition.group } : {}),
    kind: scope.definition.plural,
    ...(deleted.metadata.uid ? { uid: deleted.metadata.uid } : {}),
  });
}

interface Deletion {
  /** The object as it was last: marked (graceful or finalizers pending) or deleted. */
  object: KubeObject;
  /** Gone from storage (or would be, in a dry run). */
  deleted: boolean;
}

/** Leaves the marking update: the object is to be deleted now (store.go errDeleteNow). */
class DeleteNow extends Error {}
/** Leaves the marking update: a graceful deletion is already under way (errAlreadyDeleting). */
class AlreadyDeleting extends Error {}

function sameFinalizers(a: readonly string[], b: readonly string[]): boolean {
  const set = new Set(a);
  return set.size === new Set(b).size && b.every((f) => set.has(f));
}

/**
 * Deletes one object as registry/generic Store.Delete does: preconditions, admission, then
 * BeforeDelete. A graceful delete (pods) or pending finalizers only mark the object
 * (deletionTimestamp, deletionGracePeriodSeconds) through an update; a graceful delete with no
 * grace left, or an object with neither, is removed. A dry run computes the same answer and
 * writes nothing.
 */
async function deleteOne(
  scope: RequestScope,
  name: string,
  options: DeleteOptions,
): Promise<Deletion> {
  const { storage } = scope;
  const key = objectKey(scope, name);
  const current = await storage.get(key);
  if (!current) throw ApiError.notFound(scope.gr, name);
  checkPreconditions(scope, name, current, options);
  const dryRun = isDryRunOf(options);
  const strategy = strategyOf(scope.definition);
  try {
    if (strategy.delete) {
      const { registry, logger } = scope.server;
      const object = await strategy.delete({ registry, logger, name, current, options, dryRun });
      if (object) return { object, deleted: false };
    }
    const first = beforeDelete(strategy, current, options, Date.now());
    // Finalizers cannot change through DeleteOptions once a graceful deletion is pending.
    if (first.pending) return { object: current, deleted: false };
    const finalizers = current.metadata.finalizers ?? [];
    let last = current;
    if (
      first.graceful ||
      finalizers.length > 0 ||
      !sameFinalizers(
        deletionFinalizersForGarbageCollection(strategy, current, options),
        finalizers,
      )
    ) {
      let pendingFinalizers = false;
      let grace = 0;
      // updateForGracefulDeletionAndFinalizers: decided again on the state the update reads.
      const mark = (latest: KubeObject): KubeObject => {
        checkPreconditions(scope, name, latest, options);
        const decided = beforeDelete(strategy, latest, options, Date.now());
        if (decided.pending) throw new AlreadyDeleting();
        const kept = deletionFinalizersForGarbageCollection(strategy, decided.object, options);
        pendingFinalizers = kept.length > 0;
        if (!decided.graceful) {
          if (pendingFinalizers) return markAsDeleting(decided.object, kept, Date.now());
          throw new DeleteNow();
        }
        grace = decided.gracePeriodSeconds;
        const { finalizers: _old, ...meta } = decided.object.metadata;
        return { ...decided.object, metadata: kept.length ? { ...meta, finalizers: kept } : meta };
      };
      try {
        last = dryRun ? mark(current) : await storage.guaranteedUpdate(key, mark);
        if (pendingFinalizers || grace > 0) return { object: last, deleted: false };
      } catch (err) {
        if (err instanceof AlreadyDeleting) return { object: current, deleted: false };
        if (!(err instanceof DeleteNow)) throw err;
      }
    }
    if (dryRun) return { object: last, deleted: true };
    try {
      const deleted = await storage.delete(key, {
        expectedRevision: Number(last.metadata.resourceVersion),
      });
      return { object: deleted, deleted: true };
    } catch (err) {
      // A zero grace period races the kubelet's own confirmation: gone is what was asked.
      if (last !== current && isStorageError(err, 'KeyNotFound'))
        return { object: last, deleted: true };
      throw err;
    }
  } catch (err) {
    if (isStorageError(err, 'ResourceVersionConflicts')) throw ApiError.conflict(scope.gr, name);
    throw interpret(scope, name, err);
  }
}

/**
 * DELETE one object. Objects with finalizers are only marked (deletionTimestamp) and kept until
 * their finalizers are removed, pods bound to a node until their kubelet confirms; a
 * kind whose strategy deletes its own way (namespaces) does so. A marked object is the reply, 202 when the
 * client asked for cascading deletion (orphanDependents: false).
 */
export async function deleteObject(scope: RequestScope): Promise<void> {
  const name = requireName(scope);
  if (scope.info.subresource !== undefined) throw ApiError.methodNotAllowed();
  const options = await deleteOptions(scope);
  const { object, deleted } = await deleteOne(scope, name, options);
  if (deleted) return writeObject(scope.ctx, 200, deletedReply(scope, object), scope.definition);
  const code = options.orphanDependents === false ? 202 : 200;
  writeObject(scope.ctx, code, object, scope.definition);
}

/**
 * DELETE on a collection: every object the selectors match goes through the same delete as one
 * object (admission, finalizers, dry run); the reply lists them.
 */
export async function deleteCollection(scope: RequestScope): Promise<void> {
  const listOptions = parseListOptions(scope.query, { definition: scope.definition });
  const options = await deleteOptions(scope);
  const list = await scope.source.list({
    ...(scope.namespace !== undefined ? { namespace: scope.namespace } : {}),
    predicate: predicateOf(listOptions),
  });
  const deleted: KubeObject[] = [];
  for (const object of list.items) {
    try {
      deleted.push((await deleteOne(scope, object.metadata.name ?? '', options)).object);
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 404)) throw err;
    }
  }
  writeList(
    scope.ctx,
    listOf(scope.definition, { resourceVersion: list.resourceVersion }, deleted),
    scope.definition,
  );
}
