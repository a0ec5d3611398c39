import { patchEngineError, unprocessablePatch } from './patch-error.js';
import {
  getKey,
  goFormat,
  goTypeName,
  hasKey,
  isJsonObject,
  type JsonValue,
} from './json-value.js';
import {
  DIRECTIVE,
  ERRORS,
  MAP_TYPE,
  badArgType,
  noMergeKey,
  DELETE,
} from './strategic-merge-directives.js';
import { goEqual, GoSlice, goSliceStable } from './go-semantics.js';

// The lists of a strategic merge patch (k8s.io/apimachinery pkg/util/strategicpatch/patch.go):
// their element kind, finding an item by merge key, primitive lists' delete and dedupe, and the
// order of a merged list (normalizeElementOrder: the patch's order, then the live list's).

export function findByKey(list: GoSlice, mergeKey: string, value: JsonValue): number {
  for (let i = 0; i < list.length; i++) {
    const item = list.at(i);
    if (!isJsonObject(item)) throw patchEngineError(`value for key ${i} is not a map`);
    if (hasKey(item, mergeKey) && goEqual(item[mergeKey], value)) return i;
  }
  return -1;
}

export function deleteFromSlice(current: JsonValue[], toDelete: JsonValue[]): JsonValue[] {
  return current.filter((v) => !toDelete.some((d) => goEqual(d, v)));
}

/** Upstream's in-place dedupe: a duplicate is overwritten by the last element. */
export function deduplicateScalars(items: JsonValue[]): JsonValue[] {
  const s = items;
  let last = s.length - 1;
  for (let i = 0; i < last; i++) {
    for (let j = i + 1; j <= last; j++) {
      if (goEqual(s[i], s[j])) {
        s[j] = s[last] as JsonValue;
        s.length = last;
        last--;
        j--;
      }
    }
  }
  return s;
}

export type ElementKind = 'map' | 'other';

/** sliceElementType: all elements of all lists share one Go type, and none is a list. */
export function sliceElementKind(...lists: JsonValue[][]): ElementKind {
  let type: string | undefined;
  for (const list of lists) {
    for (const value of list) {
      const current = goTypeName(value);
      if (type === undefined) {
        if (Array.isArray(value)) throw unprocessablePatch(ERRORS.noListOfLists);
        type = current;
      } else if (type !== current) {
        throw patchEngineError(`list element types are not identical: ${goFormat(lists)}`);
      }
    }
  }
  if (type === undefined) throw patchEngineError('no elements in any of the given slices');
  return type === MAP_TYPE ? 'map' : 'other';
}

export function partitionPrimitives(
  items: JsonValue[],
  by: JsonValue[],
): [JsonValue[], JsonValue[]] {
  const inList: JsonValue[] = [];
  const rest: JsonValue[] = [];
  for (const v of items) (by.some((b) => goEqual(b, v)) ? inList : rest).push(v);
  return [inList, rest];
}

export function partitionMaps(
  items: JsonValue[],
  by: JsonValue[],
  mergeKey: string,
): [JsonValue[], JsonValue[]] {
  const inList: JsonValue[] = [];
  const rest: JsonValue[] = [];
  const byList = GoSlice.of(by);
  for (const v of items) {
    if (!isJsonObject(v)) throw badArgType(MAP_TYPE, v);
    if (!hasKey(v, mergeKey)) throw noMergeKey(v, mergeKey);
    (findByKey(byList, mergeKey, v[mergeKey] as JsonValue) >= 0 ? inList : rest).push(v);
  }
  return [inList, rest];
}

export function extractToDeleteItems(list: JsonValue[]): [JsonValue[], JsonValue[]] {
  const keep: JsonValue[] = [];
  const toDelete: JsonValue[] = [];
  for (const v of list) {
    if (!isJsonObject(v)) throw badArgType(MAP_TYPE, v);
    (getKey(v, DIRECTIVE) === DELETE ? toDelete : keep).push(v);
  }
  return [keep, toDelete];
}

/** Position of `value` in `list`, matched by merge key for maps and by value otherwise. */
export function indexIn(
  list: JsonValue[],
  value: JsonValue,
  mergeKey: string,
  kind: ElementKind,
): number {
  const key = (item: JsonValue): JsonValue | undefined =>
    kind === 'map' ? (isJsonObject(item) ? getKey(item, mergeKey) : undefined) : item;
  const wanted = key(value);
  return list.findIndex((item) => goEqual(wanted, key(item)));
}

/**
 * Orders the items found in the patch by `patchOrder` and the server-only items by
 * `serverOrder`, then interleaves them so both relative orders hold.
 */
export function normalizeElementOrder(
  patch: JsonValue[],
  serverOnly: JsonValue[],
  patchOrder: JsonValue[],
  serverOrder: JsonValue[],
  mergeKey: string,
  kind: ElementKind,
): JsonValue[] {
  const left = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, kind);
  const right = normalizeSliceOrder(patch, patchOrder, mergeKey, kind);
  const merged: JsonValue[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length && j < right.length) {
    const li = indexIn(serverOrder, left[i] as JsonValue, mergeKey, kind);
    const ri = indexIn(serverOrder, right[j] as JsonValue, mergeKey, kind);
    if (li >= 0 && ri >= 0 && li < ri) merged.push(left[i++] as JsonValue);
    else merged.push(right[j++] as JsonValue);
  }
  return [...merged, ...left.slice(i), ...right.slice(j)];
}

export function normalizeSliceOrder(
  items: JsonValue[],
  order: JsonValue[],
  mergeKey: string,
  kind: ElementKind,
): JsonValue[] {
  let toSort = items;
  let toDelete: JsonValue[] = [];
  if (kind === 'map') {
    for (const v of [...items, ...order]) {
      if (!isJsonObject(v)) throw badArgType(MAP_TYPE, v);
      if (!hasKey(v, mergeKey)) throw noMergeKey(v, mergeKey);
    }
    [toSort, toDelete] = extractToDeleteItems(items);
  }
  // Upstream's less() says "before" whenever either item is missing from the order, which is
  // not a consistent ordering: the result then depends on Go's exact sort.SliceStable.
  const less = (a: JsonValue, b: JsonValue): boolean => {
    const ia = indexIn(order, a, mergeKey, kind);
    const ib = ia >= 0 ? indexIn(order, b, mergeKey, kind) : -1;
    return ia >= 0 && ib >= 0 ? ia < ib : true;
  };
  return [...goSliceStable([...toSort], less), ...toDelete];
}
