import { ApiError, type KubeObject } from '@listwatch/api';
import type { SubresourceStrategy } from './strategy.js';

// pods/binding: k8s.io/kubernetes pkg/registry/core/pod/storage/storage.go (BindingREST.Create,
// assignPod, setPodHostAndAnnotations) — the scheduler's way to assign a node: only once, only to
// a pod not being deleted.

function targetNode(binding: KubeObject): string {
  const target = binding['target'] as { name?: unknown } | undefined;
  return typeof target?.name === 'string' ? target.name : '';
}

export const podBinding: SubresourceStrategy = {
  gvk: { group: '', version: 'v1', kind: 'Binding' },
  validate(binding, name) {
    if (!targetNode(binding)) {
      throw ApiError.invalid({ kind: 'Binding' }, name, [
        { type: 'FieldValueRequired', field: 'target.name', detail: '' },
      ]);
    }
    if (binding.metadata.name !== undefined && binding.metadata.name !== name) {
      throw ApiError.badRequest(
        `the name of the object (${binding.metadata.name}) does not match the name on the URL (${name})`,
      );
    }
  },
  apply(pod, binding, gr) {
    const name = pod.metadata.name ?? '';
    if (pod.metadata.deletionTimestamp) {
      throw ApiError.conflict(gr, name, 'pod is being deleted, cannot be assigned to a host');
    }
    const spec = (pod['spec'] ?? {}) as { nodeName?: string };
    if (spec.nodeName) {
      throw ApiError.conflict(
        gr,
        name,
        `pod ${name} is already assigned to node "${spec.nodeName}"`,
      );
    }
    return { ...pod, spec: { ...spec, nodeName: targetNode(binding) } };
  },
};
