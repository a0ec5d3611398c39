import {
  jsonFields,
  jsonShape,
  schemaFor,
  schemaType,
  type JsonShape,
  type SchemaGvk,
  type SourceField,
} from '@listwatch/api';
import type { JsonValue } from '../patch/json-value.js';

// The server-side apply schema of a kind (structured-merge-diff's schema.Atom), derived from the
// one schema source of @listwatch/api as k8s.io/kube-openapi's schemaconv (smd.go) converts
// OpenAPI: `+listType`/`+listMapKey` decide a list's semantics; without them a list with
// `+patchStrategy=merge` is associative, keyed by its `+patchMergeKey` (a set when it has none),
// and any other list is atomic. Maps and structs are granular unless `+mapType`/`+structType`
// say atomic. Kinds without a schema (custom resources without one) are deduced from the value.

export type Atom =
  | { readonly kind: 'scalar' }
  | {
      readonly kind: 'list';
      readonly atomic: boolean;
      /** The keys of an associative list; none for a set of scalars. */
      readonly keys: readonly string[];
      readonly element: Atom;
    }
  | {
      readonly kind: 'map';
      readonly atomic: boolean;
      /** A struct's fields; a map's values are `element`. */
      readonly fields?: ReadonlyMap<string, Atom>;
      /** `+default` literals of a struct's fields: what a list key an item omits stands for. */
      readonly defaults?: ReadonlyMap<string, JsonValue>;
      readonly element: Atom;
    }
  /** Untyped: maps are granular, lists atomic (typed.DeducedParseableType). */
  | { readonly kind: 'deduced' };

export const DEDUCED: Atom = Object.freeze({ kind: 'deduced' });
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

/** The schema of a kind, or DEDUCED for one the source does not have. */
export function atomForKind(gvk: SchemaGvk): Atom {
  const kind = schemaFor(gvk);
  return kind ? structAtom(kind.name) : DEDUCED;
}

/** The atom of a struct field or map value below `atom`. */
export function fieldOf(atom: Atom, name: string): Atom {
  if (atom.kind !== 'map') return DEDUCED;
  return atom.fields?.get(name) ?? (atom.fields ? DEDUCED : atom.element);
}

/** Whether `name` is a named field of a struct (FindField). */
export function isNamedField(atom: Atom, name: string): boolean {
  return atom.kind === 'map' && atom.fields !== undefined && atom.fields.has(name);
}

/**
 * The default of a key field an item omits (getAssociativeKeyDefault): ports default their
 * protocol to TCP, so `{containerPort: 80}` is the item `k:{"containerPort":80,"protocol":"TCP"}`.
 */
export function keyDefault(list: Atom, key: string): JsonValue | undefined {
  if (list.kind !== 'list' || list.element.kind !== 'map') return undefined;
  return list.element.defaults?.get(key);
}

/** The parts of an OpenAPI v3 / CRD structural schema (JSONSchemaProps) the merge reads. */
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
export function atomFromOpenApi(schema: OpenApiSchema): Atom {
  if (schema['x-kubernetes-int-or-string']) return SCALAR;
  if (schema.type === 'array') {
    const listType = schema['x-kubernetes-list-type'];
    return {
      kind: 'list',
      atomic: listType !== 'set' && listType !== 'map',
      keys: listType === 'map' ? (schema['x-kubernetes-list-map-keys'] ?? []) : [],
      element: schema.items ? atomFromOpenApi(schema.items) : DEDUCED,
    };
  }
  if (schema.type === 'object' || schema.properties || schema.additionalProperties) {
    const atomic = schema['x-kubernetes-map-type'] === 'atomic';
    const extra = schema.additionalProperties;
    const element =
      typeof extra === 'object'
        ? atomFromOpenApi(extra)
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
      fields.set(name, atomFromOpenApi(property));
      if (property.default !== undefined) defaults.set(name, property.default as JsonValue);
    }
    return { kind: 'map', atomic, fields, defaults, element };
  }
  if (schema['x-kubernetes-preserve-unknown-fields'] || schema.type === undefined) return DEDUCED;
  return SCALAR;
}

const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

/**
 * The apply schema of a custom resource: its structural schema as the CRD's published OpenAPI
 * has it (apiextensions-apiserver pkg/controller/openapi/builder: apiVersion and kind strings,
 * metadata the ObjectMeta of the schema source, so labels merge per key and finalizers as a set),
 * converted by atomFromOpenApi (customresource_handler.go builds its TypeConverter from it).
 */
export function atomForCustomResource(schema: OpenApiSchema): Atom {
  const converted = atomFromOpenApi({ ...schema, type: 'object' });
  const root: Extract<Atom, { kind: 'map' }> =
    converted.kind === 'map' ? converted : { kind: 'map', atomic: false, element: DEDUCED };
  const fields = new Map(root.fields ?? []);
  fields.set('apiVersion', SCALAR);
  fields.set('kind', SCALAR);
  fields.set('metadata', structAtom(OBJECT_META));
  return { ...root, fields };
}
