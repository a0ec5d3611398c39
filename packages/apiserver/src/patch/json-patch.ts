import { ApiError } from '@listwatch/api';
import { badPatch, unprocessablePatch } from './patch-error.js';
import {
  cloneJson,
  getKey,
  hasKey,
  isJsonObject,
  jsonEqual,
  jsonKindName,
  setKey,
  deleteKey,
  type JsonObject,
  type JsonValue,
} from './json-value.js';

// JSON Patch (RFC 6902, application/json-patch+json) as kube-apiserver applies it: decoding and
// limits from k8s.io/apiserver/pkg/endpoints/handlers/patch.go (applyJSPatch), operations with
// the semantics and error texts of gopkg.in/evanphx/json-patch.v4, the library kube vendors.
// Where evanphx departs from the RFC (negative array indices, `replace` of a missing object
// member adds it, a `test` for null matches a missing member) we follow evanphx, because that
// is what clients of a real cluster see.

/** kube's `maxJSONPatchOperations`: a longer patch is a 413. */
export const MAX_JSON_PATCH_OPERATIONS = 10000;

/**
 * kube's default `JSONPatchMaxCopyBytes` (3 MiB, twice etcd's request limit): the total size
 * `copy` operations may add to a document.
 */
export const MAX_JSON_PATCH_COPY_BYTES = 3 * 1024 * 1024;

/** One decoded operation; unknown members are ignored (kube only warns about them). */
export interface JsonPatchOperation {
  op?: string | null;
  path?: string | null;
  from?: string | null;
  /** Absent and `null` differ: `test` and `add` treat them differently. */
  value?: JsonValue;
}

export interface JsonPatchOptions {
  maxCopyBytes?: number;
}

const OP_FIELDS = ['op', 'path', 'from'] as const;

/**
 * Checks a parsed JSON Patch document the way kube's strict decode into `[]jsonPatchOp` does
 * (400 `error decoding patch: ...`) and enforces the operation limit (413). `null` is an empty
 * patch, as Go decodes it.
 */
export function decodeJsonPatch(document: JsonValue): JsonPatchOperation[] {
  if (document === null) return [];
  if (!Array.isArray(document)) {
    throw decodeError(
      `json: cannot unmarshal ${jsonKindName(document)} into Go value of type []handlers.jsonPatchOp`,
    );
  }
  const operations: JsonPatchOperation[] = [];
  for (const element of document) {
    if (element === null) {
      operations.push({});
      continue;
    }
    if (!isJsonObject(element)) {
      throw decodeError(
        `json: cannot unmarshal ${jsonKindName(element)} into Go value of type handlers.jsonPatchOp`,
      );
    }
    const operation: JsonPatchOperation = {};
    for (const field of OP_FIELDS) {
      const value = getKey(element, field);
      if (value === undefined) continue;
      if (value !== null && typeof value !== 'string') {
        throw decodeError(
          `json: cannot unmarshal ${jsonKindName(value)} into Go struct field jsonPatchOp.${field} of type string`,
        );
      }
      operation[field] = value;
    }
    if (hasKey(element, 'value')) operation.value = element.value as JsonValue;
    operations.push(operation);
  }
  if (operations.length > MAX_JSON_PATCH_OPERATIONS) {
    throw ApiError.requestEntityTooLarge(
      `The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${operations.length}`,
    );
  }
  return operations;
}

function decodeError(message: string): ApiError {
  return badPatch(`error decoding patch: ${message}`);
}

/**
 * Applies a parsed JSON Patch document and returns the new document; the input document is not
 * changed. Failures are kube's 400/413/422 ApiErrors; a failing operation (a failed `test`
 * included) is a 422.
 */
export function applyJsonPatch(
  document: JsonValue,
  patch: JsonValue,
  options: JsonPatchOptions = {},
): JsonValue {
  const operations = decodeJsonPatch(patch);
  const state: PatchState = {
    root: cloneJson(document),
    copied: 0,
    maxCopyBytes: options.maxCopyBytes ?? MAX_JSON_PATCH_COPY_BYTES,
  };
  if (!isContainer(state.root)) {
    throw unprocessablePatch(
      `json: cannot unmarshal ${jsonKindName(state.root)} into Go value of type jsonpatch.partialDoc`,
    );
  }
  for (const operation of operations) {
    const failure = applyOperation(state, operation);
    if (failure !== undefined) throw unprocessablePatch(failure);
  }
  return state.root;
}

interface PatchState {
  root: JsonValue;
  copied: number;
  maxCopyBytes: number;
}

type Container = JsonObject | JsonValue[];

function isContainer(value: JsonValue | undefined): value is Container {
  return Array.isArray(value) || isJsonObject(value);
}

