import type { ResourceDefinition, Verb } from '@listwatch/api';

/** A group/version/kind as discovery and OpenAPI name it (`group` is `''` for core). */
export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/** How a subresource shows in discovery: the kind it takes and returns, and its verbs. */
export interface SubresourceInfo {
  name: string;
  kind: GroupVersionKind;
  verbs: readonly Verb[];
  /**
   * `object`: get/update/patch/create an object of `kind` (status, scale, binding...); `connect`:
   * a stream or proxy (exec, log...) that OpenAPI describes as a connect operation, not a schema.
   */
  shape: 'object' | 'connect';
}

const STATUS_VERBS: readonly Verb[] = ['get', 'patch', 'update'];

/**
 * The subresources kube-apiserver serves, with the kinds and verbs its discovery reports for them
 * (pkg/registry/core/pod/storage/storage.go & co; the verbs are those of the REST storage
 * interfaces each one implements). A subresource not listed here is treated like `status`.
 */
export function subresourceInfo(def: ResourceDefinition, name: string): SubresourceInfo {
  const own: GroupVersionKind = { group: def.group, version: def.version, kind: def.kind };
  const same = (kind: string): GroupVersionKind => ({ ...own, kind });
  switch (name) {
    case 'binding':
      return { name, kind: same('Binding'), verbs: ['create'], shape: 'object' };
    case 'eviction':
      return {
        name,
        kind: { group: 'policy', version: 'v1', kind: 'Eviction' },
        verbs: ['create'],
        shape: 'object',
      };
    case 'scale':
      return {
        name,
        kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
        verbs: STATUS_VERBS,
        shape: 'object',
      };
    case 'token':
      // serviceaccounts/token: TokenREST takes and returns an authentication/v1 TokenRequest.
      return {
        name,
        kind: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' },
        verbs: ['create'],
        shape: 'object',
      };
    case 'finalize':
      return { name, kind: own, verbs: ['update'], shape: 'object' };
    case 'log':
      return { name, kind: own, verbs: ['get'], shape: 'connect' };
    case 'exec':
      return { name, kind: same('PodExecOptions'), verbs: ['create', 'get'], shape: 'connect' };
    case 'attach':
      return { name, kind: same('PodAttachOptions'), verbs: ['create', 'get'], shape: 'connect' };
    case 'portforward':
      return {
        name,
        kind: same('PodPortForwardOptions'),
        verbs: ['create', 'get'],
        shape: 'connect',
      };
    case 'proxy':
      return {
        name,
        kind: same(`${def.kind}ProxyOptions`),
        verbs: ['create', 'delete', 'get', 'patch', 'update'],
        shape: 'connect',
      };
    default:
      // status, ephemeralcontainers, resize and anything new: the object itself, read and written.
      return { name, kind: own, verbs: STATUS_VERBS, shape: 'object' };
  }
}

/** The subresources of a definition, in name order as kube's discovery lists them. */
export function subresourcesOf(def: ResourceDefinition): SubresourceInfo[] {
  return [...new Set(def.subresources)].sort().map((name) => subresourceInfo(def, name));
}

/**
 * The verbs discovery lists for a resource and its subresources: those routed there
 * (handlers/routes.ts discoveredRoutes), so a storage lacking an interface drops its verb.
 */
export interface DiscoveredRoutes {
  verbs: readonly Verb[];
  /** The subresources that have a storage, with the verbs it serves. */
  subresources: ReadonlyMap<string, readonly Verb[]>;
}

/** Where discovery learns a resource's routes. */
export type RoutesOf = (def: ResourceDefinition) => DiscoveredRoutes;

/**
 * A definition's routes as declared, for discovery of fixed definitions served without a
 * registry (no storages to ask): its verbs and the verbs of kube's subresource storages.
 */
export function declaredRoutes(def: ResourceDefinition): DiscoveredRoutes {
  return {
    verbs: def.verbs,
    subresources: new Map(subresourcesOf(def).map((sub) => [sub.name, sub.verbs])),
  };
}

/** The subresources discovery lists, in name order, with the kinds they take and their verbs. */
export function discoveredSubresources(
  def: ResourceDefinition,
  routes: DiscoveredRoutes,
): { name: string; kind: GroupVersionKind; verbs: Verb[] }[] {
  return [...routes.subresources.keys()].sort().map((name) => ({
    name,
    kind: subresourceInfo(def, name).kind,
    verbs: [...new Set(routes.subresources.get(name))].sort(),
  }));
}
