import { DeletedFinalStateUnknown } from '../cache/deleted-final-state-unknown.js';
import type { EventHandler } from '../cache/processor-listener.js';
import type { Predicate } from '../predicate/predicate.js';
import type { Request } from '../reconcile/reconcile.js';
import type { KubernetesObject } from '../runtime/kubernetes-object.js';

/** Maps an object to the requests it should trigger (controller-runtime handler.MapFunc). */
export type MapFunc<T extends KubernetesObject = KubernetesObject> = (obj: T) => Request[];

/** handler.EnqueueRequestForObject: the object's own name. */
export function requestForObject(obj: KubernetesObject): Request[] {
  return [{ namespace: obj.metadata?.namespace ?? '', name: obj.metadata?.name ?? '' }];
}

/**
 * handler.EnqueueRequestForOwner with OnlyControllerOwner: the owner reference with
 * `controller: true`, if it is of `owner`'s group and kind, names the request (in the child's
 * namespace: an owner is in its child's namespace or cluster-scoped).
 */
export function requestForOwner(owner: {
  group: string;
  kind: string;
  namespaced: boolean;
}): MapFunc {
  return (obj) => {
    const ref = obj.metadata?.ownerReferences?.find((r) => r.controller === true);
    if (!ref || ref.kind !== owner.kind) return [];
    const slash = ref.apiVersion.indexOf('/');
    const group = slash < 0 ? '' : ref.apiVersion.slice(0, slash);
    if (group !== owner.group) return [];
    return [{ namespace: owner.namespaced ? (obj.metadata?.namespace ?? '') : '', name: ref.name }];
  };
}

/**
 * An informer handler that passes each notification through `predicates`, maps the object to
 * requests and hands their keys to `enqueue`. A delete's tombstone is unwrapped first; an
 * update enqueues what the new object maps to and, for owners, what the old one did (a child
 * whose owner changed tells both), as controller-runtime's handlers do.
 */
export function enqueueMapped<T extends KubernetesObject>(
  enqueue: (request: Request) => void,
  map: MapFunc<T>,
  predicates: Predicate<T>[],
): EventHandler<T> {
  const all = (obj: T): void => {
    for (const r of map(obj)) enqueue(r);
  };
  return {
    onAdd: (obj) => {
      if (predicates.every((p) => p.create?.(obj) ?? true)) all(obj);
    },
    onUpdate: (oldObj, newObj) => {
      if (!predicates.every((p) => p.update?.(oldObj, newObj) ?? true)) return;
      all(oldObj);
      all(newObj);
    },
    onDelete: (deleted) => {
      const obj = deleted instanceof DeletedFinalStateUnknown ? deleted.obj : deleted;
      if (obj === undefined) return;
      if (predicates.every((p) => p.delete?.(obj) ?? true)) all(obj);
    },
  };
}
