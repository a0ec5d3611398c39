/** The JSON value space objects live in. */
export type JsonValue =
  string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** apiVersion + kind: what every serialized object carries (metav1.TypeMeta). */
export interface TypeMeta {
  apiVersion?: string;
  kind?: string;
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** metav1.ObjectMeta. Timestamps are RFC 3339 strings, as on the wire. */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  /** Server-side apply bookkeeping: carried through untouched. */
  managedFields?: JsonValue[];
  selfLink?: string;
}

/** metav1.ListMeta. */
export interface ListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
  selfLink?: string;
}

/** Any Kubernetes object: TypeMeta + ObjectMeta + whatever else its kind holds. */
export interface KubeObject extends TypeMeta {
  metadata: ObjectMeta;
  [field: string]: unknown;
}

/**
 * A list of objects (PodList, ConfigMapList, ...). Items are any object type, so a client's list of
 * kubernetes-types `Pod`s (optional metadata) is a KubeList too.
 */
export interface KubeList<T extends object = KubeObject> extends TypeMeta {
  metadata: ListMeta;
  items: T[];
}

/** `namespace/name` for namespaced objects, `name` for cluster-scoped ones (client-go's key). */
export function objectKey(meta: Pick<ObjectMeta, 'name' | 'namespace'>): string {
  return meta.namespace ? `${meta.namespace}/${meta.name ?? ''}` : (meta.name ?? '');
}
