import { metaV1Time, type DeleteOptions, type KubeObject } from '@listwatch/api';

// The deletion steps of k8s.io/apiserver pkg/registry/rest/delete.go (BeforeDelete) and
// pkg/registry/generic/registry/store.go (markAsDeleting), on plain objects.

/**
 * How a kind's dependents go when a delete does not say (k8s.io/apiserver pkg/registry/rest
 * delete.go GarbageCollectionPolicy): DeleteDependents (background), OrphanDependents (kube's
 * choice for a few legacy group versions, e.g. batch/v1 Jobs and v1 ReplicationControllers), or
 * Unsupported (the object never gets a garbage collector finalizer).
 */
export type GarbageCollectionPolicy = 'DeleteDependents' | 'OrphanDependents' | 'Unsupported';

/** A strategy's answer to "how long may this object take to go" (CheckGracefulDelete). */
export interface GracefulDeleteStrategy {
  /** DefaultGarbageCollectionPolicy; DeleteDependents when absent, as for most kinds. */
  defaultGarbageCollectionPolicy?: GarbageCollectionPolicy;
  /**
   * The grace period in seconds this delete gives the object (0: at once, but still through the
   * update that marks it), or undefined when the kind has no graceful deletion.
   */
  checkGracefulDelete?(object: KubeObject, options: DeleteOptions): number | undefined;
}

export interface BeforeDelete {
  /** The object is written with a deletionTimestamp `gracePeriodSeconds` ahead, not removed. */
  graceful: boolean;
  /** A longer-or-equal graceful deletion is already under way: nothing changes. */
  pending: boolean;
  /** The object as it is to be written (deletionTimestamp, deletionGracePeriodSeconds). */
  object: KubeObject;
  /** The grace period of a graceful delete. */
  gracePeriodSeconds: number;
}

function withMeta(object: KubeObject, meta: Partial<KubeObject['metadata']>): KubeObject {
  return { ...object, metadata: { ...object.metadata, ...meta } };
}

/**
 * BeforeDelete: whether a delete is graceful, already pending, or immediate, and the marked
 * object. A negative grace period is 1 s. An object already being deleted may only have its
 * grace period shortened; one whose grace period is 0 (or unset) goes at once.
 */
export function beforeDelete(
  strategy: GracefulDeleteStrategy,
  current: KubeObject,
  options: DeleteOptions,
  now: number,
): BeforeDelete {
  const requested =
    options.gracePeriodSeconds !== undefined && options.gracePeriodSeconds < 0
      ? 1
      : options.gracePeriodSeconds;
  let object = current;
  const stored = current.metadata.deletionGracePeriodSeconds;
  if (stored !== undefined && stored < 0)
    object = withMeta(object, { deletionGracePeriodSeconds: 1 });
  const immediate: BeforeDelete = {
    graceful: false,
    pending: false,
    object,
    gracePeriodSeconds: 0,
  };
  if (!strategy.checkGracefulDelete) return immediate;
  const { deletionTimestamp, deletionGracePeriodSeconds: period } = object.metadata;
  if (deletionTimestamp !== undefined) {
    if (period === undefined || period === 0) return immediate;
    if (requested === undefined || requested >= period)
      return { graceful: false, pending: true, object, gracePeriodSeconds: period };
    // Shortened: the deadline moves back by the difference.
    const deadline = Date.parse(deletionTimestamp) + (requested - period) * 1000;
    return {
      graceful: true,
      pending: false,
      object: withMeta(object, {
        deletionTimestamp: metaV1Time(deadline),
        deletionGracePeriodSeconds: requested,
      }),
      gracePeriodSeconds: requested,
    };
  }
  const grace = strategy.checkGracefulDelete(object, {
    ...options,
    ...(requested !== undefined ? { gracePeriodSeconds: requested } : {}),
  });
  if (grace === undefined) return immediate;
  const generation = object.metadata.generation;
  return {
    graceful: true,
    pending: false,
    object: withMeta(object, {
      deletionTimestamp: metaV1Time(now + grace * 1000),
      deletionGracePeriodSeconds: grace,
      // Controllers see a bumped generation when deletion starts.
      ...(generation !== undefined && generation > 0 ? { generation: generation + 1 } : {}),
    }),
    gracePeriodSeconds: grace,
  };
}

/**
 * markAsDeleting: an object kept by finalizers gets deletionTimestamp now (or keeps an earlier
 * one) and a grace period of 0; the first mark bumps its generation.
 */
export function markAsDeleting(object: KubeObject, finalizers: string[], now: number): KubeObject {
  const { deletionTimestamp, generation } = object.metadata;
  const nowText = metaV1Time(now);
  const keepEarlier = deletionTimestamp !== undefined && Date.parse(deletionTimestamp) <= now;
  return withMeta(object, {
    finalizers,
    deletionTimestamp: keepEarlier ? deletionTimestamp : nowText,
    deletionGracePeriodSeconds: 0,
    ...(deletionTimestamp === undefined && generation !== undefined && generation > 0
      ? { generation: generation + 1 }
      : {}),
  });
}

export const ORPHAN_FINALIZER = 'orphan';
export const FOREGROUND_FINALIZER = 'foregroundDeletion';

/** store.go shouldOrphanDependents: options first, then the object's finalizers, then the kind. */
function shouldOrphanDependents(
  policy: GarbageCollectionPolicy,
  finalizers: readonly string[],
  options: DeleteOptions,
): boolean {
  if (policy === 'Unsupported') return false;
  if (options.orphanDependents !== undefined) return options.orphanDependents;
  if (options.propagationPolicy !== undefined) return options.propagationPolicy === 'Orphan';
  for (const f of finalizers) {
    if (f === ORPHAN_FINALIZER) return true;
    if (f === FOREGROUND_FINALIZER) return false;
  }
  return policy === 'OrphanDependents';
}

/** store.go shouldDeleteDependents: only an explicit Foreground or the finalizer asks for it. */
function shouldDeleteDependents(
  policy: GarbageCollectionPolicy,
  finalizers: readonly string[],
  options: DeleteOptions,
): boolean {
  if (policy === 'Unsupported') return false;
  if (options.orphanDependents !== undefined) return false;
  if (options.propagationPolicy !== undefined) return options.propagationPolicy === 'Foreground';
  for (const f of finalizers) {
    if (f === FOREGROUND_FINALIZER) return true;
    if (f === ORPHAN_FINALIZER) return false;
  }
  return false;
}

/**
 * The finalizers an object is to carry for the garbage collector once this delete is asked
 * (store.go deletionFinalizersForGarbageCollection): the other finalizers in their order, then
 * `orphan` and/or `foregroundDeletion` as the options, the object's own GC finalizer or the
 * kind's default policy decide.
 */
export function deletionFinalizersForGarbageCollection(
  strategy: GracefulDeleteStrategy,
  object: KubeObject,
  options: DeleteOptions,
): string[] {
  const policy = strategy.defaultGarbageCollectionPolicy ?? 'DeleteDependents';
  const current = object.metadata.finalizers ?? [];
  const kept = current.filter((f) => f !== ORPHAN_FINALIZER && f !== FOREGROUND_FINALIZER);
  if (shouldOrphanDependents(policy, current, options)) kept.push(ORPHAN_FINALIZER);
  if (shouldDeleteDependents(policy, current, options)) kept.push(FOREGROUND_FINALIZER);
  // The same set: the object keeps its own order.
  const same = new Set(current);
  if (same.size === new Set(kept).size && kept.every((f) => same.has(f))) return [...current];
  return kept;
}
