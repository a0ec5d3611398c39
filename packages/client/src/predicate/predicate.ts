import type { KubernetesObject } from '../runtime/kubernetes-object.js';

/**
 * Filters an informer's notifications before they enqueue anything (controller-runtime
 * pkg/predicate). A missing method lets that kind of event through.
 */
export interface Predicate<T extends KubernetesObject = KubernetesObject> {
  create?(obj: T): boolean;
  update?(oldObj: T, newObj: T): boolean;
  delete?(obj: T): boolean;
}

/**
 * Lets an update through only when metadata.generation changed, i.e. the spec did: status
 * writes, label and annotation edits are skipped (predicate.GenerationChangedPredicate). Every
 * create and delete passes. Objects without a generation (ConfigMaps) never pass an update.
 */
export const generationChangedPredicate: Predicate = {
  update: (oldObj, newObj) => oldObj.metadata?.generation !== newObj.metadata?.generation,
};

/** An update passes when the labels changed (predicate.LabelChangedPredicate). */
export const labelChangedPredicate: Predicate = {
  update: (oldObj, newObj) => !sameEntries(oldObj.metadata?.labels, newObj.metadata?.labels),
};

/** An update passes when the annotations changed (predicate.AnnotationChangedPredicate). */
export const annotationChangedPredicate: Predicate = {
  update: (oldObj, newObj) =>
    !sameEntries(oldObj.metadata?.annotations, newObj.metadata?.annotations),
};

/**
 * An update passes when the resourceVersion changed: resyncs (the same object again) are
 * skipped (predicate.ResourceVersionChangedPredicate).
 */
export const resourceVersionChangedPredicate: Predicate = {
  update: (oldObj, newObj) => oldObj.metadata?.resourceVersion !== newObj.metadata?.resourceVersion,
};

/** Passes when every predicate passes (predicate.And). */
export function and<T extends KubernetesObject>(...predicates: Predicate<T>[]): Predicate<T> {
  return {
    create: (obj) => predicates.every((p) => p.create?.(obj) ?? true),
    update: (o, n) => predicates.every((p) => p.update?.(o, n) ?? true),
    delete: (obj) => predicates.every((p) => p.delete?.(obj) ?? true),
  };
}

/** Passes when any predicate passes (predicate.Or): `or(generationChangedPredicate, labelChangedPredicate)`. */
export function or<T extends KubernetesObject>(...predicates: Predicate<T>[]): Predicate<T> {
  return {
    create: (obj) => predicates.some((p) => p.create?.(obj) ?? true),
    update: (o, n) => predicates.some((p) => p.update?.(o, n) ?? true),
    delete: (obj) => predicates.some((p) => p.delete?.(obj) ?? true),
  };
}

/** Whether two string maps (labels, annotations) hold the same entries; unset is empty. */
function sameEntries(
  a: Record<string, string> | undefined,
  b: Record<string, string> | undefined,
): boolean {
  const aKeys = Object.keys(a ?? {});
  if (aKeys.length !== Object.keys(b ?? {}).length) return false;
  return aKeys.every((k) => b !== undefined && Object.hasOwn(b, k) && b[k] === a![k]);
}
