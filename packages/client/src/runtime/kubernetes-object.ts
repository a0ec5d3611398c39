/**
 * What the client needs of an object's metadata (apimachinery's metav1.Object accessors, only
 * the fields it reads). Loose on purpose: kubernetes-types' `ObjectMeta`, @kubernetes/client-node's
 * `V1ObjectMeta` (Date timestamps) and @listwatch/api's `ObjectMeta` all satisfy it.
 */
export interface ObjectMetaAccessor {
  name?: string | undefined;
  namespace?: string | undefined;
  uid?: string | undefined;
  resourceVersion?: string | undefined;
  labels?: { [key: string]: string } | undefined;
  annotations?: { [key: string]: string } | undefined;
  generation?: number | undefined;
  finalizers?: string[] | undefined;
  ownerReferences?: OwnerReferenceAccessor[] | undefined;
  /** Set once a delete waits for finalizers (a Date in client-node's models). */
  deletionTimestamp?: string | Date | undefined;
}

/** metav1.OwnerReference, as the reconciler runtime reads and writes it. */
export interface OwnerReferenceAccessor {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean | undefined;
  blockOwnerDeletion?: boolean | undefined;
}

/**
 * The constraint on every object type the client handles (client-go's runtime.Object with
 * metav1.Object): `Pod` from kubernetes-types, `V1Pod` from @kubernetes/client-node and
 * @listwatch/api's `KubeObject` all satisfy it, since metadata is optional in the first two.
 * Named as @kubernetes/client-node names its own.
 */
export interface KubernetesObject {
  apiVersion?: string | undefined;
  kind?: string | undefined;
  metadata?: ObjectMetaAccessor | undefined;
}

/** A list of objects as @kubernetes/client-node names it (`KubernetesListObject`). */
export interface KubernetesListObject<T extends KubernetesObject> {
  apiVersion?: string | undefined;
  kind?: string | undefined;
  metadata?: { resourceVersion?: string | undefined; continue?: string | undefined } | undefined;
  items: T[];
}
