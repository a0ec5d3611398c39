import {
  ApiError,
  type KubeList,
  type KubeObject,
  type ListMeta,
  type ObjectMeta,
} from '@listwatch/api';

/** The version of meta.k8s.io a transformed response is in (v1, or v1beta1 for old clients). */
export type MetaVersion = 'v1' | 'v1beta1';
export type MetaApiVersion = `meta.k8s.io/${MetaVersion}`;

/** metav1.PartialObjectMetadata: an object reduced to its metadata (metadata-only informers). */
export interface PartialObjectMetadata {
  kind: 'PartialObjectMetadata';
  apiVersion: MetaApiVersion;
  metadata: ObjectMeta;
}

export interface PartialObjectMetadataList {
  kind: 'PartialObjectMetadataList';
  apiVersion: MetaApiVersion;
  metadata: ListMeta;
  items: PartialObjectMetadata[];
}

export function isKubeList(value: unknown): value is KubeList {
  return (
    typeof value === 'object' &&
    value !== null &&
    Array.isArray((value as { items?: unknown }).items)
  );
}

/** The list metadata a transformed list keeps (resourceVersion, continue, remainingItemCount). */
export function listMetaOf(meta: ListMeta): ListMeta {
  return {
    ...(meta.resourceVersion !== undefined ? { resourceVersion: meta.resourceVersion } : {}),
    ...(meta.continue !== undefined ? { continue: meta.continue } : {}),
    ...(meta.remainingItemCount !== undefined
      ? { remainingItemCount: meta.remainingItemCount }
      : {}),
  };
}

/** As apiserver handlers/response.go asPartialObjectMetadata: a list is a 406. */
export function asPartialObjectMetadata(
  object: KubeObject | KubeList,
  version: MetaVersion = 'v1',
): PartialObjectMetadata {
  if (isKubeList(object)) {
    throw ApiError.notAcceptable(
      `you requested PartialObjectMetadata, but the requested object is a list (${object.kind ?? 'List'})`,
    );
  }
  return {
    kind: 'PartialObjectMetadata',
    apiVersion: `meta.k8s.io/${version}`,
    metadata: object.metadata,
  };
}

/** As apiserver handlers/response.go asPartialObjectMetadataList: a single object is a 406. */
export function asPartialObjectMetadataList(
  list: KubeObject | KubeList,
  version: MetaVersion = 'v1',
): PartialObjectMetadataList {
  if (!isKubeList(list)) {
    throw ApiError.notAcceptable(
      `you requested PartialObjectMetadataList, but the requested object is not a list (${list.kind ?? 'object'})`,
    );
  }
  return {
    kind: 'PartialObjectMetadataList',
    apiVersion: `meta.k8s.io/${version}`,
    metadata: listMetaOf(list.metadata),
    items: list.items.map((item) => asPartialObjectMetadata(item, version)),
  };
}
