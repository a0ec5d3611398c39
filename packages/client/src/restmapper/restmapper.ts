import { ApiError } from '@listwatch/api';
import type { APIGroupResources, DiscoveryClient } from '../discovery/discovery.js';
import type { KubernetesObject } from '../runtime/kubernetes-object.js';
import { typedResource, type TypedResourceRef } from '../typed/resources.js';

/** apimachinery schema.GroupVersionResource. */
export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

/** apimachinery schema.GroupVersionKind. */
export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/** apimachinery schema.GroupKind. */
export interface GroupKind {
  group: string;
  kind: string;
}

/** A resource as a lookup names it: the resource (plural, singular or short name) and maybe more. */
export type PartialGroupVersionResource = { resource: string } & Partial<
  Omit<GroupVersionResource, 'resource'>
>;

/** apimachinery meta.RESTMapping: how a kind is reached, and where. */
export interface RESTMapping {
  resource: GroupVersionResource;
  groupVersionKind: GroupVersionKind;
  /** meta.RESTScopeName: `namespace` or `root` (cluster-scoped). */
  scope: 'namespace' | 'root';
}

/** apimachinery meta.NoKindMatchError: no resource serves this kind. */
export class NoKindMatchError extends ApiError {
  constructor(
    readonly groupKind: GroupKind,
    readonly searchedVersions: readonly string[],
  ) {
    const where = searchedVersions.length
      ? `in version ${JSON.stringify(searchedVersions.map((v) => gv(groupKind.group, v)).join(', '))}`
      : `in group ${JSON.stringify(groupKind.group)}`;
    super({
      code: 404,
      reason: 'NotFound',
      message: `no matches for kind ${JSON.stringify(groupKind.kind)} ${where}`,
    });
    this.name = 'NoKindMatchError';
  }
}

/** apimachinery meta.NoResourceMatchError: no resource by that name. */
export class NoResourceMatchError extends ApiError {
  constructor(readonly partialResource: PartialGroupVersionResource) {
    const { group, version, resource } = partialResource;
    super({
      code: 404,
      reason: 'NotFound',
      message: `no matches for ${[group, version, resource].filter((s) => s !== undefined).join('/')}`,
    });
    this.name = 'NoResourceMatchError';
  }
}

/** apimachinery meta.IsNoMatchError. */
export function isNoMatchError(err: unknown): err is NoKindMatchError | NoResourceMatchError {
  return err instanceof NoKindMatchError || err instanceof NoResourceMatchError;
}

function gv(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}

interface Entry {
  gvr: GroupVersionResource;
  gvk: GroupVersionKind;
  singular: string;
  shortNames: readonly string[];
  namespaced: boolean;
}

/**
 * kind ⇄ resource for the groups discovery found (client-go restmapper/discovery.go
 * NewDiscoveryRESTMapper wrapped in a PriorityRESTMapper): entries are kept in the order of
 * preference — the core group first, then groups as the server lists them, each group's
 * preferred version first — so a lookup that leaves the group or version open gets the first
 * match, as kubectl does (`events` is the core group's).
 */
export class DiscoveryRESTMapper {
  private readonly entries: Entry[] = [];

  constructor(groups: readonly APIGroupResources[]) {
    for (const group of groups) {
      for (const version of group.versions) {
        for (const r of group.resources.get(version) ?? []) {
          if (r.name.includes('/')) continue; // a subresource
          this.entries.push({
            gvr: { group: group.name, version, resource: r.name },
            gvk: { group: group.name, version, kind: r.kind },
            singular: r.singularName || r.kind.toLowerCase(),
            shortNames: r.shortNames ?? [],
            namespaced: r.namespaced,
          });
        }
      }
    }
  }

  /** Every resource matching the partial one, in order of preference (meta.RESTMapper ResourcesFor). */
  resourcesFor(input: PartialGroupVersionResource): GroupVersionResource[] {
    return this.matchResource(input).map((e) => e.gvr);
  }

  /** The preferred resource matching the partial one (meta.RESTMapper ResourceFor). */
  resourceFor(input: PartialGroupVersionResource): GroupVersionResource {
    return this.firstResource(input).gvr;
  }

  /** The kind the preferred matching resource serves (meta.RESTMapper KindFor). */
  kindFor(input: PartialGroupVersionResource): GroupVersionKind {
    return this.firstResource(input).gvk;
  }

  /** Every kind matching the partial resource (meta.RESTMapper KindsFor). */
  kindsFor(input: PartialGroupVersionResource): GroupVersionKind[] {
    return this.matchResource(input).map((e) => e.gvk);
  }

  /**
   * How to reach a kind: in the first of `versions` that serves it, else in the group's
   * preferred version (meta.RESTMapper RESTMapping).
   */
  restMapping(gk: GroupKind, ...versions: string[]): RESTMapping {
    const all = this.restMappings(gk, ...versions);
    if (!all[0]) throw new NoKindMatchError(gk, versions);
    return all[0];
  }

