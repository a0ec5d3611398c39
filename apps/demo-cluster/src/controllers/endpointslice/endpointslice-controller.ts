import {
  isApiError,
  labelSelectorFromMatchLabels,
  objectKey,
  type KubeObject,
} from '@listwatch/api';
import {
  deletedObject,
  enqueueKeys,
  splitMetaNamespaceKey,
  type Controller,
  type DeletedFinalStateUnknown,
} from '@listwatch/client';
import { isDeepStrictEqual } from 'node:util';
import {
  cachedResource,
  workQueueController,
  type CachedResource,
  type ControllerOptions,
} from '../controller-options.js';
import {
  cachedObject,
  controllerOf,
  isPodReady,
  newControllerRef,
  resources,
  type Pod,
} from '../objects.js';

// Follows kubernetes pkg/controller/endpointslice/endpointslice_controller.go (syncService) and
// staging/src/k8s.io/endpointslice/reconciler.go, with one slice per Service (kube packs 100
// endpoints a slice).

/** The label naming a slice's Service (discovery.LabelServiceName). */
export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
/** The label naming who manages a slice (discovery.LabelManagedBy), and our value of it. */
export const MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by';
export const CONTROLLER_NAME = 'endpointslice-controller.k8s.io';

interface ServicePort {
  name?: string;
  port: number;
  targetPort?: number | string;
  protocol?: string;
}

export interface Service extends KubeObject {
  spec?: { selector?: Record<string, string>; ports?: ServicePort[]; [field: string]: unknown };
}

export interface Endpoint {
  addresses: string[];
  conditions: { ready: boolean; serving: boolean; terminating: boolean };
  nodeName?: string;
  targetRef: { kind: 'Pod'; namespace: string; name: string; uid: string };
}

export interface EndpointSlice extends KubeObject {
  addressType: 'IPv4' | 'IPv6' | 'FQDN';
  endpoints?: Endpoint[];
  ports?: { name: string; port: number; protocol: string }[];
}

/**
 * The port a Service port leads to on a pod: its targetPort's number, or the number of the
 * container port of that name (podutil.FindPort); the Service port when targetPort is unset.
 */
function podPort(pod: Pod, port: ServicePort): number | undefined {
  const target = port.targetPort ?? port.port;
  if (typeof target === 'number') return target;
  for (const container of pod.spec?.containers ?? []) {
    const ports = (container['ports'] ?? []) as { name?: string; containerPort?: number }[];
    const found = ports.find((p) => p.name === target);
    if (found?.containerPort !== undefined) return found.containerPort;
  }
  return undefined;
}

/** What a Service's slice says: its pods with an address, and its ports (reconciler.go). */
export function desiredSlice(
  service: Service,
  pods: readonly Pod[],
): Pick<EndpointSlice, 'endpoints' | 'ports'> {
  const withAddress = pods.filter(
    (p) => p.status?.podIP && p.status.phase !== 'Succeeded' && p.status.phase !== 'Failed',
  );
  const endpoints: Endpoint[] = withAddress
    .map((pod) => {
      const terminating = Boolean(pod.metadata.deletionTimestamp);
      const ready = isPodReady(pod);
      return {
        addresses: [pod.status?.podIP ?? ''],
        conditions: { ready: ready && !terminating, serving: ready, terminating },
        ...(pod.spec?.nodeName ? { nodeName: pod.spec.nodeName } : {}),
        targetRef: {
          kind: 'Pod' as const,
          namespace: pod.metadata.namespace ?? '',
          name: pod.metadata.name ?? '',
          uid: pod.metadata.uid ?? '',
        },
      };
    })
    .sort((a, b) => a.targetRef.name.localeCompare(b.targetRef.name));
  const [first] = withAddress;
  const ports = (service.spec?.ports ?? []).flatMap((port) => {
    const number = first ? podPort(first, port) : undefined;
    return number === undefined
      ? []
      : [{ name: port.name ?? '', port: number, protocol: port.protocol ?? 'TCP' }];
  });
  return { endpoints, ports };
}

/**
 * Gives every Service with a selector an EndpointSlice (discovery.k8s.io/v1, named
 * `<service>-<5 chars>`, owned by the Service, labelled with its name) listing the pods it
 * selects that have an address: ready ones ready, terminating ones terminating. Pods coming,
 * going, turning ready and Services changing all rewrite it; a Service without a selector is
 * left to whoever manages its endpoints.
 */
export class EndpointSliceController {
  readonly controller: Controller<string>;
  private readonly services: CachedResource<Service>;
  private readonly pods: CachedResource<Pod>;
  private readonly slices: CachedResource<EndpointSlice>;

