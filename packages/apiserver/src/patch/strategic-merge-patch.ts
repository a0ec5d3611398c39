import type { ApiError } from '@listwatch/api';
import { badPatch, patchEngineError, unprocessablePatch } from './patch-error.js';
import { patchField, type PatchSchema } from './patch-schema.js';
import {
  cloneJson,
  deleteKey,
  getKey,
  goFormat,
  goTypeName,
  hasKey,
  isJsonObject,
  jsonKindName,
  setKey,
  type JsonObject,
  type JsonValue,
} from './json-value.js';

// Strategic merge patch (application/strategic-merge-patch+json), the apply half of
// k8s.io/apimachinery/pkg/util/strategicpatch/patch.go (StrategicMergeMapPatch: parallel lists
// merged, unmatched nulls ignored), with error texts from pkg/util/mergepatch/errors.go and the
// status codes of interpretStrategicMergePatchError in apiserver's handlers/patch.go.

/** The patch's directive keys and values (strategicpatch/patch.go). */
const DIRECTIVE = '$patch';
const RETAIN_KEYS = '$retainKeys';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList';
const SET_ELEMENT_ORDER = '$setElementOrder';
const [DELETE, REPLACE, MERGE] = ['delete', 'replace', 'merge'] as const;

/** mergepatch sentinel errors; kube answers the format ones with 400, list-of-lists with 422. */
const ERRORS = {
  badPrimitiveList: 'invalid patch format of primitive list',
  badRetainKeys: 'invalid patch format of retainKeys',
  badSetElementOrder: 'invalid patch format of setElementOrder list',
  noListOfLists: 'lists of lists are not supported',
} as const;

const MAP_TYPE = 'map[string]interface {}';
const SLICE_TYPE = '[]interface {}';

function badArgType(expected: string, actual: JsonValue | undefined): ApiError {
  return patchEngineError(`expected a ${expected}, but received a ${goTypeName(actual)}`);
}

function noMergeKey(map: JsonObject, mergeKey: string): ApiError {
  return patchEngineError(`map: ${goFormat(map)} does not contain declared merge key: ${mergeKey}`);
}

/** Go's `%s` of a value that may not be a string. */
function goString(value: JsonValue | undefined): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '%!s(<nil>)';
  return `%!s(${goTypeName(value)}=${goFormat(value)})`;
}

function badPatchType(directive: JsonValue | undefined, map: JsonObject): ApiError {
  return patchEngineError(`unknown patch type: ${goString(directive)} in map: ${goFormat(map)}`);
}

/**
 * Applies a strategic merge patch to `original` using the struct metadata in `schema` and
 * returns the new object; neither input is changed. A `null` patch changes nothing.
 * Failures are ApiErrors: 400 for malformed directives, 422 for lists of lists, as kube
 * answers them, and 400 for the rest, which kube passes through as 500s (patchEngineError).
 */
export function strategicMergePatch(
  original: JsonObject,
  patch: JsonValue,
  schema: PatchSchema,
): JsonObject {
  if (patch === null) return cloneJson(original);
  if (!isJsonObject(patch)) {
    throw badPatch(
      `json: cannot unmarshal ${jsonKindName(patch)} into Go value of type map[string]interface {}`,
    );
  }
  const merged = mergeMap(cloneJson(original), cloneJson(patch), schema);
  dropDirectiveKeys(merged);
  return merged;
}

