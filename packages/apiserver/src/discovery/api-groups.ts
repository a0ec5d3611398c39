import type { ResourceDefinition } from '@listwatch/api';
import { declaredRoutes, type RoutesOf } from './subresources.js';
import { sortByVersionPriority } from './version-priority.js';

/** The resources of one group/version, in name order (kube's discovery order). */
export interface ApiGroupVersion {
  group: string;
  version: string;
  /** `v1` or `apps/v1`. */
  groupVersion: string;
  resources: readonly ResourceDefinition[];
  /** The verbs and subresources routed for each resource (what discovery lists). */
  routesOf: RoutesOf;
}

/** One API group and its versions, highest priority (the preferred one) first. */
export interface ApiGroup {
  /** `''` for the core (legacy) group served under /api. */
  name: string;
  versions: readonly ApiGroupVersion[];
}

/**
 * Arranges resource definitions the way discovery presents them: groups in the order they first
 * appear, versions by Kubernetes version priority, resources by name. A definition that repeats
 * an earlier group/version/plural is dropped: one URL serves one resource.
 */
export function apiGroupsOf(
  definitions: readonly ResourceDefinition[],
  routesOf: RoutesOf = declaredRoutes,
): ApiGroup[] {
  const groups = new Map<string, Map<string, Map<string, ResourceDefinition>>>();
  for (const def of definitions) {
    let versions = groups.get(def.group);
    if (!versions)
      groups.set(def.group, (versions = new Map<string, Map<string, ResourceDefinition>>()));
    let resources = versions.get(def.version);
    if (!resources) versions.set(def.version, (resources = new Map<string, ResourceDefinition>()));
    if (!resources.has(def.plural)) resources.set(def.plural, def);
  }
  return [...groups].map(([name, versions]) => ({
    name,
    versions: sortByVersionPriority(versions.keys()).map((version) => ({
      group: name,
      version,
      groupVersion: name ? `${name}/${version}` : version,
      resources: [
        ...(versions.get(version) ?? new Map<string, ResourceDefinition>()).values(),
      ].sort((a, b) => (a.plural < b.plural ? -1 : a.plural > b.plural ? 1 : 0)),
      routesOf,
    })),
  }));
}

/** Everything discovery needs, looked up by path segment. */
export class ApiGroupIndex {
  readonly core: ApiGroup | undefined;
  /** Named groups (served under /apis), in discovery order. */
  readonly groups: readonly ApiGroup[];

  /** `routesOf`: the registry's routes; fixed definitions' default to what they declare. */
  constructor(definitions: readonly ResourceDefinition[], routesOf?: RoutesOf) {
    const all = apiGroupsOf(definitions, routesOf);
    this.core = all.find((g) => g.name === '');
    this.groups = all.filter((g) => g.name !== '');
  }

  group(name: string): ApiGroup | undefined {
    return name === '' ? this.core : this.groups.find((g) => g.name === name);
  }

  groupVersion(group: string, version: string): ApiGroupVersion | undefined {
    return this.group(group)?.versions.find((v) => v.version === version);
  }

  /** Every group/version, core first. */
  allGroupVersions(): ApiGroupVersion[] {
    return [...(this.core ? [this.core] : []), ...this.groups].flatMap((g) => g.versions);
  }
}