  constructor(options: ControllerOptions) {
    this.services = cachedResource<Service>(options, resources.services);
    this.pods = cachedResource<Pod>(options, resources.pods);
    this.slices = cachedResource<EndpointSlice>(options, resources.endpointslices);
    const enqueue = { add: (key: string) => this.controller.enqueue(key) };
    const serviceRegistration = this.services.informer.addEventHandler(
      enqueueKeys(enqueue, { skipResyncs: true }),
    );
    const podRegistration = this.pods.informer.addEventHandler({
      onAdd: (pod) => this.enqueueServicesOf(pod),
      onUpdate: (oldPod, newPod) => {
        if (oldPod.metadata.resourceVersion === newPod.metadata.resourceVersion) return;
        this.enqueueServicesOf(oldPod);
        this.enqueueServicesOf(newPod);
      },
      onDelete: (obj) => this.enqueueServicesOf(obj),
    });
    const sliceRegistration = this.slices.informer.addEventHandler({
      onAdd: (slice) => this.enqueueServiceOf(slice),
      onUpdate: (_, slice) => this.enqueueServiceOf(slice),
      onDelete: (obj) => this.enqueueServiceOf(obj),
    });
    this.controller = workQueueController(options, 'endpointslice', (key) => this.sync(key), [
      serviceRegistration,
      podRegistration,
      sliceRegistration,
    ]);
  }

  run(signal: AbortSignal): Promise<void> {
    return this.controller.run(signal);
  }

  /** The Services in the pod's namespace whose selector picks it (getPodServiceMemberships). */
  private enqueueServicesOf(obj: Pod | DeletedFinalStateUnknown<Pod>): void {
    const pod = deletedObject(obj);
    if (!pod) return;
    const namespace = pod.metadata.namespace ?? '';
    for (const service of this.services.lister.namespace(namespace).list()) {
      const selector = service.spec?.selector;
      if (!selector || Object.keys(selector).length === 0) continue;
      if (labelSelectorFromMatchLabels(selector).matches(pod.metadata.labels ?? {}))
        this.controller.enqueue(objectKey(service.metadata));
    }
  }

  /** A slice changed or went: its Service is looked at again, so a slice deleted comes back. */
  private enqueueServiceOf(obj: EndpointSlice | DeletedFinalStateUnknown<EndpointSlice>): void {
    const slice = deletedObject(obj);
    const name = slice?.metadata.labels?.[SERVICE_NAME_LABEL];
    if (!slice || !name || slice.metadata.labels?.[MANAGED_BY_LABEL] !== CONTROLLER_NAME) return;
    this.controller.enqueue(objectKey({ namespace: slice.metadata.namespace ?? '', name }));
  }

  private async sync(key: string): Promise<void> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    const service = cachedObject(this.services.lister, namespace, name);
    // A deleted Service's slices are owned by it: the garbage collector's.
    if (!service || service.metadata.deletionTimestamp) return;
    const selector = service.spec?.selector;
    if (!selector || Object.keys(selector).length === 0) return;
    const match = labelSelectorFromMatchLabels(selector);
    const pods = this.pods.lister
      .namespace(namespace)
      .list()
      .filter((pod) => match.matches(pod.metadata.labels ?? {}));
    const desired = desiredSlice(service, pods);
    const owned = this.slices.lister
      .namespace(namespace)
      .list()
      .filter(
        (slice) =>
          slice.metadata.labels?.[SERVICE_NAME_LABEL] === name &&
          slice.metadata.labels[MANAGED_BY_LABEL] === CONTROLLER_NAME &&
          controllerOf(slice)?.uid === service.metadata.uid,
      );
    const client = this.slices.client.namespace(namespace);
    const [slice, ...extra] = owned;
    if (!slice) {
      await client.create({
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: {
          generateName: `${name}-`,
          namespace,
          labels: {
            ...service.metadata.labels,
            [SERVICE_NAME_LABEL]: name,
            [MANAGED_BY_LABEL]: CONTROLLER_NAME,
          },
          ownerReferences: [newControllerRef(service, 'v1', 'Service')],
        },
        addressType: 'IPv4',
        ...desired,
      });
    } else if (
      !isDeepStrictEqual(slice.endpoints ?? [], desired.endpoints) ||
      !isDeepStrictEqual(slice.ports ?? [], desired.ports)
    ) {
      // An update on the cached resourceVersion: a conflict (409) means the cache was behind
      // and the key is retried once it caught up.
      await client.update({ ...slice, ...desired });
    }
    for (const other of extra) {
      try {
        await client.delete(other.metadata.name ?? '');
      } catch (err) {
        if (!isApiError(err) || err.code !== 404) throw err;
      }
    }
  }
}
