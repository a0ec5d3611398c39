import { ApiError, metaV1Now, type KubeObject } from '@listwatch/api';
import type { SubresourceStrategy } from '../../rest/resource-strategy.js';

// pods/binding: k8s.io/kubernetes pkg/registry/core/pod/storage/storage.go (BindingREST.Create,
// assignPod, setPodNodeAndMetadata) — the scheduler's way to assign a node: only once, only to
// a pod not being deleted and without scheduling gates; the Binding's annotations are merged
// and PodScheduled set True, in one storage update that no field manager sees.

function targetNode(binding: KubeObject): string {
  const target = binding['target'] as { name?: unknown } | undefined;
  return typeof target?.name === 'string' ? target.name : '';
}

export const podBinding: SubresourceStrategy = {
  gvk: { group: '', version: 'v1', kind: 'Binding' },
  validate(binding, name) {
    // BindingREST.Create: the name first (400), then ValidatePodBinding (an aggregate there,
    // which kube answers 500; here the 422 its field error is).
    if (binding.metadata.name !== name) {
      throw ApiError.badRequest('name in URL does not match name in Binding object');
    }
    if (!targetNode(binding)) {
      throw ApiError.invalid({ kind: 'Binding' }, name, [
        { type: 'FieldValueRequired', field: 'target.name', detail: '' },
      ]);
    }
  },
  apply(pod, binding, gr) {
    const name = pod.metadata.name ?? '';
    // Storage preconditions of the Binding's uid and resourceVersion: 409 on pods.
    const { uid, resourceVersion } = binding.metadata;
    if (uid && uid !== pod.metadata.uid) {
      throw ApiError.conflict(
        gr,
        name,
        `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${pod.metadata.uid ?? ''}`,
      );
    }
    if (resourceVersion && resourceVersion !== pod.metadata.resourceVersion) {
      throw ApiError.conflict(
        gr,
        name,
        `Precondition failed: ResourceVersion in precondition: ${resourceVersion}, ResourceVersion in object meta: ${pod.metadata.resourceVersion ?? ''}`,
      );
    }
    // assignPod: any other refusal is a 409 on pods/binding.
    const refuse = (why: string) =>
      ApiError.conflict({ group: '', resource: 'pods/binding' }, name, why);
    if (pod.metadata.deletionTimestamp) {
      throw refuse(`pod ${name} is being deleted, cannot be assigned to a host`);
    }
    const spec = (pod['spec'] ?? {}) as { nodeName?: string; schedulingGates?: unknown[] };
    if (spec.nodeName) {
      throw refuse(`pod ${name} is already assigned to node "${spec.nodeName}"`);
    }
    if (spec.schedulingGates?.length) {
      throw refuse(`pod ${name} has non-empty .spec.schedulingGates`);
    }
    const annotations = { ...pod.metadata.annotations, ...binding.metadata.annotations };
    const metadata = Object.keys(annotations).length
      ? { ...pod.metadata, annotations }
      : pod.metadata;
    const status = (pod['status'] ?? {}) as { conditions?: PodCondition[] };
    // The pod is written straight to storage, past the field manager: its managedFields stay
    // as they were and nobody owns spec.nodeName or the PodScheduled condition
    // (kubernetes/kubernetes#127508 shows the same of a real cluster).
    return {
      ...pod,
      metadata,
      spec: { ...spec, nodeName: targetNode(binding) },
      status: { ...status, conditions: scheduled(status.conditions ?? []) },
    };
  },
};

interface PodCondition {
  type?: string;
  status?: string;
  lastProbeTime?: string | null;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/**
 * podutil.UpdatePodCondition with PodScheduled True: the condition replaced whole, its
 * transition time kept if it already was True.
 */
function scheduled(conditions: readonly PodCondition[]): PodCondition[] {
  const old = conditions.find((c) => c.type === 'PodScheduled');
  const condition: PodCondition = {
    type: 'PodScheduled',
    status: 'True',
    lastProbeTime: null,
    lastTransitionTime:
      old?.status === 'True' && old.lastTransitionTime ? old.lastTransitionTime : metaV1Now(),
  };
  return old ? conditions.map((c) => (c === old ? condition : c)) : [...conditions, condition];
}