function mergeMap(
  original: JsonObject,
  patch: JsonObject,
  schema: PatchSchema | undefined,
): JsonObject {
  if (hasKey(patch, DIRECTIVE)) return handleDirectiveInMergeMap(patch[DIRECTIVE], patch);
  applyRetainKeysDirective(original, patch);
  mergePatchIntoOriginal(original, patch, schema);

  for (const patchKey of Object.keys(patch)) {
    const patchValue = patch[patchKey] as JsonValue;
    let key = patchKey;
    let isDeleteList = false;
    if (patchKey.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
      const listKey = extractKey(patchKey, DELETE_FROM_PRIMITIVE_LIST);
      isDeleteList = true;
      if (listKey.length > 0) key = listKey;
    }

    if (patchValue === null) {
      deleteKey(original, key);
      continue;
    }
    const current = getKey(original, key);
    if (current === undefined || goTypeName(current) !== goTypeName(patchValue)) {
      if (!isDeleteList) {
        discardNullValues(patchValue);
        insertWithoutDirectives(original, key, patchValue);
      }
      continue;
    }

    const field = patchField(schema, key);
    if (isJsonObject(current)) {
      setKey(
        original,
        key,
        field.strategy === REPLACE
          ? patchValue
          : mergeMap(current, patchValue as JsonObject, field.schema),
      );
    } else if (Array.isArray(current)) {
      setKey(
        original,
        key,
        mergeSliceHandler(
          current,
          patchValue as JsonValue[],
          field.schema,
          field.strategy,
          field.mergeKey ?? '',
          isDeleteList,
        ),
      );
    } else {
      insertWithoutDirectives(original, key, patchValue);
    }
  }
  return original;
}

function handleDirectiveInMergeMap(
  directive: JsonValue | undefined,
  patch: JsonObject,
): JsonObject {
  if (directive === REPLACE) {
    deleteKey(patch, DIRECTIVE);
    return patch;
  }
  if (directive === DELETE) return {};
  throw badPatchType(directive, patch);
}

/** Go's `==` on two decoded JSON values: primitives by type and value, containers never equal. */
function goEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === undefined || a === null) return b === undefined || b === null;
  if (typeof a === 'object') return a === b;
  return a === b && goTypeName(a) === goTypeName(b);
}

/** `$deleteFromPrimitiveList/<field>` → `<field>`; a prefix without `/` is a 400. */
function extractKey(key: string, prefix: string): string {
  const slash = key.indexOf('/');
  if (slash < 0 || key.slice(0, slash) !== prefix) {
    throw badPatch(
      prefix === DELETE_FROM_PRIMITIVE_LIST ? ERRORS.badPrimitiveList : ERRORS.badSetElementOrder,
    );
  }
  return key.slice(slash + 1);
}

/** `$retainKeys`: clears the original's keys not listed; every patched key must be listed. */
function applyRetainKeysDirective(original: JsonObject, patch: JsonObject): void {
  if (!hasKey(patch, RETAIN_KEYS)) return;
  const retain = patch[RETAIN_KEYS];
  deleteKey(patch, RETAIN_KEYS);
  if (!Array.isArray(retain)) throw badPatch(ERRORS.badRetainKeys);
  const kept = new Set(retain.filter((v): v is string => typeof v === 'string'));
  for (const key of Object.keys(patch)) {
    if (
      patch[key] === null ||
      key.startsWith(DELETE_FROM_PRIMITIVE_LIST) ||
      key.startsWith(SET_ELEMENT_ORDER)
    )
      continue;
    if (!kept.has(key)) throw badPatch(ERRORS.badRetainKeys);
  }
  for (const key of Object.keys(original)) {
    if (!kept.has(key)) deleteKey(original, key);
  }
}

/**
 * `$setElementOrder/<field>`: merges the field's list now and orders the result. Precedence:
 * the directive's order, then the patch list's order, then the live list's order.
 */
