import type { ApiError } from '@listwatch/api';
import { badPatch, patchEngineError } from './patch-error.js';
import {
  cloneJson,
  deleteKey,
  getKey,
  hasKey,
  isJsonObject,
  jsonEqual,
  setKey,
  type JsonObject,
  type JsonValue,
} from './json-value.js';

// JSON Merge Patch (RFC 7386, application/merge-patch+json) with the exact semantics of
// gopkg.in/evanphx/json-patch.v4 MergePatch, which kube-apiserver runs
// (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go, applyJSPatch).

/** evanphx's errBadJSONPatch text; kube answers it with 400. */
export const INVALID_MERGE_PATCH = 'Invalid JSON Patch';
/** evanphx's errBadJSONDoc text; kube passes it through as a 500, we answer 400. */
export const INVALID_MERGE_DOCUMENT = 'Invalid JSON Document';

/**
 * Applies a merge patch to a document and returns the new document; neither input is changed.
 * `null` deletes a key, objects merge recursively, anything else (arrays included) replaces.
 * A non-object document is replaced by the patch; an array patch replaces the document.
 * A null or scalar patch is a 400 `Invalid JSON Patch`.
 */
export function mergePatch(document: JsonValue, patch: JsonValue): JsonValue {
  if (patch === null || (typeof patch !== 'object' && !Array.isArray(patch))) {
    throw invalidPatch();
  }
  if (Array.isArray(patch)) return pruneNulls(cloneJson(patch));
  if (document === null) throw patchEngineError(INVALID_MERGE_DOCUMENT);
  if (!isJsonObject(document)) return pruneNulls(cloneJson(patch));
  const result = cloneJson(document);
  mergeDocs(result, patch);
  return result;
}

function invalidPatch(): ApiError {
  return badPatch(INVALID_MERGE_PATCH);
}

function mergeDocs(doc: JsonObject, patch: JsonObject): void {
  for (const key of Object.keys(patch)) {
    const value = patch[key] as JsonValue;
    if (value === null) {
      deleteKey(doc, key);
      continue;
    }
    const current = getKey(doc, key);
    if (current === undefined || current === null) {
      setKey(doc, key, pruneNulls(cloneJson(value)));
    } else {
      setKey(doc, key, merge(current, value));
    }
  }
}

function merge(current: JsonValue, patch: JsonValue): JsonValue {
  // evanphx prunes nulls when the current value is not an object, but inserts a non-object
  // patch value over an object as it is: kept for identical results.
  if (!isJsonObject(current)) return pruneNulls(cloneJson(patch));
  if (!isJsonObject(patch)) return cloneJson(patch);
  mergeDocs(current, patch);
  return current;
}

/**
 * Drops null members of objects, recursively and in place. Null array elements stay: evanphx
 * v4.12 (what kube vendors) keeps them, though older releases dropped them.
 */
function pruneNulls(value: JsonValue): JsonValue {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = pruneNulls(value[i] as JsonValue);
    return value;
  }
  if (isJsonObject(value)) {
    for (const key of Object.keys(value)) {
      const child = value[key] as JsonValue;
      if (child === null) deleteKey(value, key);
      else setKey(value, key, pruneNulls(child));
    }
  }
  return value;
}

/**
 * The merge patch that turns `original` into `modified` (evanphx CreateMergePatch): changed and
 * added keys carry their new value, removed keys carry null, arrays are sent whole.
 */
export function createMergePatch(original: JsonObject, modified: JsonObject): JsonObject {
  const patch: JsonObject = {};
  for (const key of Object.keys(modified)) {
    const after = modified[key] as JsonValue;
    if (!hasKey(original, key)) {
      setKey(patch, key, cloneJson(after));
      continue;
    }
    const before = original[key] as JsonValue;
    if (isJsonObject(before) && isJsonObject(after)) {
      const nested = createMergePatch(before, after);
      if (Object.keys(nested).length > 0) setKey(patch, key, nested);
    } else if (!jsonEqual(before, after)) {
      setKey(patch, key, cloneJson(after));
    }
  }
  for (const key of Object.keys(original)) {
    if (!hasKey(modified, key)) setKey(patch, key, null);
  }
  return patch;
}
