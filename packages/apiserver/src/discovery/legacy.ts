import type { ResourceDefinition, Verb } from '@listwatch/api';
import type { ApiGroup, ApiGroupVersion } from './api-groups.js';
import { storageVersionHash } from './storage-version-hash.js';
import { declaredRoutes, discoveredSubresources, type DiscoveredRoutes } from './subresources.js';

// The unaggregated ("legacy") discovery documents: metav1.APIVersions, APIGroupList, APIGroup
// and APIResourceList, shaped as k8s.io/apiserver/pkg/endpoints/discovery serves them.

/** metav1.ServerAddressByClientCIDR: where clients from a network should reach the server. */
export interface ServerAddressByClientCIDR {
  clientCIDR: string;
  serverAddress: string;
}

export interface GroupVersionForDiscovery {
  groupVersion: string;
  version: string;
}

/** metav1.APIGroup as it appears in /apis and at /apis/<group>. */
export interface ApiGroupDocument {
  kind?: 'APIGroup';
  apiVersion?: 'v1';
  name: string;
  versions: GroupVersionForDiscovery[];
  preferredVersion: GroupVersionForDiscovery;
  serverAddressByClientCIDRs?: ServerAddressByClientCIDR[];
}

/** metav1.APIResource: one resource or `<resource>/<subresource>` of a group/version. */
export interface ApiResource {
  name: string;
  singularName: string;
  namespaced: boolean;
  group?: string;
  version?: string;
  kind: string;
  verbs: Verb[];
  shortNames?: string[];
  categories?: string[];
  storageVersionHash?: string;
}

export interface ApiResourceList {
  kind: 'APIResourceList';
  apiVersion?: 'v1';
  groupVersion: string;
  resources: ApiResource[];
}

/** `GET /api`. kube strips apiVersion from the legacy root (discovery/legacy.go). */
export function apiVersions(addresses: ServerAddressByClientCIDR[]): {
  kind: 'APIVersions';
  versions: string[];
  serverAddressByClientCIDRs: ServerAddressByClientCIDR[];
} {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: addresses };
}

function forDiscovery(v: ApiGroupVersion): GroupVersionForDiscovery {
  return { groupVersion: v.groupVersion, version: v.version };
}

/** `GET /apis/<group>`, or one entry of `GET /apis` (without kind/apiVersion). */
export function apiGroup(
  group: ApiGroup,
  addresses?: ServerAddressByClientCIDR[],
): ApiGroupDocument {
  const versions = group.versions.map(forDiscovery);
  const preferred = versions[0] ?? { groupVersion: '', version: '' };
  return {
    name: group.name,
    versions,
    preferredVersion: preferred,
    ...(addresses ? { serverAddressByClientCIDRs: addresses } : {}),
  };
}

/** `GET /apis`: every named group (discovery/root.go; the core group lives at /api). */
export function apiGroupList(
  groups: readonly ApiGroup[],
  addresses: ServerAddressByClientCIDR[],
): { kind: 'APIGroupList'; apiVersion: 'v1'; groups: ApiGroupDocument[] } {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: groups.map((g) => apiGroup(g, addresses)),
  };
}

function sortedVerbs(verbs: readonly Verb[]): Verb[] {
  return [...new Set(verbs)].sort();
}

/**
 * The APIResource entries of one definition: the resource, then its subresources, with the
 * verbs routed there (installer.go builds them from the storage's interfaces).
 */
export function apiResourcesOf(
  def: ResourceDefinition,
  routes: DiscoveredRoutes = declaredRoutes(def),
): ApiResource[] {
  const resource: ApiResource = {
    name: def.plural,
    singularName: def.singular,
    namespaced: def.namespaced,
    kind: def.kind,
    verbs: sortedVerbs(routes.verbs),
    ...(def.shortNames.length ? { shortNames: [...def.shortNames] } : {}),
    ...(def.categories.length ? { categories: [...def.categories] } : {}),
    // Only a store has a storage version (installer.go: a rest.StorageVersionProvider).
    // A resource served with create alone is a rest.Creater, not a store (the reviews; the
    // kind table test keeps this in step with their strategies).
    ...(routes.verbs.every((verb) => verb === 'create')
      ? {}
      : { storageVersionHash: storageVersionHash(def.group, def.version, def.kind) }),
  };
  const subresources = discoveredSubresources(def, routes).map((sub): ApiResource => {
    const foreign = sub.kind.group !== def.group || sub.kind.version !== def.version;
    return {
      name: `${def.plural}/${sub.name}`,
      // kube leaves singularName empty on subresources (installer.go).
      singularName: '',
      namespaced: def.namespaced,
      ...(foreign ? { group: sub.kind.group, version: sub.kind.version } : {}),
      kind: sub.kind.kind,
      verbs: sub.verbs,
    };
  });
  return [resource, ...subresources];
}

/**
 * `GET /api/v1` or `GET /apis/<group>/<version>`. The core group's list has no apiVersion: kube
 * serves it through stripVersionNegotiatedSerializer for 1.1 compatibility (discovery/version.go).
 */
export function apiResourceList(gv: ApiGroupVersion): ApiResourceList {
  const resources = gv.resources.flatMap((def) => apiResourcesOf(def, gv.routesOf(def)));
  resources.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return gv.group === ''
    ? { kind: 'APIResourceList', groupVersion: gv.groupVersion, resources }
    : { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: gv.groupVersion, resources };
}