function mergePatchIntoOriginal(
  original: JsonObject,
  patch: JsonObject,
  schema: PatchSchema | undefined,
): void {
  for (const directiveKey of Object.keys(patch)) {
    if (!directiveKey.startsWith(SET_ELEMENT_ORDER)) continue;
    const order = patch[directiveKey] as JsonValue;
    deleteKey(patch, directiveKey);
    if (!Array.isArray(order)) throw badArgType(SLICE_TYPE, order);
    const key = extractKey(directiveKey, SET_ELEMENT_ORDER);

    const foundOriginal = hasKey(original, key);
    const foundPatch = hasKey(patch, key);
    const originalList = getKey(original, key);
    const patchList = getKey(patch, key);
    if (foundOriginal && !Array.isArray(originalList)) throw badArgType(SLICE_TYPE, originalList);
    if (foundPatch && !Array.isArray(patchList)) throw badArgType(SLICE_TYPE, patchList);
    const originalItems = (originalList ?? []) as JsonValue[];
    const patchItems = (patchList ?? []) as JsonValue[];

    const field = patchField(schema, key);
    const mergeKey = field.mergeKey ?? '';
    validatePatchWithSetOrderList(patchItems, order, mergeKey);

    let merged: JsonValue[];
    if (foundOriginal && !foundPatch) merged = originalItems;
    else if (!foundOriginal && foundPatch) merged = withoutDirectives(patchItems) as JsonValue[];
    else if (foundOriginal && foundPatch) {
      merged = mergeSliceHandler(
        originalItems,
        patchItems,
        field.schema,
        field.strategy,
        mergeKey,
        false,
      );
    } else continue;

    const [inOrder, serverOnly] =
      mergeKey === '' ? partitionPrimitives(merged, order) : partitionMaps(merged, order, mergeKey);
    // `originalItems` may have been shifted in place by the merge (see GoSlice): upstream reads
    // that same backing array here, and so must we to order items identically.
    const kind = sliceElementKind(originalItems, patchItems);
    setKey(
      original,
      key,
      normalizeElementOrder(inOrder, serverOnly, order, originalItems, mergeKey, kind),
    );
    deleteKey(patch, key);
  }
}

function validatePatchWithSetOrderList(
  patchList: JsonValue[],
  order: JsonValue[],
  mergeKey: string,
): void {
  if (order.length === 0 || patchList.length === 0) return;
  const items = mergeKey === '' ? patchList : extractToDeleteItems(patchList)[0];
  let p = 0;
  let o = 0;
  while (p < items.length && o < order.length) {
    const item = items[p] as JsonValue;
    if (isJsonObject(item) && hasKey(item, DIRECTIVE)) {
      p++;
      continue;
    }
    if (mergeKeyValueEqual(item, order[o] as JsonValue, mergeKey)) p++;
    o++;
  }
  if (p < items.length && o >= order.length) {
    throw patchEngineError(
      `The order in patch list:\n${goFormat(patchList)}\n doesn't match ${SET_ELEMENT_ORDER} list:\n${goFormat(order)}\n`,
    );
  }
}

function mergeKeyValueEqual(left: JsonValue, right: JsonValue, mergeKey: string): boolean {
  if (mergeKey === '') return goEqual(left, right);
  if (!isJsonObject(left)) throw badArgType(MAP_TYPE, left);
  if (!isJsonObject(right)) throw badArgType(MAP_TYPE, right);
  if (!hasKey(left, mergeKey)) throw noMergeKey(left, mergeKey);
  if (!hasKey(right, mergeKey)) throw noMergeKey(right, mergeKey);
  return goEqual(left[mergeKey], right[mergeKey]);
}

function mergeSliceHandler(
  original: JsonValue[],
  patch: JsonValue[],
  schema: PatchSchema | undefined,
  strategy: string | undefined,
  mergeKey: string,
  isDeleteList: boolean,
): JsonValue[] {
  // Deletion lists work the same whatever the field's strategy.
  if (strategy === MERGE || isDeleteList)
    return mergeSlice(original, patch, schema, mergeKey, isDeleteList);
  return patch;
}

/**
 * A Go slice over a shared backing array. Upstream deletes merge-list entries in place
 * (`append(s[:i], s[i+1:]...)`) and appends new entries into the capacity that frees; the
 * caller's view of the live list sees both, and `$setElementOrder` then orders by that view.
 * kubectl apply's "remove one container, add another" patches depend on it, so we keep it.
 */
class GoSlice {
  private shared: boolean;

  constructor(
    private items: JsonValue[],
    public length: number,
    shared: boolean,
  ) {
    this.shared = shared;
  }

