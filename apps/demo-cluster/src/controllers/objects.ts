import {
  ApiError,
  findBuiltinResource,
  isApiError,
  type KubeObject,
  type MetaLabelSelector,
  type OwnerReference,
  type ResourceDefinition,
} from '@listwatch/api';
import type { Lister } from '@listwatch/client';

// The few fields of core/v1 and apps/v1 types the demo's controllers read and write.

export interface Container {
  name: string;
  image?: string;
  [field: string]: unknown;
}

export interface PodCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime?: string;
  lastProbeTime?: string | null;
  reason?: string;
  message?: string;
}

export interface ContainerStatus {
  name: string;
  image?: string;
  imageID?: string;
  containerID?: string;
  ready: boolean;
  started?: boolean;
  restartCount: number;
  state?: {
    running?: { startedAt?: string };
    waiting?: { reason?: string };
    terminated?: {
      exitCode: number;
      reason?: string;
      startedAt?: string;
      finishedAt?: string;
      containerID?: string;
    };
  };
  lastState?: ContainerStatus['state'];
}

export interface Pod extends KubeObject {
  spec?: {
    nodeName?: string;
    containers?: Container[];
    restartPolicy?: 'Always' | 'OnFailure' | 'Never';
    [field: string]: unknown;
  };
  status?: {
    phase?: 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';
    podIP?: string;
    podIPs?: { ip: string }[];
    hostIP?: string;
    startTime?: string;
    conditions?: PodCondition[];
    containerStatuses?: ContainerStatus[];
  };
}

export interface PodTemplate {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
}

export interface ReplicaSet extends KubeObject {
  spec?: {
    replicas?: number;
    minReadySeconds?: number;
    selector?: MetaLabelSelector;
    template?: PodTemplate;
  };
  status?: {
    replicas?: number;
    fullyLabeledReplicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
    observedGeneration?: number;
  };
}

export interface DeploymentCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastUpdateTime?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface DeploymentStrategy {
  type?: 'RollingUpdate' | 'Recreate';
  rollingUpdate?: { maxSurge?: number | string; maxUnavailable?: number | string };
}

export interface Deployment extends KubeObject {
  spec?: {
    replicas?: number;
    selector?: MetaLabelSelector;
    template?: PodTemplate;
    strategy?: DeploymentStrategy;
    minReadySeconds?: number;
    revisionHistoryLimit?: number;
    paused?: boolean;
    progressDeadlineSeconds?: number;
  };
  status?: {
    observedGeneration?: number;
    replicas?: number;
    updatedReplicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
    unavailableReplicas?: number;
    conditions?: DeploymentCondition[];
    collisionCount?: number;
  };
}

export interface NodeCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastHeartbeatTime?: string;
  lastTransitionTime?: string;
}

export interface Node extends KubeObject {
  spec?: { podCIDR?: string; unschedulable?: boolean };
  status?: {
    conditions?: NodeCondition[];
    addresses?: { type: string; address: string }[];
    daemonEndpoints?: { kubeletEndpoint?: { Port?: number } };
    capacity?: Record<string, string>;
    allocatable?: Record<string, string>;
    nodeInfo?: Record<string, string>;
  };
}

/** metav1.Now() as JSON, under the name the controllers use. */
export { metaV1Now as now } from '@listwatch/api';

/** The owner reference with controller=true, if any (metav1.GetControllerOf). */
export function controllerOf(obj: KubeObject): OwnerReference | undefined {
  return obj.metadata.ownerReferences?.find((ref) => ref.controller === true);
}

/** The reference a controller puts on what it creates (apimachinery metav1.NewControllerRef). */
export function newControllerRef(
  owner: KubeObject,
  apiVersion: string,
  kind: string,
): OwnerReference {
  return {
    apiVersion,
    kind,
    name: owner.metadata.name ?? '',
    uid: owner.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

/**
 * The owner a controller reference points at, from an informer's cache: of `kind`, in the
 * dependent's namespace, and the very object (same uid), not a later one of the same name
 * (kube's controllers' resolveControllerRef).
 */
export function resolveControllerRef<T extends KubeObject>(
  lister: Lister<T>,
  kind: string,
  namespace: string,
  ref: OwnerReference,
): T | undefined {
  if (ref.kind !== kind) return undefined;
  const owner = cachedObject(lister, namespace, ref.name);
  return owner?.metadata.uid === ref.uid ? owner : undefined;
}

/**
 * The object `namespace/name` in an informer's cache, or undefined when the cache has none (the
 * NotFound of a lister's Get, which kube's controllers read as "deleted since it was queued").
 */
export function cachedObject<T extends KubeObject>(
  lister: Lister<T>,
  namespace: string,
  name: string,
): T | undefined {
  try {
    return lister.namespace(namespace).get(name);
  } catch (err) {
    if (isApiError(err) && err.code === 404) return undefined;
    throw err;
  }
}

/** Neither finished nor being deleted (controller.IsPodActive). */
export function isPodActive(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && !pod.metadata.deletionTimestamp;
}

/** The Ready condition is True (podutil.IsPodReady). */
export function isPodReady(pod: Pod): boolean {
  return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

/** Ready and not cordoned: where the scheduler may place pods. */
export function isNodeSchedulable(node: Node): boolean {
  if (node.spec?.unschedulable) return false;
  return node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

function builtin(plural: string, group = ''): ResourceDefinition {
  const definition = findBuiltinResource(plural, group);
  if (!definition) throw ApiError.internalError(`no built-in resource ${plural}`);
  return definition;
}

/** The resources the demo works with, as the API defines them. */
export const resources = {
  namespaces: builtin('namespaces'),
  pods: builtin('pods'),
  nodes: builtin('nodes'),
  replicasets: builtin('replicasets', 'apps'),
  deployments: builtin('deployments', 'apps'),
  leases: builtin('leases', 'coordination.k8s.io'),
  configmaps: builtin('configmaps'),
  jobs: builtin('jobs', 'batch'),
  cronjobs: builtin('cronjobs', 'batch'),
  services: builtin('services'),
  endpointslices: builtin('endpointslices', 'discovery.k8s.io'),
};
