// The walkers as they were before the one structural form (apiextensions/schema), kept for
// the properties of walkers.test.ts that the single walkers give the same results. Test-only.
import {
  isRecord,
  jsonFields,
  jsonShape,
  schemaType,
  type JsonShape,
  type SourceField,
} from '@listwatch/api';
import { coreV1Defaults } from '../../registry/core/v1-defaults.js';
import type { Atom } from '../../fieldmanager/index.js';
import type { JsonValue } from '../../patch/json-value.js';
import type { JSONSchemaProps } from '../types.js';

const MAX_DEPTH = 10_000;

/** Drops unknown fields from `object` in place; returns their paths (`spec.foo`). */
export function crdPruneBefore(object: Record<string, unknown>, schema: JSONSchemaProps): string[] {
  const pruned: string[] = [];
  const properties = isRecord(schema['properties']) ? schema['properties'] : {};
  for (const key of Object.keys(object)) {
    if (key === 'apiVersion' || key === 'kind' || key === 'metadata') continue;
    const child = properties[key];
    if (isRecord(child)) prune(object[key], child, key, pruned, 1);
    else if (schema['x-kubernetes-preserve-unknown-fields'] !== true) {
      pruned.push(key);
      delete object[key];
    }
  }
  return pruned;
}

function prune(
  value: unknown,
  s: JSONSchemaProps,
  path: string,
  pruned: string[],
  depth: number,
): void {
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    const items = s['items'];
    if (isRecord(items))
      value.forEach((v, i) => prune(v, items, `${path}[${i}]`, pruned, depth + 1));
    return;
  }
  const object = value as Record<string, unknown>;
  const properties = isRecord(s['properties']) ? s['properties'] : undefined;
  const additional = s['additionalProperties'];
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  for (const key of Object.keys(object)) {
    const at = `${path}.${key}`;
    if (embedded && (key === 'apiVersion' || key === 'kind' || key === 'metadata')) continue;
    const child = properties?.[key];
    if (isRecord(child)) prune(object[key], child, at, pruned, depth + 1);
    else if (isRecord(additional)) prune(object[key], additional, at, pruned, depth + 1);
    else if (additional === true || preserve) continue;
    else if (properties !== undefined || s['type'] === 'object' || embedded) {
      pruned.push(at);
      delete object[key];
    }
  }
}

/** Sets the schema's defaults on `object` in place (structural defaulting). */
export function crdDefaultBefore(object: unknown, schema: JSONSchemaProps): void {
  defaults(object, schema, 0);
}

function clone<T>(value: T): T {
  return structuredClone(value);
}

function defaults(value: unknown, s: JSONSchemaProps, depth: number): void {
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    const items = s['items'];
    if (isRecord(items)) for (const v of value) defaults(v, items, depth + 1);
    return;
  }
  const object = value as Record<string, unknown>;
  const properties = isRecord(s['properties']) ? s['properties'] : {};
  for (const [key, child] of Object.entries(properties)) {
    if (!isRecord(child)) continue;
    const current = object[key];
    if (
      child['default'] !== undefined &&
      (current === undefined || (current === null && child['nullable'] !== true))
    ) {
      object[key] = clone(child['default']);
    }
    if (object[key] !== undefined) defaults(object[key], child, depth + 1);
  }
  const additional = s['additionalProperties'];
  if (isRecord(additional)) {
    for (const key of Object.keys(object))
      if (!Object.hasOwn(properties, key)) defaults(object[key], additional, depth + 1);
  }
}

const OBJECT_META = jsonShape('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');

/**
 * Walks `value` against `shape`, reporting each unknown field by its path (`spec.foo`,
 * `spec.containers[0].foo`, as sigs.k8s.io/json words it) and deleting it: kube decodes into Go
 * structs, so an unknown field is never stored, whatever the validation level.
 */
