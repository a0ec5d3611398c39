import { isRecord, metaV1Now, type KubeObject } from '@listwatch/api';
import type { ResourceStrategy } from '../registry/rest/resource-strategy.js';
import { setCustomResourceDefinitionDefaults } from './customresourcedefinition-defaults.js';
import {
  validateCustomResourceDefinition,
  validateCustomResourceDefinitionUpdate,
} from './customresourcedefinition-validation.js';
import { type CustomResourceDefinition } from './types.js';

// The CRD registry strategy (apiextensions-apiserver pkg/registry/customresourcedefinition
// strategy.go) and its REST.Delete (etcd.go): status is the controllers', generation follows
// spec, the storage version is recorded in status.storedVersions, and a delete only marks the
// CRD (finalizer customresourcecleanup.apiextensions.k8s.io, condition Terminating) until the
// finalizing controller has removed its objects.

export const CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

function storageVersionOf(crd: CustomResourceDefinition): string | undefined {
  const versions = Array.isArray(crd.spec?.versions) ? crd.spec.versions : [];
  return versions.find((v) => isRecord(v) && v.storage === true)?.name;
}

function withStoredVersion(crd: CustomResourceDefinition): void {
  const version = storageVersionOf(crd);
  const status = (crd.status ??= {});
  const stored = status.storedVersions ?? [];
  if (version && !stored.includes(version)) status.storedVersions = [...stored, version];
}

function specOf(object: KubeObject): string {
  return JSON.stringify(object['spec'] ?? null);
}

export const customResourceDefinitionStrategy: ResourceStrategy = {
  decode(object) {
    setCustomResourceDefinitionDefaults(object);
  },
  prepareForCreate(object) {
    const crd = object as CustomResourceDefinition;
    crd.status = {};
    crd.metadata.generation = 1;
    withStoredVersion(crd);
  },
  prepareForUpdate(next, current) {
    if (specOf(next) !== specOf(current))
      next.metadata.generation = (current.metadata.generation ?? 0) + 1;
    withStoredVersion(next as CustomResourceDefinition);
  },
  // ValidateCustomResourceDefinition on create; on update its Update form, which includes it.
  validateCreate(object) {
    return validateCustomResourceDefinition(object as CustomResourceDefinition);
  },
  validateUpdate(object, old) {
    return validateCustomResourceDefinitionUpdate(
      object as CustomResourceDefinition,
      old as CustomResourceDefinition,
    );
  },
  delete({ update }) {
    return update((stored) => markTerminating(stored as CustomResourceDefinition));
  },
};

/** etcd.go Delete: deletionTimestamp, the cleanup finalizer, condition Terminating. */
function markTerminating(crd: CustomResourceDefinition): CustomResourceDefinition {
  if (crd.metadata.deletionTimestamp) return crd;
  const conditions = (crd.status?.conditions ?? []).filter((c) => c.type !== 'Terminating');
  return {
    ...crd,
    metadata: {
      ...crd.metadata,
      deletionTimestamp: metaV1Now(),
      finalizers: [...new Set([...(crd.metadata.finalizers ?? []), CLEANUP_FINALIZER])],
    },
    status: {
      ...crd.status,
      conditions: [
        ...conditions,
        {
          type: 'Terminating',
          status: 'True',
          lastTransitionTime: metaV1Now(),
          reason: 'InstanceDeletionPending',
          message:
            'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
        },
      ],
    },
  };
}
