import {
  ApiError,
  CONTINUE_AT_LATEST,
  encodeContinue,
  encodeContinueToken,
  isContinuedList,
  type KubeObject,
  type ListSemantics,
  type ResourceDefinition,
} from '@listwatch/api';
import { isStorageError } from '../storage-error.js';
import type { Storage } from '../storage.js';
import { objectFields, objectLabels } from './cache-store.js';
import type { CacheListResult } from './list-watch-source.js';
import type { SelectionPredicate } from './predicate.js';
import { tooLargeResourceVersion } from './watch-cache.js';
import { listResourceVersion } from '../api-object-versioner.js';

export interface PageRequest {
  /** Keys under this prefix (the resource, or one namespace of it); continue tokens are relative to it. */
  scopePrefix: string;
  predicate: SelectionPredicate;
  limit: number | undefined;
  /** What the LIST asked for (classifyList): Exact and continuations name their revision. */
  read: ListSemantics;
}

export interface Page {
  items: KubeObject[];
  revision: number;
  continueToken?: string;
  remainingItemCount?: number;
}

/** Keys fetched per storage round trip while filtering (etcd3 store's paging, capped there at 10000). */
const MAX_FETCH = 10_000;

export const EXPIRED_CONTINUE_MESSAGE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

/** etcd3/store.go validateMinimumResourceVersion: storage older than a NotOlderThan read is a 504. */
export function validateMinimumResourceVersion(read: ListSemantics, revision: number): void {
  if (read.mode === 'notOlderThan' && revision < read.resourceVersion)
    throw tooLargeResourceVersion(read.resourceVersion, revision);
}

/**
 * One LIST page straight from storage, as kube-apiserver's etcd3 store.GetList does it: at a
 * fixed revision (Exact and continuations; else the latest), sorted by key, filtered, fetching
 * more until `limit` matches are found, with a continue token after the last returned key
 * (k8s.io/apiserver/pkg/storage/etcd3/store.go).
 */
export async function listFromStorage(
  storage: Storage,
  definition: ResourceDefinition,
  request: PageRequest,
): Promise<Page> {
  const { read } = request;
  const fromContinue = isContinuedList(read);
  let startKey = fromContinue ? request.scopePrefix + read.continueFrom.start : undefined;
  const revision = read.mode === 'exact' ? read.resourceVersion : 0;
  const limit = request.limit && request.limit > 0 ? request.limit : undefined;
  const filtering = !request.predicate.empty;
  const items: KubeObject[] = [];
  let fetch = limit ?? 0;
  let more = false;
  let remaining = 0;
  let lastKey: string | undefined;
  let readAt = revision;
  try {
    for (;;) {
      const page = await storage.list(request.scopePrefix, {
        ...(fetch > 0 ? { limit: fetch } : {}),
        ...(startKey !== undefined ? { continueFrom: startKey } : {}),
        ...(readAt > 0 ? { revision: readAt } : {}),
      });
      readAt = page.revision;
      more = page.more;
      remaining = page.remaining;
      for (let i = 0; i < page.items.length; i++) {
        const object = page.items[i]!;
        const key = page.keys[i]!;
        if (
          !filtering ||
          request.predicate.matches(objectLabels(object), objectFields(definition, object))
        ) {
          items.push(object);
          if (limit !== undefined && items.length >= limit) {
            lastKey = key;
            const rest = page.items.length - 1 - i;
            more = more || rest > 0;
            remaining += rest;
            break;
          }
        }
        lastKey = key;
      }
      if (!more || limit === undefined || items.length >= limit) break;
      startKey = `${lastKey}\u0000`;
      fetch = Math.min(fetch * 2, MAX_FETCH);
    }
  } catch (err) {
    if (isStorageError(err, 'Expired')) {
      if (fromContinue && startKey !== undefined) {
        const expired = ApiError.expired(EXPIRED_CONTINUE_MESSAGE);
        expired.status.metadata = {
          continue: encodeContinueToken({
            resourceVersion: CONTINUE_AT_LATEST,
            start: startKey.slice(request.scopePrefix.length),
          }),
        };
        throw expired;
      }
      throw ApiError.expired('The resourceVersion for the provided list is too old.');
    }
    throw err;
  }
  validateMinimumResourceVersion(read, readAt);
  const result: Page = { items, revision: readAt };
  if (more && lastKey !== undefined) {
    result.continueToken = encodeContinue(readAt, lastKey, request.scopePrefix);
    // Kubernetes reports remainingItemCount only when it is exact: no selector filtered the list.
    if (!filtering) result.remainingItemCount = remaining;
  }
  return result;
}

/** A storage page as the LIST result the apiserver writes. */
export function pageResult(page: Page): CacheListResult {
  return {
    items: page.items,
    resourceVersion: listResourceVersion(page.revision),
    ...(page.continueToken !== undefined ? { continue: page.continueToken } : {}),
    ...(page.remainingItemCount !== undefined
      ? { remainingItemCount: page.remainingItemCount }
      : {}),
  };
}
