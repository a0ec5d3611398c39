import { isRecord, type JsonForm } from '@listwatch/api';
import type { JSONSchemaProps } from '../types.js';

// The structural schema (apiextensions-apiserver pkg/apiserver/schema/structural.go): the one
// form of a schema that pruning, defaulting, unknown-field detection and the server-side apply
// type converter walk, whether it comes from a CRD's openAPIV3Schema (fromOpenAPI, here) or from
// a built-in type of the schema source (builtin.ts, as kube publishes its types as OpenAPI).
// Properties are a Map: a property may be called `constructor` or `__proto__`.

export type StructuralType = 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';

export interface Structural {
  /** Generic.Type; undefined for int-or-string, preserve-unknown-fields and built-in junctions. */
  type?: StructuralType;
  nullable?: boolean;
  /** Generic.Default: set on a missing field (defaulting/algorithm.go). */
  default?: unknown;
  properties?: ReadonlyMap<string, Structural>;
  /** A schema for every other key, or `true` to keep them. */
  additionalProperties?: Structural | boolean;
  items?: Structural;
  preserveUnknownFields?: boolean;
  embeddedResource?: boolean;
  intOrString?: boolean;
  listType?: 'atomic' | 'set' | 'map';
  listMapKeys?: readonly string[];
  mapType?: 'atomic' | 'granular';
  /** A built-in type's name in the schema source: its SetDefaults_* apply to objects of it. */
  goType?: string;
  /**
   * How a built-in Go type that reads its own JSON appears (metav1.Time, Quantity, RawExtension,
   * JSONSchemaPropsOrArray...): not walked by defaulting, a scalar (or an atomic object) to apply.
   */
  marshals?: Exclude<JsonForm, 'items'>;
}

/** Nesting past this is not walked (encoding/json's maxNestingDepth). */
export const MAX_WALK_DEPTH = 10_000;

const STRUCTURAL_TYPES: ReadonlySet<string> = new Set([
  'object',
  'array',
  'string',
  'integer',
  'number',
  'boolean',
]);

/**
 * NewStructural of a CRD version's openAPIV3Schema, already validated (schema/validation.ts).
 * Junctors (allOf, anyOf, oneOf, not) hold value validations only and are left out, as kube's
 * Structural keeps them apart (ValueValidation) from what the walkers read.
 */
export function fromOpenAPI(schema: JSONSchemaProps, depth = 0): Structural {
  const s: Structural = {};
  if (depth > MAX_WALK_DEPTH) return { preserveUnknownFields: true };
  const type = schema['type'];
  if (typeof type === 'string' && STRUCTURAL_TYPES.has(type)) s.type = type as StructuralType;
  if (schema['nullable'] === true) s.nullable = true;
  if (schema['default'] !== undefined) s.default = schema['default'];
  const properties = schema['properties'];
  if (isRecord(properties)) {
    const map = new Map<string, Structural>();
    for (const [name, prop] of Object.entries(properties))
      if (isRecord(prop)) map.set(name, fromOpenAPI(prop, depth + 1));
    s.properties = map;
  }
  const additional = schema['additionalProperties'];
  if (typeof additional === 'boolean') s.additionalProperties = additional;
  else if (isRecord(additional)) s.additionalProperties = fromOpenAPI(additional, depth + 1);
  const items = schema['items'];
  if (isRecord(items)) s.items = fromOpenAPI(items, depth + 1);
  if (schema['x-kubernetes-preserve-unknown-fields'] === true) s.preserveUnknownFields = true;
  if (schema['x-kubernetes-embedded-resource'] === true) s.embeddedResource = true;
  if (schema['x-kubernetes-int-or-string'] === true) s.intOrString = true;
  const listType = schema['x-kubernetes-list-type'];
  if (listType === 'atomic' || listType === 'set' || listType === 'map') s.listType = listType;
  const keys = schema['x-kubernetes-list-map-keys'];
  if (Array.isArray(keys)) s.listMapKeys = keys.filter((k): k is string => typeof k === 'string');
  const mapType = schema['x-kubernetes-map-type'];
  if (mapType === 'atomic' || mapType === 'granular') s.mapType = mapType;
  return s;
}

/** Whether a schema sets a default anywhere (reads of stored objects then need defaulting). */
export function structuralHasDefaults(s: Structural, seen = new Set<Structural>()): boolean {
  if (seen.has(s)) return false;
  seen.add(s);
  if (s.default !== undefined) return true;
  if (s.properties)
    for (const p of s.properties.values()) if (structuralHasDefaults(p, seen)) return true;
  if (
    typeof s.additionalProperties === 'object' &&
    structuralHasDefaults(s.additionalProperties, seen)
  )
    return true;
  return s.items !== undefined && structuralHasDefaults(s.items, seen);
}
