import { badPatch, patchEngineError } from './patch-error.js';
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
import {
  DIRECTIVE,
  RETAIN_KEYS,
  DELETE_FROM_PRIMITIVE_LIST,
  SET_ELEMENT_ORDER,
  ERRORS,
  MAP_TYPE,
  SLICE_TYPE,
  badArgType,
  noMergeKey,
  badPatchType,
  extractKey,
  discardNullValues,
  withoutDirectives,
  insertWithoutDirectives,
  dropDirectiveKeys,
  DELETE,
  REPLACE,
  MERGE,
} from './strategic-merge-directives.js';
import { goEqual, GoSlice } from './go-semantics.js';
import {
  findByKey,
  deleteFromSlice,
  deduplicateScalars,
  sliceElementKind,
  partitionPrimitives,
  partitionMaps,
  extractToDeleteItems,
  normalizeElementOrder,
} from './strategic-merge-lists.js';

// Strategic merge patch (application/strategic-merge-patch+json), the apply half of
// k8s.io/apimachinery/pkg/util/strategicpatch/patch.go (StrategicMergeMapPatch: parallel lists
// merged, unmatched nulls ignored), with error texts from pkg/util/mergepatch/errors.go and the
// status codes of interpretStrategicMergePatchError in apiserver's handlers/patch.go.
// This file is the walk (mergeMap, mergeSlice and their directives); the directive keys and
// errors are in strategic-merge-directives.ts, list order in strategic-merge-lists.ts, and the Go
// behaviour the walk relies on in go-semantics.ts.
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
