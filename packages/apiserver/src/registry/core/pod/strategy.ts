import type { DeleteOptions } from '@listwatch/api';
import type * as corev1 from 'kubernetes-types/core/v1.js';
import { podBinding } from './binding.js';
import { setObjectDefaults } from '../../defaulting.js';
import { admitPod } from '../../../admission/pod-admission.js';
import { podAttach, podExec, podPortForward } from './subresources.js';
import { podLog } from './log.js';
import { validatePodSpec, validatePodSpecUpdate } from './validation.js';
import type { ResourceStrategy } from '../../rest/resource-strategy.js';
import type { TypedObject } from '../../rest/typed-object.js';

// The Pod's registry strategy: k8s.io/kubernetes pkg/registry/core/pod/strategy.go (v1.32: no
// metadata.generation on pods; that came with PodObservedGenerationTracking in 1.33).

/** v1 defaulting's spec.terminationGracePeriodSeconds (pkg/apis/core/v1/defaults.go). */
const DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS = 30;

/** A Pod as decoded (kubernetes-types' core/v1 Pod). */
export type Pod = TypedObject<corev1.Pod>;

/** Its containers and init containers. */
function allContainers(spec: Pod['spec']): NonNullable<NonNullable<Pod['spec']>['containers']> {
  return [...(spec?.containers ?? []), ...(spec?.initContainers ?? [])];
}

/**
 * CheckGracefulDelete: the grace period asked for, else the pod's own, else the default; a pod
 * no node runs (unbound) or that has finished (Succeeded, Failed) has nothing to stop and goes
 * at once. Negative is 1 s.
 */
export function podGracePeriod(pod: Pod, options: DeleteOptions): number {
  let period =
    options.gracePeriodSeconds ??
    pod.spec?.terminationGracePeriodSeconds ??
    DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS;
  if (!pod.spec?.nodeName) period = 0;
  const phase = pod.status?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') period = 0;
  return period < 0 ? 1 : period;
}

/**
 * SetDefaults_Pod (pkg/apis/core/v1/defaults.go): requests default to limits, service links
 * on, and with the host's network every container port is also a host port.
 */
export function setPodDefaults(pod: Pod): void {
  const spec = (pod.spec ??= {});
  for (const { resources } of allContainers(spec)) {
    if (!resources?.limits) continue;
    const requests = (resources.requests ??= {});
    for (const [key, value] of Object.entries(resources.limits))
      if (!(key in requests)) requests[key] = value;
  }
  spec.enableServiceLinks ??= true;
  if (spec.hostNetwork === true) {
    for (const container of allContainers(spec))
      for (const port of container.ports ?? [])
        if (!port.hostPort && port.containerPort !== undefined) port.hostPort = port.containerPort;
  }
}

/**
 * qos.GetPodQOS (pkg/apis/core/helper/qos), for cpu and memory: no requests or limits at all is
 * BestEffort; every container limiting both, with requests equal to limits, Guaranteed.
 */
export function podQOSClass(pod: Pod): string {
  let any = false;
  let guaranteed = true;
  for (const { resources } of allContainers(pod.spec)) {
    const requests = resources?.requests ?? {};
    const limits = resources?.limits ?? {};
    for (const name of ['cpu', 'memory']) {
      if (requests[name] !== undefined || limits[name] !== undefined) any = true;
      if (limits[name] === undefined) guaranteed = false;
      else if (requests[name] !== undefined && requests[name] !== limits[name]) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

export const podStrategy: ResourceStrategy<Pod> = {
  decode: setPodDefaults,
  validate: (pod) => validatePodSpec(pod.spec, 'spec', { pod: true }),
  // The stored pod is compared as kube reads it from storage: defaulted.
  validateUpdate(next, current) {
    const old = structuredClone(current);
    setObjectDefaults(old, { group: '', version: 'v1', kind: 'Pod' });
    setPodDefaults(old);
    return validatePodSpecUpdate(next.spec, old.spec);
  },
  // A new pod is Pending until a kubelet says otherwise, with its QoS class.
  prepareForCreate(pod) {
    pod.status = { phase: 'Pending', qosClass: podQOSClass(pod), ...pod.status };
  },
  // The ServiceAccount and DefaultTolerationSeconds admission plugins.
  admit: admitPod,
  // Every pod delete goes through the graceful path; the kubelet confirms with a 0 s delete.
  checkGracefulDelete: podGracePeriod,
  // pod storage's ReturnDeletedObject: a delete answers with the pod, not a Status.
  returnDeletedObject: true,
  subresources: { binding: podBinding },
  connect: { log: podLog, exec: podExec, attach: podAttach, portforward: podPortForward },
};