/** The path of `key` inside `path` (a function, not a closure per call: prune runs per field). */
function at(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

function builtinPrune(value: unknown, shape: JsonShape, path: string, unknown: string[]): void {
  if (shape.kind === 'list') {
    if (Array.isArray(value))
      value.forEach((v, i) => builtinPrune(v, shape.items, `${path}[${i}]`, unknown));
  } else if (shape.kind === 'map') {
    if (isRecord(value))
      for (const key of Object.keys(value))
        builtinPrune(value[key], shape.values, at(path, key), unknown);
  } else if (shape.kind === 'struct' && isRecord(value)) {
    const fields = jsonFields(shape.name);
    for (const key of Object.keys(value)) {
      const field = fields.get(key);
      if (field) builtinPrune(value[key], jsonShape(field.type), at(path, key), unknown);
      else {
        unknown.push(at(path, key));
        delete value[key];
      }
    }
  } else if (shape.kind === 'special' && shape.form.startsWith('schema-or-')) {
    // JSONSchemaPropsOrBool/OrArray/OrStringArray: a schema is a struct like any other.
    const schema = jsonShape(shape.name.replace(/Or\w+$/, ''));
    if (isRecord(value)) builtinPrune(value, schema, path, unknown);
    else if (Array.isArray(value) && shape.form === 'schema-or-array')
      value.forEach((v, i) => builtinPrune(v, schema, `${path}[${i}]`, unknown));
  }
  // Scalars and other self-marshalling types (Quantity, RawExtension...): nothing below.
}

/** A kind the source lacks (a custom resource): TypeMeta, ObjectMeta, and any spec and status. */
export function genericPruneBefore(object: Record<string, unknown>, unknown: string[]): void {
  for (const key of Object.keys(object)) {
    if (key === 'metadata') builtinPrune(object[key], OBJECT_META, key, unknown);
    else if (!['apiVersion', 'kind', 'spec', 'status'].includes(key)) {
      unknown.push(key);
      delete object[key];
    }
  }
}

export function builtinPruneBefore(typeName: string, object: Record<string, unknown>): string[] {
  const unknown: string[] = [];
  builtinPrune(object, jsonShape(typeName), '', unknown);
  return unknown;
}
export function objectMetaPruneBefore(object: Record<string, unknown>): string[] {
  const unknown: string[] = [];
  builtinPrune(object['metadata'], OBJECT_META, 'metadata', unknown);
  return unknown;
}

const defaulters: ReadonlyMap<string, (o: Record<string, unknown>) => void> = new Map(
  Object.entries(coreV1Defaults),
);

/**
 * A `+default` literal applies to a missing field. One equal to Go's zero value changes what is
 * written only for a pointer field, which the source does not tell apart: of those only
 * booleans (`*bool` with `+default=false`) are applied.
 */
function markerDefault(value: string | number | boolean): boolean {
  return value !== '' && value !== 0;
}

function defaultWalk(value: unknown, shape: JsonShape): void {
  if (shape.kind === 'list') {
    if (Array.isArray(value)) for (const item of value) defaultWalk(item, shape.items);
  } else if (shape.kind === 'map') {
    if (isRecord(value)) for (const item of Object.values(value)) defaultWalk(item, shape.values);
  } else if (shape.kind === 'struct' && isRecord(value)) {
    defaulters.get(shape.name)?.(value);
    for (const field of jsonFields(shape.name).values()) {
      if (field.default !== undefined && value[field.name] === undefined) {
        if (markerDefault(field.default)) value[field.name] = field.default;
      }
      const child = value[field.name];
      if (typeof child === 'object' && child !== null) defaultWalk(child, jsonShape(field.type));
    }
  }
}

export function builtinDefaultBefore(typeName: string, object: Record<string, unknown>): void {
  defaultWalk(object, { kind: 'struct', name: typeName });
}

const DEDUCED: Atom = Object.freeze({ kind: 'deduced' });
const SCALAR: Atom = Object.freeze({ kind: 'scalar' });
const ATOMIC_OBJECT: Atom = Object.freeze({
  kind: 'map',
  atomic: true,
  element: DEDUCED,
});

const structs = new Map<string, Atom>();

function structAtom(name: string): Atom {
  const known = structs.get(name);
  if (known) return known;
  const fields = new Map<string, Atom>();
  const defaults = new Map<string, JsonValue>();
  const atom: Atom = {
    kind: 'map',
    atomic: schemaType(name)?.structType === 'atomic',
    fields,
    defaults,
    element: DEDUCED,
  };
  structs.set(name, atom);
  for (const [key, field] of jsonFields(name)) {
    fields.set(key, fieldAtom(field));
    if (field.default !== undefined) defaults.set(key, field.default);
  }
  return atom;
}

function shapeAtom(shape: JsonShape, field?: SourceField): Atom {
  switch (shape.kind) {
    case 'scalar':
      return SCALAR;
    case 'special':
      return shape.form === 'object' ? ATOMIC_OBJECT : SCALAR;
    case 'struct':
      return structAtom(shape.name);
    case 'map':
      return {
        kind: 'map',
        atomic: field?.mapType === 'atomic',
        element: shapeAtom(shape.values),
      };
    case 'list': {
      const element = shapeAtom(shape.items);
      const { atomic, keys } = listSemantics(field);
      return { kind: 'list', atomic, keys, element };
    }
  }
}

/** kube-openapi schemaconv getListElementRelationship. */
function listSemantics(field?: SourceField): { atomic: boolean; keys: readonly string[] } {
  if (field?.listType === 'map') return { atomic: false, keys: field.listMapKeys ?? [] };
  if (field?.listType === 'set') return { atomic: false, keys: [] };
  if (field?.listType === 'atomic') return { atomic: true, keys: [] };
  if (field?.patchStrategy?.split(',').includes('merge')) {
    return { atomic: false, keys: field.patchMergeKey ? [field.patchMergeKey] : [] };
  }
  return { atomic: true, keys: [] };
}

const fieldAtoms = new WeakMap<SourceField, Atom>();

function fieldAtom(field: SourceField): Atom {
  let atom = fieldAtoms.get(field);
  if (!atom) {
    atom = shapeAtom(jsonShape(field.type), field);
    fieldAtoms.set(field, atom);
  }
  return atom;
}

export interface OpenApiSchema {
  readonly type?: string;
  readonly properties?: Readonly<Record<string, OpenApiSchema>>;
  readonly additionalProperties?: OpenApiSchema | boolean;
  readonly items?: OpenApiSchema;
  readonly default?: unknown;
  readonly 'x-kubernetes-list-type'?: string;
  readonly 'x-kubernetes-list-map-keys'?: readonly string[];
  readonly 'x-kubernetes-map-type'?: string;
  readonly 'x-kubernetes-preserve-unknown-fields'?: boolean;
  readonly 'x-kubernetes-int-or-string'?: boolean;
}

/**
 * The apply schema of a custom resource's structural schema, as k8s.io/kube-openapi schemaconv
 * converts it: lists are atomic unless `x-kubernetes-list-type` says set or map (with
 * `x-kubernetes-list-map-keys`), objects granular unless `x-kubernetes-map-type: atomic`, and
 * what `x-kubernetes-preserve-unknown-fields` keeps is deduced from the value.
 */
export function atomFromOpenApiBefore(schema: OpenApiSchema): Atom {
  if (schema['x-kubernetes-int-or-string']) return SCALAR;
  if (schema.type === 'array') {
    const listType = schema['x-kubernetes-list-type'];
    return {
      kind: 'list',
      atomic: listType !== 'set' && listType !== 'map',
      keys: listType === 'map' ? (schema['x-kubernetes-list-map-keys'] ?? []) : [],
      element: schema.items ? atomFromOpenApiBefore(schema.items) : DEDUCED,
    };
  }
  if (schema.type === 'object' || schema.properties || schema.additionalProperties) {
    const atomic = schema['x-kubernetes-map-type'] === 'atomic';
    const extra = schema.additionalProperties;
    const element =
      typeof extra === 'object'
        ? atomFromOpenApiBefore(extra)
        : extra === true || schema['x-kubernetes-preserve-unknown-fields']
          ? DEDUCED
          : SCALAR;
    if (!schema.properties) {
      return schema['x-kubernetes-preserve-unknown-fields'] && !extra
        ? DEDUCED
        : { kind: 'map', atomic, element };
    }
    const fields = new Map<string, Atom>();
    const defaults = new Map<string, JsonValue>();
    for (const [name, property] of Object.entries(schema.properties)) {
      fields.set(name, atomFromOpenApiBefore(property));
      if (property.default !== undefined) defaults.set(name, property.default as JsonValue);
    }
    return { kind: 'map', atomic, fields, defaults, element };
  }
  if (schema['x-kubernetes-preserve-unknown-fields'] || schema.type === undefined) return DEDUCED;
  return SCALAR;
}

/**
 * The apply schema of a custom resource: its structural schema as the CRD's published OpenAPI
 * has it (apiextensions-apiserver pkg/controller/openapi/builder: apiVersion and kind strings,
 * metadata the ObjectMeta of the schema source, so labels merge per key and finalizers as a set),
 * converted by atomFromOpenApiBefore (customresource_handler.go builds its TypeConverter from it).
 */
export function atomForCustomResourceBefore(schema: OpenApiSchema): Atom {
  const converted = atomFromOpenApiBefore({ ...schema, type: 'object' });
  const root: Extract<Atom, { kind: 'map' }> =
    converted.kind === 'map' ? converted : { kind: 'map', atomic: false, element: DEDUCED };
  const fields = new Map(root.fields ?? []);
  fields.set('apiVersion', SCALAR);
  fields.set('kind', SCALAR);
  fields.set('metadata', structAtom('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'));
  return { ...root, fields };
}

export function atomForTypeBefore(name: string): Atom {
  return structAtom(name);
}
