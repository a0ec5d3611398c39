import type { KubeObject } from '@listwatch/api';
import type { Storage, TryUpdate } from './storage.js';
import { StorageError, isStorageError } from './storage-error.js';
import { encodeObject, isStale } from './stored-object.js';

/**
 * Read-modify-write with optimistic concurrency, as kube-apiserver's GuaranteedUpdate: read the
 * current state, let `tryUpdate` compute the next one, write it only if the key still has the
 * mod revision that was read, and start over with fresh state when someone else got there first.
 * An update that changes nothing is not written (no new revision), as in kube, unless the value
 * was read through an older transformer (rewriting is how keys are rotated).
 */
export async function guaranteedUpdate(
  storage: Pick<Storage, 'get' | 'update'>,
  key: string,
  tryUpdate: TryUpdate,
): Promise<KubeObject> {
  for (;;) {
    const current = await storage.get(key);
    if (!current) throw StorageError.keyNotFound(key);
    const revision = Number(current.metadata.resourceVersion);
    const before = encodeObject(key, current);
    const next = await tryUpdate(current);
    const after = encodeObject(key, next);
    if (after === before && !isStale(current)) {
      return { ...next, metadata: { ...next.metadata, resourceVersion: String(revision) } };
    }
    try {
      return await storage.update(key, next, { expectedRevision: revision });
    } catch (err) {
      if (isStorageError(err, 'ResourceVersionConflicts')) continue;
      throw err;
    }
  }
}