  static view(items: JsonValue[]): GoSlice {
    return new GoSlice(items, items.length, true);
  }

  static of(items: JsonValue[]): GoSlice {
    return new GoSlice(items, items.length, false);
  }

  at(index: number): JsonValue {
    return this.items[index] as JsonValue;
  }

  set(index: number, value: JsonValue): void {
    this.items[index] = value;
  }

  removeAt(index: number): void {
    for (let i = index; i < this.length - 1; i++) this.items[i] = this.items[i + 1] as JsonValue;
    this.length--;
  }

  append(value: JsonValue): void {
    if (this.shared && this.length >= this.items.length) {
      // Past the shared capacity Go reallocates: later writes no longer reach the caller.
      this.items = this.items.slice(0, this.length);
      this.shared = false;
    }
    this.items[this.length++] = value;
  }

  toArray(): JsonValue[] {
    return this.items.slice(0, this.length);
  }
}

function mergeSlice(
  originalItems: JsonValue[],
  patchItems: JsonValue[],
  schema: PatchSchema | undefined,
  mergeKey: string,
  isDeleteList: boolean,
): JsonValue[] {
  if (originalItems.length === 0 && patchItems.length === 0) return originalItems;
  const kind = sliceElementKind(originalItems, patchItems);

  let merged: JsonValue[];
  let patch = patchItems;
  let serverOrder = originalItems;
  if (kind !== 'map') {
    if (isDeleteList) return deleteFromSlice(originalItems, patchItems);
    merged = deduplicateScalars([...originalItems, ...patchItems]);
  } else {
    if (mergeKey === '')
      throw patchEngineError('cannot merge lists without merge key for type struct');
    const special = mergeSliceWithSpecialElements(
      GoSlice.view(originalItems),
      patchItems,
      mergeKey,
    );
    patch = special.patch;
    serverOrder = special.original.toArray();
    merged = mergeSliceWithoutSpecialElements(special.original, patch, mergeKey, schema);
  }

  const [inPatch, serverOnly] =
    mergeKey === '' ? partitionPrimitives(merged, patch) : partitionMaps(merged, patch, mergeKey);
  return normalizeElementOrder(inPatch, serverOnly, patch, serverOrder, mergeKey, kind);
}

/** Handles `$patch: delete|replace|merge` items; returns the live list and the plain items. */
function mergeSliceWithSpecialElements(
  original: GoSlice,
  patch: JsonValue[],
  mergeKey: string,
): { original: GoSlice; patch: JsonValue[] } {
  const plain: JsonValue[] = [];
  let replace = false;
  for (const value of patch) {
    const item = value as JsonObject;
    if (!hasKey(item, DIRECTIVE)) {
      plain.push(item);
      continue;
    }
    const directive = item[DIRECTIVE];
    if (directive === DELETE) {
      if (!hasKey(item, mergeKey)) throw noMergeKey(item, mergeKey);
      deleteMatchingEntries(original, mergeKey, item[mergeKey] as JsonValue);
    } else if (directive === REPLACE) {
      // Keep going: the remaining directive items are dropped from the replacement.
      replace = true;
    } else if (directive === MERGE) {
      throw patchEngineError('merging lists cannot yet be specified in the patch');
    } else {
      throw badPatchType(directive, item);
    }
  }
  return replace ? { original: GoSlice.of(plain), patch: [] } : { original, patch: plain };
}

function findByKey(list: GoSlice, mergeKey: string, value: JsonValue): number {
  for (let i = 0; i < list.length; i++) {
    const item = list.at(i);
    if (!isJsonObject(item)) throw patchEngineError(`value for key ${i} is not a map`);
    if (hasKey(item, mergeKey) && goEqual(item[mergeKey], value)) return i;
  }
  return -1;
}

function deleteMatchingEntries(original: GoSlice, mergeKey: string, value: JsonValue): void {
  for (
    let i = findByKey(original, mergeKey, value);
    i >= 0;
    i = findByKey(original, mergeKey, value)
  ) {
    original.removeAt(i);
  }
}

