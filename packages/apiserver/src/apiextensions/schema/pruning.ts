import { MAX_WALK_DEPTH, type Structural } from './structural.js';

// Pruning (apiextensions-apiserver pkg/apiserver/schema/pruning/algorithm.go): a field the
// structural schema does not specify is dropped, unless x-kubernetes-preserve-unknown-fields or
// additionalProperties keeps it. The same walk is the unknown-field detection of fieldValidation
// (KEP-2885) for built-in kinds, whose structs are closed as their Go types are; the paths it
// returns are those strict decoding reports (`spec.containers[0].foo`).

/** The path of the field being walked, as segments: a string is only built for a pruned one. */
export type Segments = (string | number)[];

function pathOf(segments: readonly (string | number)[], key: string): string {
  let path = '';
  for (const s of segments)
    path = typeof s === 'number' ? `${path}[${s}]` : path ? `${path}.${s}` : s;
  return path ? `${path}.${key}` : key;
}

/** Drops the fields of `value` that `schema` does not specify, in place; returns their paths. */
export function prune(value: unknown, schema: Structural): string[] {
  const pruned: string[] = [];
  pruneAt(value, schema, [], pruned, 0);
  return pruned;
}

/** Whether an object of `s` drops the fields `s` does not specify. */
export function isClosed(s: Structural): boolean {
  return (
    !s.preserveUnknownFields &&
    s.additionalProperties !== true &&
    (s.properties !== undefined || s.type === 'object' || s.embeddedResource === true)
  );
}

/** Whether an object of `s` has nothing to walk: open, and no schema for any field. */
export function nothingToWalk(s: Structural): boolean {
  return !isClosed(s) && s.properties === undefined && typeof s.additionalProperties !== 'object';
}

/** The schema of an object's field `key`, if `s` gives one. */
export function fieldSchema(s: Structural, key: string): Structural | undefined {
  return (
    s.properties?.get(key) ??
    (typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined)
  );
}

/** An embedded resource's type and object meta are objectmeta's, not the schema's to prune. */
export function isEmbeddedMeta(s: Structural, key: string): boolean {
  return (
    s.embeddedResource === true && (key === 'apiVersion' || key === 'kind' || key === 'metadata')
  );
}

/** Visits each item of `list` that is an object or a list, its index pushed on `at` meanwhile. */
export function forEachObjectItem(
  list: readonly unknown[],
  at: Segments,
  visit: (item: object) => void,
): void {
  for (let i = 0; i < list.length; i++) {
    const item: unknown = list[i];
    if (item === null || typeof item !== 'object') continue;
    at.push(i);
    visit(item);
    at.pop();
  }
}

/** prune below the path `at`, `depth` levels down. */
export function pruneAt(
  value: unknown,
  s: Structural,
  at: Segments,
  pruned: string[],
  depth: number,
): void {
  if (depth > MAX_WALK_DEPTH || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    const items = s.items;
    if (items) forEachObjectItem(value, at, (item) => pruneAt(item, items, at, pruned, depth + 1));
    return;
  }
  pruneFields(value as Record<string, unknown>, s, at, pruned, depth);
}

/** One object: each field walked by its schema, or dropped when it has none, in document order. */
function pruneFields(
  object: Record<string, unknown>,
  s: Structural,
  at: Segments,
  pruned: string[],
  depth: number,
): void {
  if (nothingToWalk(s)) return;
  const closed = isClosed(s);
  for (const key of Object.keys(object)) {
    if (isEmbeddedMeta(s, key)) continue;
    const child = fieldSchema(s, key);
    if (child) {
      const value = object[key];
      if (value !== null && typeof value === 'object') {
        at.push(key);
        pruneAt(value, child, at, pruned, depth + 1);
        at.pop();
      }
    } else if (closed) pruneField(object, key, at, pruned);
  }
}

/**
 * Drops one field its schema does not specify, recording its path below `at` (also the typed
 * decode's, on writes: a built-in struct is closed, so what its Go type lacks is unknown).
 */
export function pruneField(
  object: Record<string, unknown>,
  key: string,
  at: readonly (string | number)[],
  pruned: string[],
): void {
  pruned.push(pathOf(at, key));
  delete object[key];
}
