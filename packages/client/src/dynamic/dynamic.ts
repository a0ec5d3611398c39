import type { KubeObject } from '@listwatch/api';
import type { ResourceRef } from '../rest/resource-client.js';
import type { GroupVersionResource } from '../restmapper/restmapper.js';

/**
 * An object of any kind, as JSON (apimachinery unstructured.Unstructured): what the dynamic
 * client, dynamic informers and their listers hold when no type is known at compile time.
 */
export type Unstructured = KubeObject;

/**
 * A GroupVersionResource as a reference the client and informers take (client-go
 * dynamic.Interface `Resource(gvr)`). Without discovery the scope is unknown: like the dynamic
 * client, a namespace given later is used (`namespaced` true), which is right for namespaced
 * resources and for listing a cluster-scoped one across all namespaces.
 */
export function resourceRefFromGVR(gvr: GroupVersionResource, namespaced = true): ResourceRef {
  return { group: gvr.group, version: gvr.version, plural: gvr.resource, namespaced };
}
