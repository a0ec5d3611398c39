import { ApiError, type Verb } from '@listwatch/api';
import type { Store } from '../registry/generic/store.js';
import type { RequestInfo } from '../request/request-info.js';
import type { DiscoveredRoutes } from '../discovery/subresources.js';
import { collectionVerbsOf, itemVerbsOf } from '../registry/rest/rest.js';

// The routes a resource declares, as endpoints/installer.go registers them: a path exists
// because the storage there implements a verb (registry/rest/rest.ts), never because nothing
// excluded it. A path without a route is 404; a route without the request's verb is 405
// (go-restful). Both are decided before any object is read.

type RoutedInfo = Pick<RequestInfo, 'name' | 'subresource' | 'namespace' | 'legacyWatch'>;

/**
 * The verbs routed at a request's path, or undefined when the resource registers no route there:
 * - a subresource only where its storage exists, with the verbs it implements (`secrets/x/status`
 *   has none: secrets have no status), and never under the legacy `watch/` prefix (no
 *   subresource storage is a Watcher);
 * - `watch/` paths only for watchers, and only the watch verb;
 * - item paths only for what gets, updates, patches or deletes;
 * - the all-namespaces path of a namespaced resource only for listers and watchers.
 */
export function routeVerbs(store: Store, info: RoutedInfo): readonly Verb[] | undefined {
  if (info.subresource !== undefined) {
    const storage = info.legacyWatch ? undefined : store.restStorage(info.subresource);
    return storage && itemVerbsOf(storage, true);
  }
  const main = store.restStorage();
  if (!main) return undefined;
  if (info.legacyWatch) return main.watch ? ['watch'] : undefined;
  if (info.name !== undefined) {
    const verbs = itemVerbsOf(main, false);
    return verbs.length ? verbs : undefined;
  }
  const verbs = collectionVerbsOf(main);
  // The all-namespaces path of a namespaced resource: only list and watch (installer.go).
  if (store.definition.namespaced && info.namespace === undefined) {
    const across = verbs.filter((verb) => verb === 'list' || verb === 'watch');
    return across.length ? across : undefined;
  }
  return verbs;
}

/** Whether the resource routes any verb at the request's path (else kube answers 404). */
export function hasRoute(store: Store, info: RoutedInfo): boolean {
  return routeVerbs(store, info) !== undefined;
}

/** Throws 404 for a path without a route, 405 for a verb its route does not serve. */
export function checkRoute(
  store: Store,
  info: RoutedInfo,
  verb: Verb | undefined,
): asserts verb is Verb {
  const verbs = routeVerbs(store, info);
  if (verbs === undefined) throw ApiError.pathNotFound();
  if (verb === undefined || !verbs.includes(verb)) throw ApiError.methodNotAllowed();
}

/**
 * What discovery lists for a resource, from the same routes the router serves (installer.go
 * builds each APIResource from the storage's interfaces): the verbs of its collection and item
 * paths, and each subresource that has a storage, with the verbs routed there.
 */
export function discoveredRoutes(store: Store): DiscoveredRoutes {
  // A namespaced resource's verbs are those of its namespaced paths (the all-namespaces path
  // routes a subset: list and watch).
  const at: RoutedInfo = {
    legacyWatch: false,
    ...(store.definition.namespaced ? { namespace: 'default' } : {}),
  };
  const verbs = new Set([
    ...(routeVerbs(store, at) ?? []),
    ...(routeVerbs(store, { ...at, name: 'x' }) ?? []),
  ]);
  const subresources = new Map<string, readonly Verb[]>();
  for (const name of store.definition.subresources) {
    const routed = routeVerbs(store, { ...at, name: 'x', subresource: name });
    if (routed?.length) subresources.set(name, routed);
  }
  return { verbs: [...verbs], subresources };
}
