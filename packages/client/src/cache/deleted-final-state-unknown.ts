import type { KubeObject } from '@listwatch/api';
import type { KubernetesObject } from '../runtime/kubernetes-object.js';

/**
 * The tombstone a relist leaves for an object that vanished while the watch was down: the
 * delete happened but its final state was never seen, so `obj` is the last state the cache
 * knew (possibly stale, or undefined if even that was missing). Handlers' onDelete must accept
 * it (client-go tools/cache/delta_fifo.go DeletedFinalStateUnknown).
 */
export class DeletedFinalStateUnknown<T extends KubernetesObject = KubeObject> {
  constructor(
    readonly key: string,
    readonly obj: T | undefined,
  ) {}
}

export function isDeletedFinalStateUnknown(
  value: unknown,
): value is DeletedFinalStateUnknown<KubernetesObject> {
  return value instanceof DeletedFinalStateUnknown;
}
