import type { Indexers, SharedIndexInformer, SharedInformerFactory } from '@listwatch/client';
import { controllerOf, resources, type Pod } from './objects.js';

/** Pods by the uid of their controller: a ReplicaSet finds its pods without a scan. */
export const CONTROLLER_UID_INDEX = 'controller-uid';

/** Pods by the node they are bound to: the scheduler counts each node's pods. */
export const NODE_NAME_INDEX = 'spec.nodeName';

export function podControllerUid(pod: Pod): string[] {
  const ref = controllerOf(pod);
  return ref ? [ref.uid] : [];
}

export function podNodeName(pod: Pod): string[] {
  const node = pod.spec?.nodeName;
  return node ? [node] : [];
}

/**
 * Adds the indexes an informer lacks. Informers are shared: the same pods informer serves the
 * ReplicaSet controller and the scheduler, each bringing its own index.
 */
export function ensureIndexers<T extends Pod>(
  informer: SharedIndexInformer<T>,
  indexers: Indexers<T>,
): void {
  const existing = informer.getIndexer().getIndexers();
  const missing = Object.entries(indexers).filter(([name]) => !(name in existing));
  if (missing.length > 0) informer.addIndexers(Object.fromEntries(missing));
}

/**
 * The shared pods informer with the controller-uid index: how the ReplicaSet and Deployment
 * controllers find the pods a ReplicaSet controls (`controlledPods`).
 */
export function podsByController(factory: SharedInformerFactory): SharedIndexInformer<Pod> {
  const informer = factory.informerFor<Pod>(resources.pods);
  ensureIndexers(informer, { [CONTROLLER_UID_INDEX]: podControllerUid });
  return informer;
}

/** The cached pods whose controller has `uid`. */
export function controlledPods(informer: SharedIndexInformer<Pod>, uid: string): Pod[] {
  return informer.getIndexer().byIndex(CONTROLLER_UID_INDEX, uid);
}
