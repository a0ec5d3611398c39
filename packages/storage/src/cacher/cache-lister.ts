import { encodeContinue, type KubeObject, type ResourceDefinition } from '@listwatch/api';
import { listResourceVersion } from '../api-object-versioner.js';
import { keyAfter } from '../keys.js';
import type { CacheStore, StoreElement, StoreSnapshot } from './cache-store.js';
import type { CacheListResult } from './list-watch-source.js';
import type { SelectionPredicate } from './predicate.js';

// A LIST served from the cache: one page of the store (or of a snapshot of it) as the etcd3
// store would page it, and the resource index a field selector pins. Its counterpart for reads
// the cache cannot serve is storage-lister.ts.

/** One page from the cache, with what the cacher's metrics count. */
export interface ServedPage {
  result: CacheListResult;
  /** Elements looked at (apiserver_cache_list_fetched_objects_total). */
  fetched: number;
  /** The index that chose the candidates, '' for none (the `index` label). */
  index: string;
}

/**
 * One page of `source` as the etcd3 store pages (cacher.go GetList, storage.PrepareContinueToken):
 * `limit` matches from `startKey` on; a continue token after the last one when anything at all
 * follows it; remainingItemCount only when no selector filtered.
 */
export function cachePage(
  source: Pick<StoreSnapshot, 'range' | 'count'>,
  revision: number,
  scopePrefix: string,
  predicate: SelectionPredicate,
  limit: number | undefined,
  startKey: string | undefined,
  indexed?: { index: string; elements: Iterable<StoreElement> },
): ServedPage {
  const items: KubeObject[] = [];
  let lastKey: string | undefined;
  let more = false;
  let fetched = 0;
  const candidates = indexed?.elements ?? source.range(scopePrefix, startKey);
  for (const element of candidates) {
    if (limit !== undefined && items.length >= limit) {
      more = true;
      break;
    }
    fetched++;
    if (!predicate.matches(element.labels, element.fields)) continue;
    items.push(element.object);
    lastKey = element.key;
  }
  const result: CacheListResult = {
    items,
    resourceVersion: listResourceVersion(revision),
    shared: true,
  };
  if (more && lastKey !== undefined) {
    result.continue = encodeContinue(revision, lastKey, scopePrefix);
    if (predicate.empty) result.remainingItemCount = source.count(scopePrefix, keyAfter(lastKey));
  }
  return { result, fetched, index: indexed?.index ?? '' };
}

/** The resource index a field selector pins to one value (pods by spec.nodeName), if any. */
export function pinnedIndex(
  definition: Pick<ResourceDefinition, 'indexes'>,
  predicate: SelectionPredicate,
): { index: string; value: string } | undefined {
  for (const index of Object.keys(definition.indexes)) {
    const value = predicate.exactField(index);
    if (value !== undefined) return { index, value };
  }
  return undefined;
}

/** The store's elements under `scopePrefix` with the pinned index's value, when one is pinned. */
export function indexedCandidates(
  store: Pick<CacheStore, 'byIndex'>,
  definition: Pick<ResourceDefinition, 'indexes'>,
  scopePrefix: string,
  predicate: SelectionPredicate,
): { index: string; elements: StoreElement[] } | undefined {
  const pinned = pinnedIndex(definition, predicate);
  if (!pinned) return undefined;
  const elements = store
    .byIndex(pinned.index, pinned.value)
    .filter((e) => e.key.startsWith(scopePrefix));
  return { index: pinned.index, elements };
}

/** The cached objects a watch starts with (sendInitialEvents), in key order. */
export function* initialObjects(
  store: Pick<CacheStore, 'get' | 'range' | 'byIndex'>,
  definition: Pick<ResourceDefinition, 'indexes'>,
  scopePrefix: string,
  exactKey: string | undefined,
  predicate: SelectionPredicate,
): Generator<KubeObject> {
  const elements: Iterable<StoreElement> =
    exactKey !== undefined
      ? [store.get(exactKey)].filter((e) => e !== undefined)
      : (indexedCandidates(store, definition, scopePrefix, predicate)?.elements ??
        store.range(scopePrefix));
  for (const element of elements) {
    if (predicate.matches(element.labels, element.fields)) yield element.object;
  }
}
