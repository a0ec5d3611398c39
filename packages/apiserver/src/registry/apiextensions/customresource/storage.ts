import type { KubeObject, ResourceDefinition } from '@listwatch/api';
import { UncachedSource, type Storage } from '@listwatch/storage';
import { customResourceOf } from '../../../apiextensions/custom-resource.js';
import { customResourceStrategy } from '../../../apiextensions/custom-resource-strategy.js';
import { nopConversion } from '../../../apiextensions/nop-converter.js';
import { applyDefaults, hasDefaults } from '../../../apiextensions/schema/defaulting.js';
import type { CustomResourceDefinition } from '../../../apiextensions/types.js';
import { ConvertingStorage } from '../../generic/converting-storage.js';
import { Store } from '../../generic/store.js';
import type { ResourceRegistry } from '../../resource-registry.js';
import type { ResourceStrategy } from '../../rest/resource-strategy.js';

// The storage of one CRD version's custom resources (apiextensions-apiserver
// pkg/registry/customresource/etcd.go NewStorage, as crdHandler builds it per version): its
// definition, its strategy from the CRD (schema and CEL validation, status and scale
// subresources as declared) and the server's storage seen in that version.

type Version = CustomResourceDefinition['spec']['versions'][number];

/** What serves one version of a CRD's resource. */
export interface CustomResourceStorage {
  definition: ResourceDefinition;
  strategy: ResourceStrategy;
  /** The server's storage, objects read in this version and written in the storage version. */
  storage: ConvertingStorage;
}

/** The name of the version a CRD's objects are stored in. */
export function storageVersionOf(crd: CustomResourceDefinition): string {
  return crd.spec.versions.find((v) => v.storage)?.name ?? '';
}

/**
 * The storage of `version`'s objects; `terminating` says whether the CRD is being deleted now
 * (create is refused then).
 */
export function customResourceStorage(
  storage: Storage,
  crd: CustomResourceDefinition,
  version: Version,
  terminating?: () => boolean,
): CustomResourceStorage {
  const definition = customResourceOf(crd, version);
  const strategy = customResourceStrategy(crd, version, terminating);
  const conversion = nopConversion(
    `${crd.spec.group}/${version.name}`,
    `${crd.spec.group}/${storageVersionOf(crd)}`,
    hasDefaults(version.schema?.openAPIV3Schema)
      ? (object: KubeObject) => applyDefaults(object, strategy.structural!)
      : undefined,
  );
  return { definition, strategy, storage: new ConvertingStorage(storage, conversion) };
}

/**
 * A Store of the CRD's storage version outside the served registry (crdHandler's
 * GetCustomResourceListerCollectionDeleter): what the finalizer lists and deletes through, also
 * once the CRD is no longer served. No watch cache: it only lists and deletes.
 */
export function customResourceStore(
  registry: ResourceRegistry,
  crd: CustomResourceDefinition,
): Store | undefined {
  const version = crd.spec.versions.find((v) => v.storage);
  if (!version) return undefined;
  const { definition, strategy, storage } = customResourceStorage(registry.storage, crd, version);
  const source = new UncachedSource(storage, definition);
  return new Store({ definition, strategy, storage, source, registry });
}
