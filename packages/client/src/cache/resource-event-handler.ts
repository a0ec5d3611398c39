import type { KubeObject } from '@listwatch/api';
import type { KubernetesObject } from '../runtime/kubernetes-object.js';
import type { DeletedFinalStateUnknown } from './deleted-final-state-unknown.js';

/**
 * Receives an informer's notifications (client-go ResourceEventHandler and
 * ResourceEventHandlerFuncs in one: every method is optional).
 */
export interface ResourceEventHandler<T extends KubernetesObject = KubeObject> {
  /** `isInInitialList` is true for objects of the initial list, false for later additions. */
  onAdd?(obj: T, isInInitialList: boolean): void;
  /** Also called on resync and relist with the unchanged object: compare resourceVersions. */
  onUpdate?(oldObj: T, newObj: T): void;
  /** Gets a DeletedFinalStateUnknown when the delete was missed and found by a relist. */
  onDelete?(obj: T | DeletedFinalStateUnknown<T>): void;
}
