import type { KubeObject } from '@listwatch/api';
import type { Revision, Storage, TryUpdate } from './storage.js';
import { StorageError, isStorageError } from './storage-error.js';
import { decodeObject, encodeObject, isStale } from './stored-object.js';
import { objectResourceVersion, updateObject } from './api-object-versioner.js';

/** A state of a key as this storage wrote it: its stored JSON (encodeObject's) and revision. */
export interface WrittenState {
  json: string;
  revision: Revision;
}

/** What guaranteedUpdate needs of a storage. */
export interface GuaranteedUpdateStorage extends Pick<Storage, 'get' | 'update'> {
  /**
   * update() of an object already encoded (encodeObject's JSON) if the key is at
   * `expectedRevision`; otherwise the key's current state, read in the same transaction
   * (undefined: it is gone).
   */
  updateEncoded?(
    key: string,
    json: string,
    expectedRevision: Revision,
  ): Promise<{ updated: KubeObject } | { current: KubeObject | undefined }>;
}

/**
 * Read-modify-write with optimistic concurrency, as kube-apiserver's GuaranteedUpdate
 * (k8s.io/apiserver/pkg/storage/etcd3/store.go): take the current state, let `tryUpdate` compute
 * the next one, write it only if the key still has the mod revision that was read, and start
 * over with fresh state when someone else got there first. An update that changes nothing is not
 * written (no new revision), as in kube, unless the value was read through an older transformer
 * (rewriting is how keys are rotated).
 *
 * With `cachedExisting` (the watch cache's copy, as cacher.go GuaranteedUpdate passes it) the
 * first attempt skips the read: the write's compare-and-swap proves it current. Whatever the
 * stale copy may have caused — a conflict, an error from `tryUpdate`, a no-op — is decided again
 * on a fresh read, and an error stands only when the fresh read is at the same revision.
 *
 * `written` (what this storage itself last wrote under the key) is such a copy too: it is taken
 * instead of the cache's unless older, so an update right after this apiserver's own write, before
 * the watch cache has seen it, needs no read either, and one at the same revision no encoding.
 */
export async function guaranteedUpdate(
  storage: GuaranteedUpdateStorage,
  key: string,
  tryUpdate: TryUpdate,
  cachedExisting?: KubeObject,
  written?: WrittenState,
): Promise<KubeObject> {
  let current: KubeObject | undefined;
  let before: string;
  // Whether `current` was read from storage (origStateIsCurrent).
  let isCurrent = cachedExisting === undefined && written === undefined;
  if (written && (!cachedExisting || written.revision >= objectResourceVersion(cachedExisting))) {
    // Decoded afresh: a private copy, as below.
    before = written.json;
    current = decodeObject(key, before, written.revision);
  } else if (cachedExisting) {
    // A private copy: tryUpdate may change what it is given, and the cache's object is shared.
    before = encodeObject(key, cachedExisting);
    current = decodeObject(key, before, objectResourceVersion(cachedExisting));
  } else {
    current = await storage.get(key);
    before = current ? encodeObject(key, current) : '';
  }
  const refresh = async (): Promise<void> => {
    current = await storage.get(key);
    before = current ? encodeObject(key, current) : '';
    isCurrent = true;
  };
  for (;;) {
    if (!current) throw StorageError.keyNotFound(key);
    const revision = objectResourceVersion(current);
    let next: KubeObject;
    let after: string;
    try {
      next = await tryUpdate(current);
      after = encodeObject(key, next);
    } catch (err) {
      if (isCurrent) throw err;
      // Perhaps the cached state was stale: the error stands only if it was not.
      await refresh();
      if (current !== undefined && objectResourceVersion(current) === revision) throw err;
      continue;
    }
    if (after === before && !isStale(current)) {
      // A no-op is only known to be one against the current state.
      if (!isCurrent) {
        await refresh();
        continue;
      }
      return updateObject(next, revision);
    }
    if (storage.updateEncoded) {
      const result = await storage.updateEncoded(key, after, revision);
      if ('updated' in result) return result.updated;
      // The failed transaction read the key: that is the fresh state, no read needed
      // (store.go GuaranteedUpdate's OptimisticPut with GetOnFailure).
      current = result.current;
      before = current ? encodeObject(key, current) : '';
      isCurrent = true;
      continue;
    }
    try {
      return await storage.update(key, next, { expectedRevision: revision });
    } catch (err) {
      if (!isStorageError(err, 'ResourceVersionConflicts')) throw err;
      await refresh();
    }
  }
}
