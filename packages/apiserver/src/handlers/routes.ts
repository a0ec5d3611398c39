import { ApiError, type ResourceDefinition, type Verb } from '@listwatch/api';
import { subresourceInfo } from '../discovery/subresources.js';
import type { RequestInfo } from '../registry/request-info.js';

// The routes a resource declares, as endpoints/installer.go registers them: a path exists
// because the resource's storage implements a verb there, never because nothing excluded it.
// A path without a route is 404; a route without the request's verb is 405 (go-restful).

/** The verbs a path naming an object routes to (Getter, Updater, Patcher, GracefulDeleter). */
const ITEM_VERBS: readonly Verb[] = ['get', 'update', 'patch', 'delete'];

/** The verbs of a collection path (Lister, Watcher, Creater, CollectionDeleter). */
const COLLECTION_VERBS: readonly Verb[] = ['list', 'watch', 'create', 'deletecollection'];

/**
 * The verbs routed at a request's path, or undefined when the resource registers no route there:
 * - a subresource only where the definition declares it, with the verbs its storage implements
 *   (discovery/subresources.ts; `secrets/x/status` has no route, as secrets have no status), and
 *   never under the legacy `watch/` prefix (no subresource storage is a Watcher);
 * - `watch/` paths only for watchers, and only the watch verb;
 * - item paths only for what gets, updates, patches or deletes;
 * - the all-namespaces path of a namespaced resource only for listers.
 */
export function routeVerbs(
  definition: ResourceDefinition,
  info: Pick<RequestInfo, 'name' | 'subresource' | 'namespace' | 'legacyWatch'>,
): readonly Verb[] | undefined {
  const declared = definition.verbs;
  if (info.subresource !== undefined) {
    if (info.legacyWatch || !definition.subresources.includes(info.subresource)) return undefined;
    return subresourceInfo(definition, info.subresource).verbs;
  }
  if (info.legacyWatch) return declared.includes('watch') ? ['watch'] : undefined;
  if (info.name !== undefined) {
    const verbs = ITEM_VERBS.filter((verb) => declared.includes(verb));
    return verbs.length ? verbs : undefined;
  }
  if (definition.namespaced && info.namespace === undefined && !declared.includes('list'))
    return undefined;
  return COLLECTION_VERBS.filter((verb) => declared.includes(verb));
}

/** Whether the resource routes any verb at the request's path (else kube answers 404). */
export function hasRoute(
  definition: ResourceDefinition,
  info: Pick<RequestInfo, 'name' | 'subresource' | 'namespace' | 'legacyWatch'>,
): boolean {
  return routeVerbs(definition, info) !== undefined;
}

/** Throws 404 for a path without a route, 405 for a verb its route does not serve. */
export function checkRoute(
  definition: ResourceDefinition,
  info: Pick<RequestInfo, 'name' | 'subresource' | 'namespace' | 'legacyWatch'>,
  verb: Verb | undefined,
): asserts verb is Verb {
  const verbs = routeVerbs(definition, info);
  if (verbs === undefined) throw ApiError.pathNotFound();
  if (verb === undefined || !verbs.includes(verb)) throw ApiError.methodNotAllowed();
}
