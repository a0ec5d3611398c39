import { admitNamespaceDeletion, forceLiveLookup } from '../../../admission/namespace-lifecycle.js';
import { beginNamespaceDeletion } from './delete.js';
import { fieldErrors, isRecord, type KubeObject } from '@listwatch/api';
import type { ResourceStrategy } from '../../rest/resource-strategy.js';

// The Namespace's registry: k8s.io/kubernetes pkg/registry/core/namespace/strategy.go
// (PrepareForCreate, PrepareForUpdate, Canonicalize, namespaceFinalizeStrategy,
// ValidateNamespaceFinalizeUpdate) and storage/storage.go (REST.Delete,
// ShouldDeleteNamespaceDuringUpdate).

/**
 * Every namespace carries its name as this label, so selectors can pick namespaces by name
 * (namespace strategy Canonicalize, on create and update).
 */
const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

export const namespaceStrategy: ResourceStrategy = {
  prepareForCreate(namespace) {
    namespace.metadata.labels = {
      ...namespace.metadata.labels,
      [NAMESPACE_NAME_LABEL]: namespace.metadata.name ?? '',
    };
    namespace['spec'] = {
      finalizers: ['kubernetes'],
      ...(isRecord(namespace['spec']) ? namespace['spec'] : {}),
    };
    namespace['status'] = { phase: 'Active' };
  },
  prepareForUpdate(next, current) {
    next.metadata.labels = {
      ...next.metadata.labels,
      [NAMESPACE_NAME_LABEL]: current.metadata.name ?? '',
    };
  },
  // NamespaceLifecycle refuses the immortal ones. The first delete marks the namespace
  // Terminating; once its spec.finalizers are gone, a delete is the store's.
  async delete({ registry, name, current, options, update }) {
    admitNamespaceDeletion(name);
    forceLiveLookup(registry, name);
    if (!current.metadata.deletionTimestamp) return beginNamespaceDeletion(name, options, update);
    if (specFinalizers(current).length > 0) return current;
    return undefined;
  },
  // PUT namespaces/{name}/finalize: spec.finalizers from the request, the status kept.
  updateSubresources: {
    finalize(next, current) {
      if ('status' in current) next['status'] = current['status'];
      else delete next['status'];
    },
  },
  mayDeleteDuringUpdate: (next) => specFinalizers(next).length === 0,
  validate(namespace) {
    // ValidateNamespaceFinalizeUpdate / validateFinalizerName.
    return specFinalizers(namespace).flatMap((finalizer, i) =>
      STANDARD_FINALIZERS.has(finalizer) || /^[^/]+\/[^/]+$/.test(finalizer)
        ? []
        : [
            fieldErrors.invalid(
              `spec.finalizers[${i}]`,
              finalizer,
              'name is neither a standard finalizer name nor is it fully qualified',
            ),
          ],
    );
  },
};

/** Finalizers kube knows by their bare name (apimachinery standardFinalizers). */
const STANDARD_FINALIZERS = new Set(['kubernetes', 'orphan', 'foregroundDeletion']);

function specFinalizers(namespace: KubeObject): string[] {
  const spec = namespace['spec'];
  if (!isRecord(spec) || !Array.isArray(spec['finalizers'])) return [];
  return spec['finalizers'].filter((f): f is string => typeof f === 'string');
}
