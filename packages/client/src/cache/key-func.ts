import { ApiError, objectKey, type KubeObject } from '@listwatch/api';
import type { KubernetesObject } from '../runtime/kubernetes-object.js';
import { DeletedFinalStateUnknown } from './deleted-final-state-unknown.js';

/** Maps an object to its cache key; must be deterministic. */
export type KeyFunc<T extends KubernetesObject = KubeObject> = (obj: T) => string;

function keyError(obj: unknown, why: string): ApiError {
  let shown: string;
  try {
    shown = JSON.stringify(obj) ?? String(obj);
  } catch {
    shown = String(obj);
  }
  return ApiError.badRequest(`couldn't create key for object ${shown}: ${why}`);
}

/**
 * `namespace/name`, or `name` for cluster-scoped objects (client-go MetaNamespaceKeyFunc).
 * Objects arrive from the wire as plain JSON, so a missing metadata is checked, not assumed.
 */
export function metaNamespaceKeyFunc(obj: KubernetesObject): string {
  const meta = (obj as { metadata?: unknown } | null | undefined)?.metadata;
  if (typeof meta !== 'object' || meta === null) throw keyError(obj, 'object has no meta');
  return objectKey(meta);
}

/**
 * metaNamespaceKeyFunc that also accepts a tombstone and returns the key it carries
 * (client-go DeletionHandlingMetaNamespaceKeyFunc).
 */
export function deletionHandlingMetaNamespaceKeyFunc(
  obj: KubernetesObject | DeletedFinalStateUnknown<KubernetesObject>,
): string {
  return obj instanceof DeletedFinalStateUnknown ? obj.key : metaNamespaceKeyFunc(obj);
}

/**
 * Splits a key made by metaNamespaceKeyFunc back into namespace and name; a cluster-scoped key
 * gives namespace ''. More than one `/` is an error (client-go SplitMetaNamespaceKey).
 */
export function splitMetaNamespaceKey(key: string): { namespace: string; name: string } {
  const parts = key.split('/');
  if (parts.length === 1) return { namespace: '', name: key };
  if (parts.length === 2) return { namespace: parts[0] ?? '', name: parts[1] ?? '' };
  throw ApiError.badRequest(`unexpected key format: ${JSON.stringify(key)}`);
}
