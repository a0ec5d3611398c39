import type { ApiError } from '@listwatch/api';
import { badPatch, patchEngineError } from './patch-error.js';
import {
  deleteKey,
  goFormat,
  goTypeName,
  hasKey,
  isJsonObject,
  setKey,
  type JsonObject,
  type JsonValue,
} from './json-value.js';

// The directives of a strategic merge patch (k8s.io/apimachinery pkg/util/strategicpatch/patch.go:
// `$patch`, `$retainKeys`, `$deleteFromPrimitiveList/`, `$setElementOrder/`), their removal from
// values copied verbatim, and the error texts of pkg/util/mergepatch/errors.go.

/** The patch's directive keys and values (strategicpatch/patch.go). */
export const DIRECTIVE = '$patch';
export const RETAIN_KEYS = '$retainKeys';
export const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList';
export const SET_ELEMENT_ORDER = '$setElementOrder';
export const [DELETE, REPLACE, MERGE] = ['delete', 'replace', 'merge'] as const;

/** mergepatch sentinel errors; kube answers the format ones with 400, list-of-lists with 422. */
export const ERRORS = {
  badPrimitiveList: 'invalid patch format of primitive list',
  badRetainKeys: 'invalid patch format of retainKeys',
  badSetElementOrder: 'invalid patch format of setElementOrder list',
  noListOfLists: 'lists of lists are not supported',
} as const;

export const MAP_TYPE = 'map[string]interface {}';
export const SLICE_TYPE = '[]interface {}';

export function badArgType(expected: string, actual: JsonValue | undefined): ApiError {
  return patchEngineError(`expected a ${expected}, but received a ${goTypeName(actual)}`);
}

export function noMergeKey(map: JsonObject, mergeKey: string): ApiError {
  return patchEngineError(`map: ${goFormat(map)} does not contain declared merge key: ${mergeKey}`);
}

/** Go's `%s` of a value that may not be a string. */
export function goString(value: JsonValue | undefined): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '%!s(<nil>)';
  return `%!s(${goTypeName(value)}=${goFormat(value)})`;
}

export function badPatchType(directive: JsonValue | undefined, map: JsonObject): ApiError {
  return patchEngineError(`unknown patch type: ${goString(directive)} in map: ${goFormat(map)}`);
}

/** `$deleteFromPrimitiveList/<field>` → `<field>`; a prefix without `/` is a 400. */
export function extractKey(key: string, prefix: string): string {
  const slash = key.indexOf('/');
  if (slash < 0 || key.slice(0, slash) !== prefix) {
    throw badPatch(
      prefix === DELETE_FROM_PRIMITIVE_LIST ? ERRORS.badPrimitiveList : ERRORS.badSetElementOrder,
    );
  }
  return key.slice(slash + 1);
}

/** Nulls in a value that lands where the original had nothing mean nothing: drop them. */
export function discardNullValues(value: JsonValue): void {
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
export function withoutDirectives(value: JsonValue): JsonValue | undefined {
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

export function insertWithoutDirectives(original: JsonObject, key: string, value: JsonValue): void {
  const kept = withoutDirectives(value);
  if (kept === undefined) deleteKey(original, key);
  else setKey(original, key, kept);
}

export function isDirectiveKey(key: string): boolean {
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
export function dropDirectiveKeys(value: JsonValue): void {
  if (Array.isArray(value)) {
    for (const v of value) dropDirectiveKeys(v);
  } else if (isJsonObject(value)) {
    for (const key of Object.keys(value)) {
      if (isDirectiveKey(key)) deleteKey(value, key);
      else dropDirectiveKeys(value[key] as JsonValue);
    }
  }
}
