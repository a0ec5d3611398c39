import type { KubeObject } from '@listwatch/api';
import type { KubernetesObject } from '../runtime/kubernetes-object.js';
import type { DeletedFinalStateUnknown } from './deleted-final-state-unknown.js';
import { newIndexer } from './indexer.js';
import { metaNamespaceKeyFunc, type KeyFunc } from './key-func.js';

/** What a FIFO needs from the store it feeds: which keys exist, and their last known state. */
export interface KeyListerGetter<T extends KubernetesObject = KubeObject> {
  listKeys(): string[];
  getByKey(key: string): T | undefined;
}

/** What a reflector writes to: a FIFO (DeltaFIFO, RealFIFO) or a plain Store. */
export interface ReflectorStore<T extends KubernetesObject = KubeObject> {
  add(obj: T): void;
  update(obj: T): void;
  delete(obj: T): void;
  replace(list: readonly T[], resourceVersion: string): void;
  resync?(): void;
}

/**
 * The informer's local copy of the objects of one resource, keyed by `namespace/name`
 * (client-go tools/cache/store.go). Single-threaded by construction: every call completes
 * synchronously, so no locking is needed. Returned objects are shared, not copied: treat them as
 * read-only, as client-go asks.
 */
export interface Store<T extends KubernetesObject = KubeObject> extends KeyListerGetter<T> {
  add(obj: T): void;
  update(obj: T): void;
  /** Removes the object (or the key a tombstone carries); deleting an unknown key is a no-op. */
  delete(obj: T | DeletedFinalStateUnknown<T>): void;
  list(): T[];
  listKeys(): string[];
  get(obj: T): T | undefined;
  getByKey(key: string): T | undefined;
  /** Swaps the whole content for `items` at once (a relist); `resourceVersion` is informational. */
  replace(items: readonly T[], resourceVersion?: string): void;
}

/** A Store without indexes (client-go NewStore). */
export function newStore<T extends KubernetesObject = KubeObject>(
  keyFunc: KeyFunc<T> = metaNamespaceKeyFunc,
): Store<T> {
  return newIndexer<T>({}, keyFunc);
}