function mergeSliceWithoutSpecialElements(
  original: GoSlice,
  patch: JsonValue[],
  mergeKey: string,
  schema: PatchSchema | undefined,
): JsonValue[] {
  for (const value of patch) {
    const item = value as JsonObject;
    if (!hasKey(item, mergeKey)) throw noMergeKey(item, mergeKey);
    const index = findByKey(original, mergeKey, item[mergeKey] as JsonValue);
    if (index >= 0) original.set(index, mergeMap(original.at(index) as JsonObject, item, schema));
    else original.append(item);
  }
  return original.toArray();
}

function deleteFromSlice(current: JsonValue[], toDelete: JsonValue[]): JsonValue[] {
  return current.filter((v) => !toDelete.some((d) => goEqual(d, v)));
}

/** Upstream's in-place dedupe: a duplicate is overwritten by the last element. */
function deduplicateScalars(items: JsonValue[]): JsonValue[] {
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

type ElementKind = 'map' | 'other';

/** sliceElementType: all elements of all lists share one Go type, and none is a list. */
function sliceElementKind(...lists: JsonValue[][]): ElementKind {
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

function partitionPrimitives(items: JsonValue[], by: JsonValue[]): [JsonValue[], JsonValue[]] {
  const inList: JsonValue[] = [];
  const rest: JsonValue[] = [];
  for (const v of items) (by.some((b) => goEqual(b, v)) ? inList : rest).push(v);
  return [inList, rest];
}

function partitionMaps(
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

function extractToDeleteItems(list: JsonValue[]): [JsonValue[], JsonValue[]] {
  const keep: JsonValue[] = [];
  const toDelete: JsonValue[] = [];
  for (const v of list) {
    if (!isJsonObject(v)) throw badArgType(MAP_TYPE, v);
    (getKey(v, DIRECTIVE) === DELETE ? toDelete : keep).push(v);
  }
  return [keep, toDelete];
}

/** Position of `value` in `list`, matched by merge key for maps and by value otherwise. */
function indexIn(list: JsonValue[], value: JsonValue, mergeKey: string, kind: ElementKind): number {
  const key = (item: JsonValue): JsonValue | undefined =>
    kind === 'map' ? (isJsonObject(item) ? getKey(item, mergeKey) : undefined) : item;
  const wanted = key(value);
  return list.findIndex((item) => goEqual(wanted, key(item)));
}

/**
 * Orders the items found in the patch by `patchOrder` and the server-only items by
 * `serverOrder`, then interleaves them so both relative orders hold.
 */
function normalizeElementOrder(
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

function normalizeSliceOrder(
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

/**
 * Go's sort.SliceStable (insertion sort over blocks of 20, then SymMerge), step for step, so an
 * inconsistent `less` orders items exactly as upstream does.
 */
function goSliceStable<T>(data: T[], lessValues: (a: T, b: T) => boolean): T[] {
  const less = (i: number, j: number): boolean => lessValues(data[i] as T, data[j] as T);
  const swap = (i: number, j: number): void => {
    const t = data[i] as T;
    data[i] = data[j] as T;
    data[j] = t;
  };
  const insertionSort = (a: number, b: number): void => {
    for (let i = a + 1; i < b; i++) for (let j = i; j > a && less(j, j - 1); j--) swap(j, j - 1);
  };
  const swapRange = (a: number, b: number, n: number): void => {
    for (let i = 0; i < n; i++) swap(a + i, b + i);
  };
  const rotate = (a: number, m: number, b: number): void => {
    let i = m - a;
    let j = b - m;
    while (i !== j) {
      if (i > j) {
        swapRange(m - i, m, j);
        i -= j;
      } else {
        swapRange(m - i, m + j - i, i);
        j -= i;
      }
    }
    swapRange(m - i, m, i);
  };
  const symMerge = (a: number, m: number, b: number): void => {
    if (m - a === 1) {
      let i = m;
      let j = b;
      while (i < j) {
        const h = (i + j) >>> 1;
        if (less(h, a)) i = h + 1;
        else j = h;
      }
      for (let k = a; k < i - 1; k++) swap(k, k + 1);
      return;
    }
    if (b - m === 1) {
      let i = a;
      let j = m;
      while (i < j) {
        const h = (i + j) >>> 1;
        if (!less(m, h)) i = h + 1;
        else j = h;
      }
      for (let k = m; k > i; k--) swap(k, k - 1);
      return;
    }
    const mid = (a + b) >>> 1;
    const n = mid + m;
    let start: number;
    let r: number;
    if (m > mid) {
      start = n - b;
      r = mid;
    } else {
      start = a;
      r = m;
    }
    const p = n - 1;
    while (start < r) {
      const c = (start + r) >>> 1;
      if (!less(p - c, c)) start = c + 1;
      else r = c;
    }
    const end = n - start;
    if (start < m && m < end) rotate(start, m, end);
    if (a < start && start < mid) symMerge(a, start, mid);
    if (mid < end && end < b) symMerge(mid, end, b);
  };

  const n = data.length;
  let blockSize = 20;
  let a = 0;
  let b = blockSize;
  while (b <= n) {
    insertionSort(a, b);
    a = b;
    b += blockSize;
  }
  insertionSort(a, n);
  while (blockSize < n) {
    a = 0;
    b = 2 * blockSize;
    while (b <= n) {
      symMerge(a, a + blockSize, b);
      a = b;
      b += 2 * blockSize;
    }
    const m = a + blockSize;
    if (m < n) symMerge(a, m, n);
    blockSize *= 2;
  }
  return data;
}

/** Nulls in a value that lands where the original had nothing mean nothing: drop them. */
function discardNullValues(value: JsonValue): void {
  if (Array.isArray(value)) {
    for (const v of value) discardNullValues(v);
  } else if (isJsonObject(value)) {
    for (const key of Object.keys(value)) {
      const child = value[key] as JsonValue;
      if (child === null) deleteKey(value, key);
      else discardNullValues(child);
    }
  }
}

/** removeDirectives: maps carrying `$patch` vanish (with their key or list slot). */
function withoutDirectives(value: JsonValue): JsonValue | undefined {
  if (Array.isArray(value)) {
    const kept: JsonValue[] = [];
    for (const v of value) {
      const w = withoutDirectives(v);
      if (w !== undefined) kept.push(w);
    }
    return kept;
  }
  if (isJsonObject(value)) {
    if (hasKey(value, DIRECTIVE)) return undefined;
    for (const key of Object.keys(value)) {
      const w = withoutDirectives(value[key] as JsonValue);
      if (w === undefined) deleteKey(value, key);
      else setKey(value, key, w);
    }
  }
  return value;
}

function insertWithoutDirectives(original: JsonObject, key: string, value: JsonValue): void {
  const kept = withoutDirectives(value);
  if (kept === undefined) deleteKey(original, key);
  else setKey(original, key, kept);
}

function isDirectiveKey(key: string): boolean {
  return (
    key === DIRECTIVE ||
    key === RETAIN_KEYS ||
    key.startsWith(`${SET_ELEMENT_ORDER}/`) ||
    key.startsWith(`${DELETE_FROM_PRIMITIVE_LIST}/`)
  );
}

/**
 * Directive keys upstream leaves inside values it copies verbatim (a `$patch: replace` map,
 * a newly appended list item, a replaced list) are unknown fields to kube's typed decoder,
 * which drops them; we have no typed decoder, so drop them here.
 */
function dropDirectiveKeys(value: JsonValue): void {
  if (Array.isArray(value)) {
    for (const v of value) dropDirectiveKeys(v);
  } else if (isJsonObject(value)) {
    for (const key of Object.keys(value)) {
      if (isDirectiveKey(key)) deleteKey(value, key);
      else dropDirectiveKeys(value[key] as JsonValue);
    }
  }
}
