import {
  apiVersionOf,
  silentLogger,
  type KubeObject,
  type Logger,
  type ResourceDefinition,
} from '@listwatch/api';
import {
  Controller,
  type EventRecorder,
  type EventType,
  type Lister,
  type ResourceClient,
  type ResourceRefOf,
  type RestClient,
  type SharedIndexInformer,
  type SharedInformerFactory,
} from '@listwatch/client';

/** What every informer-driven controller of the demo is given (kube-controller-manager's ControllerContext). */
export interface ControllerOptions {
  client: RestClient;
  /** Shared with the other controllers of the process: one watch per resource for all of them. */
  factory: SharedInformerFactory;
  /** Parallel syncs of different keys (the --concurrent-*-syncs flags). */
  workers?: number;
  logger?: Logger;
  /** Where the controller records its Events (kube's controllers' eventRecorder); none in unit tests. */
  recorder?: EventRecorder;
}

/**
 * Records an Event about `obj` (client-go EventRecorder.Eventf). Objects from an informer's LIST
 * carry no kind, which `kubectl describe` selects events by: the definition gives it, as the
 * scheme does to client-go's reference.GetReference.
 */
export function recordEvent(
  recorder: EventRecorder | undefined,
  definition: Pick<ResourceDefinition, 'group' | 'version' | 'kind'>,
  obj: KubeObject,
  type: EventType,
  reason: string,
  message: string,
): void {
  recorder?.event(
    { ...obj, apiVersion: apiVersionOf(definition), kind: definition.kind },
    type,
    reason,
    message,
  );
}

/**
 * The work queue and workers of one informer-driven controller (kube's controllers' Run with
 * --concurrent-*-syncs): its name, the options' workers (2 by default) and logger.
 */
export function workQueueController(
  options: ControllerOptions,
  name: string,
  reconcile: (key: string) => Promise<void>,
  cacheSyncs: { hasSynced(): boolean }[],
): Controller<string> {
  return new Controller<string>({
    name,
    workers: options.workers ?? 2,
    logger: options.logger ?? silentLogger,
    reconcile,
    cacheSyncs,
  });
}

/**
 * One resource as a controller uses it: written through the client, read from the shared
 * informer's cache (a kube controller's clientset and lister for a kind).
 */
export interface CachedResource<T extends KubeObject> {
  client: ResourceClient<T>;
  informer: SharedIndexInformer<T>;
  lister: Lister<T>;
}

export function cachedResource<T extends KubeObject>(
  options: ControllerOptions,
  resource: ResourceRefOf<T>,
): CachedResource<T> {
  const informer = options.factory.informerFor<T>(resource);
  return { client: options.client.resource<T>(resource), informer, lister: informer.lister() };
}