/** Go's strconv.Atoi: an optional sign and decimal digits; leading zeros allowed. */
function atoi(key: string): number | string {
  if (!/^[+-]?\d+$/.test(key))
    return `strconv.Atoi: parsing ${JSON.stringify(key)}: invalid syntax`;
  const n = Number(key);
  if (!Number.isSafeInteger(n) && Math.abs(n) >= 2 ** 63) {
    return `strconv.Atoi: parsing ${JSON.stringify(key)}: value out of range`;
  }
  return n;
}

const INVALID_INDEX = 'invalid index referenced';
const MISSING = 'missing value';

type Lookup = { ok: true; value: JsonValue | undefined } | { ok: false; error: string };

/** partialDoc.get / partialArray.get: a missing object member is not an error. */
function get(container: Container, key: string): Lookup {
  if (!Array.isArray(container)) return { ok: true, value: getKey(container, key) };
  let index = atoi(key);
  if (typeof index === 'string') return { ok: false, error: index };
  if (index < 0) {
    if (index < -container.length)
      return { ok: false, error: `Unable to access invalid index: ${index}: ${INVALID_INDEX}` };
    index += container.length;
  }
  if (index >= container.length)
    return { ok: false, error: `Unable to access invalid index: ${index}: ${INVALID_INDEX}` };
  return { ok: true, value: container[index] };
}

/** partialDoc.add / partialArray.add: `-` appends, an index inserts before it. */
function add(container: Container, key: string, value: JsonValue): string | undefined {
  if (!Array.isArray(container)) {
    setKey(container, key, value);
    return undefined;
  }
  if (key === '-') {
    container.push(value);
    return undefined;
  }
  let index = atoi(key);
  if (typeof index === 'string') return `value was not a proper array index: '${key}': ${index}`;
  const size = container.length + 1;
  if (index >= size) return `Unable to access invalid index: ${index}: ${INVALID_INDEX}`;
  if (index < 0) {
    if (index < -size) return `Unable to access invalid index: ${index}: ${INVALID_INDEX}`;
    index += size;
  }
  container.splice(index, 0, value);
  return undefined;
}

/** partialDoc.set / partialArray.set (replace): the index was checked by a get before. */
function set(container: Container, key: string, value: JsonValue): string | undefined {
  if (!Array.isArray(container)) {
    setKey(container, key, value);
    return undefined;
  }
  let index = atoi(key);
  if (typeof index === 'string') return index;
  if (index < 0) {
    if (index < -container.length)
      return `Unable to access invalid index: ${index}: ${INVALID_INDEX}`;
    index += container.length;
  }
  container[index] = value;
  return undefined;
}

function remove(container: Container, key: string): string | undefined {
  if (!Array.isArray(container)) {
    if (!hasKey(container, key)) return `Unable to remove nonexistent key: ${key}: ${MISSING}`;
    deleteKey(container, key);
    return undefined;
  }
  let index = atoi(key);
  if (typeof index === 'string') return index;
  if (index >= container.length)
    return `Unable to access invalid index: ${index}: ${INVALID_INDEX}`;
  if (index < 0) {
    if (index < -container.length)
      return `Unable to access invalid index: ${index}: ${INVALID_INDEX}`;
    index += container.length;
  }
  container.splice(index, 1);
  return undefined;
}

/** RFC 6901 unescaping, in one left-to-right pass (`~01` is `~1`, not `/`). */
function unescapeToken(token: string): string {
  return token.replace(/~[01]/g, (m) => (m === '~1' ? '/' : '~'));
}

/**
 * evanphx findObject: the container that holds the pointer's last token, and that token.
 * Like evanphx, a pointer without a leading slash addresses the root (`a/b` means `/b`).
 */
function findObject(
  root: JsonValue,
  path: string,
): { container: Container; key: string } | undefined {
  if (!isContainer(root)) return undefined;
  const tokens = path.split('/');
  if (tokens.length < 2) return undefined;
  let container: Container = root;
  for (const token of tokens.slice(1, -1)) {
    const next = get(container, unescapeToken(token));
    if (!next.ok || next.value === undefined || next.value === null || !isContainer(next.value))
      return undefined;
    container = next.value;
  }
  return { container, key: unescapeToken(tokens[tokens.length - 1] as string) };
}

/** The op's value as inserted: absent means null, and the patch is never aliased. */
function valueOf(operation: JsonPatchOperation): JsonValue {
  return operation.value === undefined ? null : cloneJson(operation.value);
}

function byteSize(value: JsonValue): number {
  return Buffer.byteLength(JSON.stringify(value));
}

