import type { ResourceDefinition, Verb } from '@listwatch/api';
import type { ApiGroup } from './api-groups.js';
import {
  declaredRoutes,
  discoveredSubresources,
  type DiscoveredRoutes,
  type GroupVersionKind,
} from './subresources.js';

// Aggregated discovery (KEP-3352): the whole of /api or /apis in one APIGroupDiscoveryList, so a
// client learns every resource in one round trip. Types follow k8s.io/api/apidiscovery/v2.

/** The versions of apidiscovery.k8s.io we serve; kubectl 1.32 asks for v2, then v2beta1. */
export type AggregatedDiscoveryVersion = 'v2' | 'v2beta1';

export interface ApiSubresourceDiscovery {
  subresource: string;
  responseKind: GroupVersionKind;
  verbs: Verb[];
}

export interface ApiResourceDiscovery {
  resource: string;
  responseKind: GroupVersionKind;
  scope: 'Namespaced' | 'Cluster';
  singularResource: string;
  verbs: Verb[];
  shortNames?: string[];
  categories?: string[];
  subresources?: ApiSubresourceDiscovery[];
}

export interface ApiVersionDiscovery {
  version: string;
  resources: ApiResourceDiscovery[];
  /** `Stale` tells clients the version's resources could not be fetched; ours never are. */
  freshness: 'Current' | 'Stale';
}

export interface ApiGroupDiscovery {
  metadata: { name?: string };
  versions: ApiVersionDiscovery[];
}

export interface ApiGroupDiscoveryList {
  kind: 'APIGroupDiscoveryList';
  apiVersion: `apidiscovery.k8s.io/${AggregatedDiscoveryVersion}`;
  metadata: Record<string, never>;
  items: ApiGroupDiscovery[];
}

/** The media type a client asks for (and we answer with) to get the aggregated form. */
export function aggregatedContentType(version: AggregatedDiscoveryVersion): string {
  return `application/json;g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList`;
}

function sortedVerbs(verbs: readonly Verb[]): Verb[] {
  return [...new Set(verbs)].sort();
}

/** One resource of a version, with the verbs routed there (as the legacy APIResource). */
export function apiResourceDiscovery(
  def: ResourceDefinition,
  routes: DiscoveredRoutes = declaredRoutes(def),
): ApiResourceDiscovery {
  const subresources = discoveredSubresources(def, routes).map((sub): ApiSubresourceDiscovery => ({
    subresource: sub.name,
    responseKind: sub.kind,
    verbs: sub.verbs,
  }));
  return {
    resource: def.plural,
    responseKind: { group: def.group, version: def.version, kind: def.kind },
    scope: def.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: def.singular,
    verbs: sortedVerbs(routes.verbs),
    ...(def.shortNames.length ? { shortNames: [...def.shortNames] } : {}),
    ...(def.categories.length ? { categories: [...def.categories] } : {}),
    ...(subresources.length ? { subresources } : {}),
  };
}

function apiGroupDiscovery(group: ApiGroup): ApiGroupDiscovery {
  return {
    // The core group has no name (aggregated/handler.go serves it with empty ObjectMeta).
    metadata: group.name ? { name: group.name } : {},
    versions: group.versions.map((v) => ({
      version: v.version,
      resources: v.resources.map((def) => apiResourceDiscovery(def, v.routesOf(def))),
      freshness: 'Current',
    })),
  };
}

/**
 * The aggregated document for `/api` (just the core group) or `/apis` (every named group, each
 * with its versions in priority order: the first is the preferred one).
 */
export function apiGroupDiscoveryList(
  groups: readonly ApiGroup[],
  version: AggregatedDiscoveryVersion,
): ApiGroupDiscoveryList {
  return {
    kind: 'APIGroupDiscoveryList',
    apiVersion: `apidiscovery.k8s.io/${version}`,
    metadata: {},
    items: groups.map(apiGroupDiscovery),
  };
}
