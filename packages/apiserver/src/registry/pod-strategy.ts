import type { DeleteOptions, KubeObject } from '@listwatch/api';
import { podBinding } from './binding.js';
import { podLog } from './pod-log.js';
import type { ResourceStrategy } from './strategy.js';

// The Pod's registry strategy: k8s.io/kubernetes pkg/registry/core/pod/strategy.go (v1.32: no
// metadata.generation on pods; that came with PodObservedGenerationTracking in 1.33).

/** v1 defaulting's spec.terminationGracePeriodSeconds (pkg/apis/core/v1/defaults.go). */
const DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS = 30;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * CheckGracefulDelete: the grace period asked for, else the pod's own, else the default; a pod
 * no node runs (unbound) or that has finished (Succeeded, Failed) has nothing to stop and goes
 * at once. Negative is 1 s.
 */
export function podGracePeriod(pod: KubeObject, options: DeleteOptions): number {
  const spec = isRecord(pod['spec']) ? pod['spec'] : {};
  const status = isRecord(pod['status']) ? pod['status'] : {};
  const own = spec['terminationGracePeriodSeconds'];
  let period =
    options.gracePeriodSeconds ??
    (typeof own === 'number' ? own : DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS);
  if (typeof spec['nodeName'] !== 'string' || spec['nodeName'] === '') period = 0;
  if (status['phase'] === 'Succeeded' || status['phase'] === 'Failed') period = 0;
  return period < 0 ? 1 : period;
}

export const podStrategy: ResourceStrategy = {
  // A new pod is Pending until a kubelet says otherwise.
  prepareForCreate(pod) {
    pod['status'] = { phase: 'Pending', ...(isRecord(pod['status']) ? pod['status'] : {}) };
  },
  // Every pod delete goes through the graceful path; the kubelet confirms with a 0 s delete.
  checkGracefulDelete: podGracePeriod,
  // pod storage's ReturnDeletedObject: a delete answers with the pod, not a Status.
  returnDeletedObject: true,
  subresources: { binding: podBinding },
  connect: { log: podLog },
};
