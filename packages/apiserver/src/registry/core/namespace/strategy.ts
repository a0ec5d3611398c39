import { admitNamespaceDeletion, forceLiveLookup } from '../../../admission/namespace-lifecycle.js';
import { beginNamespaceDeletion } from './delete.js';
import { fieldErrors } from '@listwatch/api';
import type * as corev1 from 'kubernetes-types/core/v1.js';
import type { ResourceStrategy } from '../../rest/resource-strategy.js';
import type { TypedObject } from '../../rest/typed-object.js';

// The Namespace's registry: k8s.io/kubernetes pkg/registry/core/namespace/strategy.go
// (PrepareForCreate, PrepareForUpdate, Canonicalize, namespaceFinalizeStrategy,
// ValidateNamespaceFinalizeUpdate) and storage/storage.go (REST.Delete,
// ShouldDeleteNamespaceDuringUpdate).

/**
 * Every namespace carries its name as this label, so selectors can pick namespaces by name
 * (namespace strategy Canonicalize, on create and update).
 */
const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

/** A Namespace as decoded (kubernetes-types' core/v1 Namespace). */
export type Namespace = TypedObject<corev1.Namespace>;

export const namespaceStrategy: ResourceStrategy<Namespace> = {
  prepareForCreate(namespace) {
    namespace.metadata.labels = {
      ...namespace.metadata.labels,
      [NAMESPACE_NAME_LABEL]: namespace.metadata.name ?? '',
    };
    namespace.spec = { finalizers: ['kubernetes'], ...namespace.spec };
    namespace.status = { phase: 'Active' };
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
    // The stored namespace, decoded by this strategy before it was written.
    if (specFinalizers(current as Namespace).length > 0) return current;
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

function specFinalizers(namespace: Namespace): string[] {
  return namespace.spec?.finalizers ?? [];
}
