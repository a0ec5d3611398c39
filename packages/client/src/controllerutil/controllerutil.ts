import type { ResourceClient } from '../rest/resource-client.js';
import type { KubernetesObject, OwnerReferenceAccessor } from '../runtime/kubernetes-object.js';

/** controllerutil.ContainsFinalizer. */
export function containsFinalizer(obj: KubernetesObject, finalizer: string): boolean {
  return obj.metadata?.finalizers?.includes(finalizer) ?? false;
}

/** controllerutil.AddFinalizer: adds it in memory; true when the object changed. */
export function addFinalizer(obj: KubernetesObject, finalizer: string): boolean {
  if (containsFinalizer(obj, finalizer)) return false;
  obj.metadata ??= {};
  obj.metadata.finalizers = [...(obj.metadata.finalizers ?? []), finalizer];
  return true;
}

/** controllerutil.RemoveFinalizer: removes it in memory; true when the object changed. */
export function removeFinalizer(obj: KubernetesObject, finalizer: string): boolean {
  if (!containsFinalizer(obj, finalizer)) return false;
  obj.metadata!.finalizers = obj.metadata!.finalizers!.filter((f) => f !== finalizer);
  return true;
}

/**
 * Adds `finalizer` on the server with a merge patch, unless `obj` has it already; answers the
 * object as it now is. The patch carries `obj`'s resourceVersion: a list of finalizers is
 * replaced whole, so a concurrent change fails with 409 Conflict (a requeue) instead of being
 * lost (controller-runtime's AddFinalizer + Patch with MergeFromWithOptimisticLock).
 */
export async function addFinalizerWithPatch<T extends KubernetesObject>(
  resource: ResourceClient<T>,
  obj: T,
  finalizer: string,
): Promise<T> {
  if (containsFinalizer(obj, finalizer)) return obj;
  return patchFinalizers(resource, obj, [...(obj.metadata?.finalizers ?? []), finalizer]);
}

/**
 * Removes `finalizer` on the server with a merge patch (see addFinalizerWithPatch), unless `obj`
 * lacks it. Removing the last finalizer of an object being deleted lets the deletion finish.
 */
export async function removeFinalizerWithPatch<T extends KubernetesObject>(
  resource: ResourceClient<T>,
  obj: T,
  finalizer: string,
): Promise<T> {
  if (!containsFinalizer(obj, finalizer)) return obj;
  const rest = (obj.metadata?.finalizers ?? []).filter((f) => f !== finalizer);
  return patchFinalizers(resource, obj, rest);
}

function patchFinalizers<T extends KubernetesObject>(
  resource: ResourceClient<T>,
  obj: T,
  finalizers: string[],
): Promise<T> {
  const name = obj.metadata?.name ?? '';
  const rv = obj.metadata?.resourceVersion;
  return resource.patch(
    name,
    { metadata: { finalizers, ...(rv ? { resourceVersion: rv } : {}) } },
    'merge',
  );
}

/** The owner as an owner reference needs it: a created object's apiVersion, kind, name, uid. */
type Owner = KubernetesObject & { apiVersion?: string; kind?: string };

/**
 * Makes `owner` the controller of `obj` (controllerutil.SetControllerReference): an owner
 * reference with `controller: true` and `blockOwnerDeletion: true`, so `owns()` maps `obj`'s
 * events to `owner` and the garbage collector deletes `obj` with it. Throws when another
 * controller owns `obj` already. `ownerType` (a typed reference such as `coreV1.configmaps`)
 * supplies the owner's apiVersion and kind when the object carries none (controller-runtime
 * finds them in its scheme).
 */
export function setControllerReference(
  owner: Owner,
  obj: KubernetesObject,
  ownerType?: { group: string; version: string; kind?: string | undefined },
): void {
  const typeVersion = ownerType
    ? ownerType.group
      ? `${ownerType.group}/${ownerType.version}`
      : ownerType.version
    : undefined;
  const apiVersion = owner.apiVersion ?? typeVersion;
  const kind = owner.kind ?? ownerType?.kind;
  const name = owner.metadata?.name;
  const uid = owner.metadata?.uid;
  if (!apiVersion || !kind || !name || !uid)
    throw new Error('the owner needs apiVersion, kind, metadata.name and metadata.uid');
  const ref: OwnerReferenceAccessor = {
    apiVersion,
    kind,
    name,
    uid,
    controller: true,
    blockOwnerDeletion: true,
  };
  obj.metadata ??= {};
  const refs = obj.metadata.ownerReferences ?? [];
  const other = refs.find((r) => r.controller === true && r.uid !== uid);
  if (other)
    throw new Error(
      `${obj.metadata.name ?? 'object'} is already owned by another ${other.kind} controller ${other.name}`,
    );
  obj.metadata.ownerReferences = [...refs.filter((r) => r.uid !== uid), ref];
}