/** Runs one operation against the state; returns evanphx's error text on failure. */
function applyOperation(state: PatchState, operation: JsonPatchOperation): string | undefined {
  const kind = typeof operation.op === 'string' ? operation.op : 'unknown';
  const path = typeof operation.path === 'string' ? operation.path : undefined;
  const from = typeof operation.from === 'string' ? operation.from : undefined;
  const missingPath = `operation missing path field: ${MISSING}`;
  const missingFrom = `operation, missing from field: ${MISSING}`;

  switch (kind) {
    case 'add': {
      if (path === undefined) return `add operation failed to decode path: ${MISSING}`;
      const target = findObject(state.root, path);
      if (!target)
        return `add operation does not apply: doc is missing path: "${path}": ${MISSING}`;
      const error = add(target.container, target.key, valueOf(operation));
      return error === undefined ? undefined : `error in add for path: '${path}': ${error}`;
    }
    case 'remove': {
      if (path === undefined) return `remove operation failed to decode path: ${MISSING}`;
      const target = findObject(state.root, path);
      if (!target)
        return `remove operation does not apply: doc is missing path: "${path}": ${MISSING}`;
      const error = remove(target.container, target.key);
      return error === undefined ? undefined : `error in remove for path: '${path}': ${error}`;
    }
    case 'replace': {
      if (path === undefined) return `replace operation failed to decode path: ${missingPath}`;
      if (path === '') {
        if (!isContainer(operation.value)) return 'replace operation value must be object or array';
        state.root = cloneJson(operation.value);
        return undefined;
      }
      const target = findObject(state.root, path);
      if (!target)
        return `replace operation does not apply: doc is missing path: ${path}: ${MISSING}`;
      if (!get(target.container, target.key).ok) {
        return `replace operation does not apply: doc is missing key: ${path}: ${MISSING}`;
      }
      const error = set(target.container, target.key, valueOf(operation));
      return error === undefined ? undefined : `error in remove for path: '${path}': ${error}`;
    }
    case 'move': {
      if (from === undefined) return `move operation failed to decode from: ${missingFrom}`;
      const source = findObject(state.root, from);
      if (!source)
        return `move operation does not apply: doc is missing from path: ${from}: ${MISSING}`;
      const found = get(source.container, source.key);
      if (!found.ok) return `error in move for path: '${source.key}': ${found.error}`;
      const removed = remove(source.container, source.key);
      if (removed !== undefined) return `error in move for path: '${source.key}': ${removed}`;
      if (path === undefined) return `move operation failed to decode path: ${missingPath}`;
      const target = findObject(state.root, path);
      if (!target)
        return `move operation does not apply: doc is missing destination path: ${path}: ${MISSING}`;
      const error = add(target.container, target.key, found.value ?? null);
      return error === undefined ? undefined : `error in move for path: '${path}': ${error}`;
    }
    case 'copy': {
      if (from === undefined) return `copy operation failed to decode from: ${missingFrom}`;
      const source = findObject(state.root, from);
      if (!source)
        return `copy operation does not apply: doc is missing from path: ${from}: ${MISSING}`;
      const found = get(source.container, source.key);
      if (!found.ok) return `error in copy for from: '${from}': ${found.error}`;
      if (path === undefined) return `copy operation failed to decode path: ${MISSING}`;
      const target = findObject(state.root, path);
      if (!target)
        return `copy operation does not apply: doc is missing destination path: ${path}: ${MISSING}`;
      // evanphx copies a missing object member as null and counts nothing for it.
      const copy = found.value === undefined ? null : cloneJson(found.value);
      if (found.value !== undefined) state.copied += byteSize(copy);
      if (state.maxCopyBytes > 0 && state.copied > state.maxCopyBytes) {
        return `Unable to complete the copy, the accumulated size increase of copy is ${state.copied}, exceeding the limit ${state.maxCopyBytes}`;
      }
      const error = add(target.container, target.key, copy);
      return error === undefined ? undefined : `error while adding value during copy: ${error}`;
    }
    case 'test': {
      if (path === undefined) return `test operation failed to decode path: ${missingPath}`;
      if (path === '') {
        return operation.value !== undefined && jsonEqual(state.root, operation.value)
          ? undefined
          : `testing value ${path} failed: test failed`;
      }
      const target = findObject(state.root, path);
      if (!target) return `test operation does not apply: is missing path: ${path}: ${MISSING}`;
      const found = get(target.container, target.key);
      if (!found.ok) return `error in test for path: '${path}': ${found.error}`;
      // evanphx cannot tell a null member from a missing one, nor an absent value from null.
      const actual = found.value ?? null;
      const expected = operation.value ?? null;
      if (actual === null || expected === null) {
        return actual === expected ? undefined : `testing value ${path} failed: test failed`;
      }
      return jsonEqual(actual, expected) ? undefined : `testing value ${path} failed: test failed`;
    }
    default:
      return `Unexpected kind: ${kind}`;
  }
}
