import type { KubernetesObject } from '../runtime/kubernetes-object.js';
import type { Deltas } from './delta.js';
import { putWithKey } from './indexer.js';
import type { ResourceEventHandler } from './resource-event-handler.js';
import type { Store } from './store.js';

/**
 * Applies popped deltas, oldest first, to the informer's store and tells the handler
 * (client-go tools/cache/controller.go processDeltas). Added, Updated, Replaced and Sync all
 * become an add or an update depending on whether the store already has the key — so a relist
 * or resync of a known object is an update with the old object — and Deleted a delete.
 * The store is updated before the handler runs, so a handler reading the store sees the change.
 * `key`, if given, is the deltas' key as `clientState` computes it (a queue's PopProcessFunc
 * hands it over): it saves computing it again.
 */
export function processDeltas<T extends KubernetesObject>(
  handler: ResourceEventHandler<T>,
  clientState: Store<T>,
  deltas: Deltas<T>,
  isInInitialList: boolean,
  key?: string,
): void {
  for (let i = 0; i < deltas.length; i++) {
    const delta = deltas[i]!;
    if (delta.type === 'Deleted') {
      clientState.delete(delta.object);
      handler.onDelete?.(delta.object);
      continue;
    }
    const obj = delta.object;
    const old = key === undefined ? clientState.get(obj) : clientState.getByKey(key);
    if (old !== undefined) {
      if (key === undefined || !putWithKey(clientState, key, obj)) clientState.update(obj);
      handler.onUpdate?.(old, obj);
    } else {
      if (key === undefined || !putWithKey(clientState, key, obj)) clientState.add(obj);
      handler.onAdd?.(obj, isInInitialList);
    }
  }
}
