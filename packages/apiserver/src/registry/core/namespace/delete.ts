import { ApiError, metaV1Now, type DeleteOptions, type KubeObject } from '@listwatch/api';
import type { DeleteRequest } from '../../rest/resource-strategy.js';

// The namespace's REST.Delete (pkg/registry/core/namespace/storage/storage.go): a first delete
// only marks the namespace, through the Store's update of the object being deleted.

/**
 * The first delete of a namespace (pkg/registry/core/namespace/storage REST.Delete): it is
 * marked — deletionTimestamp, phase Terminating, the garbage collector finalizers the options ask
 * for — and stays until the namespace controller has emptied it and removed its `kubernetes`
 * finalizer. Returns the marked namespace (the dry-run answer in a dry run).
 */
export function beginNamespaceDeletion(
  name: string,
  options: DeleteOptions,
  update: DeleteRequest['update'],
): Promise<KubeObject> {
  const mark = (current: KubeObject): KubeObject => {
    const { uid, resourceVersion } = options.preconditions ?? {};
    if (uid !== undefined && uid !== current.metadata.uid)
      throw ApiError.conflict(
        { resource: 'namespaces' },
        name,
        `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${current.metadata.uid ?? ''}`,
      );
    if (resourceVersion !== undefined && resourceVersion !== current.metadata.resourceVersion)
      throw ApiError.conflict(
        { resource: 'namespaces' },
        name,
        `Precondition failed: ResourceVersion in precondition: ${resourceVersion}, ResourceVersion in object meta: ${current.metadata.resourceVersion ?? ''}`,
      );
    const finalizers = new Set(current.metadata.finalizers ?? []);
    setFinalizer(finalizers, ORPHAN, shouldHaveOrphanFinalizer(options, finalizers.has(ORPHAN)));
    setFinalizer(
      finalizers,
      FOREGROUND,
      shouldHaveDeleteDependentsFinalizer(options, finalizers.has(FOREGROUND)),
    );
    const { finalizers: _old, ...meta } = current.metadata;
    return {
      ...current,
      metadata: {
        ...meta,
        deletionTimestamp: current.metadata.deletionTimestamp ?? metaV1Now(),
        ...(finalizers.size > 0 ? { finalizers: [...finalizers] } : {}),
      },
      status: { ...(current['status'] as object | undefined), phase: 'Terminating' },
    };
  };
  return update(mark);
}

const ORPHAN = 'orphan';
const FOREGROUND = 'foregroundDeletion';

function setFinalizer(finalizers: Set<string>, finalizer: string, present: boolean): void {
  if (present) finalizers.add(finalizer);
  else finalizers.delete(finalizer);
}

/** storage.go shouldHaveOrphanFinalizer. */
function shouldHaveOrphanFinalizer(options: DeleteOptions, has: boolean): boolean {
  if (options.orphanDependents !== undefined) return options.orphanDependents;
  if (options.propagationPolicy !== undefined) return options.propagationPolicy === 'Orphan';
  return has;
}

/** storage.go shouldHaveDeleteDependentsFinalizer. */
function shouldHaveDeleteDependentsFinalizer(options: DeleteOptions, has: boolean): boolean {
  if (options.orphanDependents !== undefined) return false;
  if (options.propagationPolicy !== undefined) return options.propagationPolicy === 'Foreground';
  return has;
}