  /** Every way to reach a kind, the ones in `versions` in that order, else all (RESTMappings). */
  restMappings(gk: GroupKind, ...versions: string[]): RESTMapping[] {
    const ofKind = this.entries.filter(
      (e) => e.gvk.group === gk.group && e.gvk.kind.toLowerCase() === gk.kind.toLowerCase(),
    );
    const chosen = versions.length
      ? versions.flatMap((v) => ofKind.filter((e) => e.gvk.version === v))
      : ofKind;
    return chosen.map((e) => ({
      resource: { ...e.gvr },
      groupVersionKind: { ...e.gvk },
      scope: e.namespaced ? 'namespace' : 'root',
    }));
  }

  private firstResource(input: PartialGroupVersionResource): Entry {
    const found = this.matchResource(input)[0];
    if (!found) throw new NoResourceMatchError(input);
    return found;
  }

  /** By plural or singular name; short names (kubectl's ShortcutExpander) only when neither matches. */
  private matchResource(input: PartialGroupVersionResource): Entry[] {
    const name = input.resource.toLowerCase();
    const inScope = this.entries.filter(
      (e) =>
        (input.group === undefined || e.gvr.group === input.group) &&
        (input.version === undefined || e.gvr.version === input.version),
    );
    const byName = inScope.filter((e) => e.gvr.resource === name || e.singular === name);
    return byName.length ? byName : inScope.filter((e) => e.shortNames.includes(name));
  }
}

/**
 * A RESTMapper over a discovery cache that is read on first use and read again when a lookup
 * misses, so a kind registered since — a CustomResourceDefinition created at runtime — is found
 * (client-go restmapper/discovery.go DeferredDiscoveryRESTMapper). A miss right after a fetch is
 * final: the cache was fresh.
 */
export class DeferredDiscoveryRESTMapper {
  private delegate: Promise<DiscoveryRESTMapper> | undefined;
  private delegateGeneration = -1;

  constructor(readonly discovery: DiscoveryClient) {}

  /** Forgets what discovery said (client-go Reset). */
  reset(): void {
    this.discovery.invalidate();
    this.delegate = undefined;
  }

  resourceFor(input: PartialGroupVersionResource): Promise<GroupVersionResource> {
    return this.lookup((m) => m.resourceFor(input));
  }

  resourcesFor(input: PartialGroupVersionResource): Promise<GroupVersionResource[]> {
    return this.lookup((m) =>
      nonEmpty(m.resourcesFor(input), () => new NoResourceMatchError(input)),
    );
  }

  kindFor(input: PartialGroupVersionResource): Promise<GroupVersionKind> {
    return this.lookup((m) => m.kindFor(input));
  }

  kindsFor(input: PartialGroupVersionResource): Promise<GroupVersionKind[]> {
    return this.lookup((m) => nonEmpty(m.kindsFor(input), () => new NoResourceMatchError(input)));
  }

  restMapping(gk: GroupKind, ...versions: string[]): Promise<RESTMapping> {
    return this.lookup((m) => m.restMapping(gk, ...versions));
  }

  restMappings(gk: GroupKind, ...versions: string[]): Promise<RESTMapping[]> {
    return this.lookup((m) =>
      nonEmpty(m.restMappings(gk, ...versions), () => new NoKindMatchError(gk, versions)),
    );
  }

  /**
   * A reference for `client.resource()` or `factory.informerFor()` by kind: the version given,
   * else the group's preferred one. Typed by the caller: `resourceRefFor<Foo>({ group, kind })`.
   */
  async resourceRefFor<T extends KubernetesObject = KubernetesObject>(
    kind: GroupKind & { version?: string },
  ): Promise<TypedResourceRef<T>> {
    const m = await this.restMapping(
      { group: kind.group, kind: kind.kind },
      ...(kind.version ? [kind.version] : []),
    );
    return typedResource<T>({
      group: m.resource.group,
      version: m.resource.version,
      kind: m.groupVersionKind.kind,
      plural: m.resource.resource,
      namespaced: m.scope === 'namespace',
    });
  }

  private async mapper(): Promise<DiscoveryRESTMapper> {
    if (
      !this.delegate ||
      this.delegateGeneration !== this.discovery.generation ||
      !this.discovery.fresh()
    ) {
      const groups = this.discovery.serverGroupsAndResources();
      this.delegateGeneration = this.discovery.generation;
      const built = groups.then((g) => new DiscoveryRESTMapper(g));
      this.delegate = built;
      built.catch(() => {
        if (this.delegate === built) this.delegate = undefined;
      });
    }
    return this.delegate;
  }

  private async lookup<R>(fn: (m: DiscoveryRESTMapper) => R): Promise<R> {
    const before = this.discovery.generation;
    const m = await this.mapper();
    try {
      return fn(m);
    } catch (err) {
      // Fetched during this very lookup: the answer is current, the miss is real.
      if (!isNoMatchError(err) || this.discovery.generation !== before) throw err;
      this.reset();
      return fn(await this.mapper());
    }
  }
}

function nonEmpty<T>(list: T[], error: () => Error): T[] {
  if (!list.length) throw error();
  return list;
}
