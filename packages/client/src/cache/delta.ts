import type { KubeObject } from '@listwatch/api';
import type { KubernetesObject } from '../runtime/kubernetes-object.js';
import type { DeletedFinalStateUnknown } from './deleted-final-state-unknown.js';

/**
 * What happened to an object (client-go DeltaType). `Replaced` comes from a relist, `Sync` from
 * a periodic resync of the cache's own content.
 */
export type DeltaType = 'Added' | 'Updated' | 'Deleted' | 'Replaced' | 'Sync';

export const DeltaType = {
  Added: 'Added',
  Updated: 'Updated',
  Deleted: 'Deleted',
  Replaced: 'Replaced',
  Sync: 'Sync',
} as const satisfies Record<DeltaType, DeltaType>;

/** One change; a `Deleted` delta may carry a tombstone instead of the object. */
export type Delta<T extends KubernetesObject = KubeObject> =
  | { type: Exclude<DeltaType, 'Deleted'>; object: T }
  | { type: 'Deleted'; object: T | DeletedFinalStateUnknown<T> };

/** The changes of one key, oldest first. Never empty when handed out by a queue. */
export type Deltas<T extends KubernetesObject = KubeObject> = readonly Delta<T>[];

export function oldestDelta<T extends KubernetesObject>(deltas: Deltas<T>): Delta<T> | undefined {
  return deltas[0];
}

export function newestDelta<T extends KubernetesObject>(deltas: Deltas<T>): Delta<T> | undefined {
  return deltas[deltas.length - 1];
}
