import type { KubeObject } from '@listwatch/api';
import type { Revision } from './storage.js';

// APIObjectVersioner (k8s.io/apiserver/pkg/storage/api_object_versioner.go): the one place
// storage turns a backend revision into the resourceVersion of an object or a list, and an
// object's resourceVersion back into a revision. Backends, the cacher and GuaranteedUpdate go
// through it, so the decimal-string form lives in one file.

/** UpdateObject: a copy of `object` whose resourceVersion is `revision`. */
export function updateObject<T extends KubeObject>(object: T, revision: Revision): T {
  return { ...object, metadata: { ...object.metadata, resourceVersion: String(revision) } };
}

/** UpdateObject in place, on the metadata of an object storage has just decoded (a fresh copy). */
export function setResourceVersion(metadata: Record<string, unknown>, revision: Revision): void {
  metadata['resourceVersion'] = String(revision);
}

/** UpdateList: the resourceVersion of a list (or a bookmark) read at `revision`. */
export function listResourceVersion(revision: Revision): string {
  return String(revision);
}

/**
 * ObjectResourceVersion: the revision an object was read at; 0 when it has none (an object
 * storage did not return). Storage only reads it from objects it wrote, so it is digits.
 */
export function objectResourceVersion(object: KubeObject): Revision {
  const value = object.metadata.resourceVersion;
  return value ? Number(value) : 0;
}
