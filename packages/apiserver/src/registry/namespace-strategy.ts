import { admitNamespaceDeletion, beginNamespaceDeletion } from './namespace-lifecycle.js';
import type { ResourceStrategy } from './strategy.js';

// The Namespace's registry: k8s.io/kubernetes pkg/registry/core/namespace/strategy.go
// (PrepareForCreate, PrepareForUpdate, Canonicalize) and storage/storage.go (REST.Delete).

/**
 * Every namespace carries its name as this label, so selectors can pick namespaces by name
 * (namespace strategy Canonicalize, on create and update).
 */
const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

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
  // NamespaceLifecycle refuses the immortal ones; the rest turn Terminating and are emptied.
  async delete({ registry, logger, name, current, dryRun }) {
    admitNamespaceDeletion(name);
    if (dryRun) return current;
    return beginNamespaceDeletion(registry, name, logger);
  },
};
