import { applyDefaults, defaultMissingFields } from './defaulting.js';
import {
  fieldSchema,
  forEachObjectItem,
  isClosed,
  isEmbeddedMeta,
  nothingToWalk,
  pruneAt,
  pruneField,
  type Segments,
} from './pruning.js';
import { MAX_WALK_DEPTH, type Structural } from './structural.js';

// A custom resource's written body in one walk over its structural schema, as a built-in body
// is in the typed decode's one pass (decode-visitor.ts): kube prunes it
// (schema/pruning/algorithm.go) and then defaults it (schema/defaulting/algorithm.go); here each
// object is pruned, its fields walked, then its missing fields defaulted. Defaults are never
// pruned (a CRD's defaults must be pruned already, as validation.go requires, and kube prunes
// before it defaults), so what a default adds is only defaulted further. Each rule stays in its
// own file; this is only the order of the walk.

/**
 * Drops the fields of `value` that `schema` does not specify and sets its defaults, in place, in
 * one walk; returns the dropped fields' paths (document order, as prune gives them).
 */
export function pruneAndDefault(value: unknown, schema: Structural): string[] {
  const pruned: string[] = [];
  walk(value, schema, [], pruned, 0);
  return pruned;
}

function walk(value: unknown, s: Structural, at: Segments, pruned: string[], depth: number): void {
  if (depth > MAX_WALK_DEPTH || value === null || typeof value !== 'object') return;
  // A built-in type that reads its own JSON has no defaults: only pruning walks it.
  if (s.marshals) return pruneAt(value, s, at, pruned, depth);
  if (Array.isArray(value)) {
    const items = s.items;
    if (items) forEachObjectItem(value, at, (item) => walk(item, items, at, pruned, depth + 1));
    return;
  }
  if (nothingToWalk(s)) return;
  const object = value as Record<string, unknown>;
  const closed = isClosed(s);
  for (const key of Object.keys(object)) {
    const child = fieldSchema(s, key);
    if (isEmbeddedMeta(s, key)) {
      if (child) applyDefaults(object[key], child, undefined, depth + 1);
    } else if (!child) {
      if (closed) pruneField(object, key, at, pruned);
    } else {
      const field = object[key];
      if (field === null || typeof field !== 'object') continue;
      at.push(key);
      walk(field, child, at, pruned, depth + 1);
      at.pop();
    }
  }
  const added: string[] = [];
  defaultMissingFields(object, s, added);
  for (const key of added) applyDefaults(object[key], fieldSchema(s, key)!, undefined, depth + 1);
}
