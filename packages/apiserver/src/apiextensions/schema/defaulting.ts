import { isRecord } from '@listwatch/api';
import {
  fromOpenAPI,
  MAX_WALK_DEPTH,
  structuralHasDefaults,
  type Structural,
} from './structural.js';

// Defaulting (apiextensions-apiserver pkg/apiserver/schema/defaulting/algorithm.go): a missing
// field (or a null one its schema does not allow) gets its schema's default. Built-in types add
// their SetDefaults_* functions (pkg/apis/*/v1 zz_generated.defaults.go: the type's function,
// then its fields' `+default` markers, then what it holds), given here by schema-source type.

/** A SetDefaults_* function of one type, given a JSON object of that type. */
export type Defaulter = (object: Record<string, unknown>) => void;

/** SetDefaults_* functions by schema-source type name (structural.ts `goType`). */
export type Defaulters = ReadonlyMap<string, Defaulter>;

const NONE: Defaulters = new Map();

/** Sets the defaults of `schema` (and `defaulters`) on `value`, in place, `depth` levels down. */
export function applyDefaults(
  value: unknown,
  schema: Structural,
  defaulters = NONE,
  depth = 0,
): void {
  walk(value, schema, defaulters, depth);
}

/**
 * A built-in field's `+default` applies to a missing field; one equal to Go's zero value changes
 * what is written only for a pointer field, which the schema source does not tell apart: of
 * those only booleans (`*bool` with `+default=false`) are applied.
 */
function zeroMarker(value: unknown): boolean {
  return value === '' || value === 0;
}

function copy(value: unknown): unknown {
  return value !== null && typeof value === 'object' ? structuredClone(value) : value;
}

function walk(value: unknown, s: Structural, defaulters: Defaulters, depth: number): void {
  // What a built-in type reads itself (Time, RawExtension, JSONSchemaPropsOrArray) has no defaults.
  if (depth > MAX_WALK_DEPTH || value === null || typeof value !== 'object' || s.marshals) return;
  if (Array.isArray(value)) {
    if (s.items) for (const item of value) walk(item, s.items, defaulters, depth + 1);
    return;
  }
  defaultFields(value as Record<string, unknown>, s, defaulters, depth);
}

/** One object's defaults, then those of what it holds. */
export function defaultFields(
  object: Record<string, unknown>,
  s: Structural,
  defaulters: Defaulters,
  depth: number,
): void {
  if (s.goType !== undefined) defaulters.get(s.goType)?.(object);
  const { properties, additionalProperties: additional } = s;
  const builtin = s.goType !== undefined;
  if (properties) {
    for (const [key, child] of properties) {
      let current = object[key];
      if (
        child.default !== undefined &&
        !(builtin && zeroMarker(child.default)) &&
        (current === undefined || (current === null && child.nullable !== true))
      ) {
        current = object[key] = copy(child.default);
      }
      if (current !== null && typeof current === 'object')
        walk(current, child, defaulters, depth + 1);
    }
  }
  if (typeof additional === 'object') {
    for (const key of Object.keys(object)) {
      if (properties?.has(key)) continue;
      walk(object[key], additional, defaulters, depth + 1);
    }
  }
}

/** Whether a CRD version's openAPIV3Schema sets a default anywhere (reads then need defaulting). */
export function hasDefaults(openAPIV3Schema: unknown): boolean {
  return isRecord(openAPIV3Schema) && structuralHasDefaults(fromOpenAPI(openAPIV3Schema));
}

const defaulted = new WeakMap<Structural, readonly (readonly [string, Structural])[]>();

/** The properties of `s` that have a default (walked on every decoded object: kept once). */
function propertiesWithDefaults(s: Structural): readonly (readonly [string, Structural])[] {
  let list = defaulted.get(s);
  if (!list) {
    list = [...(s.properties ?? [])].filter(([, child]) => child.default !== undefined);
    defaulted.set(s, list);
  }
  return list;
}

/**
 * One decoded object's defaults, when what it holds is decoded and defaulted already (the write
 * path's one pass, typed decode and pruning included): its SetDefaults_* and the defaults of its
 * missing fields, then the defaults of what those and `filled` (the decoder's Go zero values)
 * add. A SetDefaults_* sees its children defaulted; none of kube's reads a child's defaults.
 */
export function defaultDecoded(
  object: Record<string, unknown>,
  s: Structural,
  defaulters: Defaulters,
  filled: readonly string[],
): void {
  const hook = s.goType !== undefined ? defaulters.get(s.goType) : undefined;
  const count = hook ? Object.keys(object).length : 0;
  hook?.(object);
  // Struct fields are never integer-like, so what the hook adds comes last in key order.
  const added: string[] = hook ? Object.keys(object).slice(count) : [];
  defaultMissingFields(object, s, added);
  for (const key of [...filled, ...added]) {
    const child =
      s.properties?.get(key) ??
      (typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined);
    if (child) walk(object[key], child, defaulters, 0);
  }
}

/**
 * Sets the defaults of the properties of `s` missing from `object` (or null where not nullable),
 * not what they hold; pushes their keys onto `added`.
 */
export function defaultMissingFields(
  object: Record<string, unknown>,
  s: Structural,
  added: string[],
): void {
  const builtin = s.goType !== undefined;
  for (const [key, child] of propertiesWithDefaults(s)) {
    const current = object[key];
    if (
      !(builtin && zeroMarker(child.default)) &&
      (current === undefined || (current === null && child.nullable !== true))
    ) {
      object[key] = copy(child.default);
      added.push(key);
    }
  }
}
