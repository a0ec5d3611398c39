import type { SchemaGvk } from '@listwatch/api';
import { customResourceRoot, structuralForKind } from '../apiextensions/schema/builtin.js';
import { fromOpenAPI, type Structural } from '../apiextensions/schema/structural.js';
import type { JSONSchemaProps } from '../apiextensions/types.js';
import type { JsonValue } from '../patch/json-value.js';

// The server-side apply schema of a kind (structured-merge-diff's schema.Atom), converted from the
// kind's structural schema (apiextensions/schema: built-in types from the schema source, custom
// resources from their CRD) as k8s.io/kube-openapi's schemaconv (smd.go) converts OpenAPI.
// Kinds without a schema are deduced from the value.

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

const atoms = new WeakMap<Structural, Atom>();

/**
 * The apply schema of a structural schema, as k8s.io/kube-openapi schemaconv converts OpenAPI:
 * lists are atomic unless x-kubernetes-list-type says set or map (keyed by
 * x-kubernetes-list-map-keys), objects granular unless x-kubernetes-map-type is atomic, and what
 * x-kubernetes-preserve-unknown-fields keeps is deduced from the value. Built-in and custom
 * kinds alike (apimachinery managedfields typeconverter.go builds from the published OpenAPI).
 */
export function atomFromStructural(s: Structural): Atom {
  const known = atoms.get(s);
  if (known) return known;
  if (s.marshals) return s.marshals === 'object' ? ATOMIC_OBJECT : SCALAR;
  if (s.intOrString) return SCALAR;
  if (s.type === 'array') {
    const atom: Atom = {
      kind: 'list',
      atomic: s.listType !== 'set' && s.listType !== 'map',
      keys: s.listType === 'map' ? (s.listMapKeys ?? []) : [],
      element: s.items ? atomFromStructural(s.items) : DEDUCED,
    };
    atoms.set(s, atom);
    return atom;
  }
  const extra = s.additionalProperties;
  if (s.type === 'object' || s.properties || extra) {
    const atomic = s.mapType === 'atomic';
    const element =
      s.goType !== undefined
        ? DEDUCED
        : typeof extra === 'object'
          ? atomFromStructural(extra)
          : extra === true || s.preserveUnknownFields
            ? DEDUCED
            : SCALAR;
    if (!s.properties) {
      return s.preserveUnknownFields && !extra ? DEDUCED : { kind: 'map', atomic, element };
    }
    // A struct's atom is cached before its fields are converted: types may be recursive.
    const fields = new Map<string, Atom>();
    const defaults = new Map<string, JsonValue>();
    const atom: Atom = { kind: 'map', atomic, fields, defaults, element };
    atoms.set(s, atom);
    for (const [name, property] of s.properties) {
      fields.set(name, atomFromStructural(property));
      if (property.default !== undefined) defaults.set(name, property.default as JsonValue);
    }
    return atom;
  }
  if (s.preserveUnknownFields || s.type === undefined) return DEDUCED;
  return SCALAR;
}

/** The schema of a kind, or DEDUCED for one the source does not have. */
export function atomForKind(gvk: SchemaGvk): Atom {
  const structural = structuralForKind(gvk);
  return structural ? atomFromStructural(structural) : DEDUCED;
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

/**
 * The apply schema of a CRD version's openAPIV3Schema (customresource_handler.go builds the
 * version's TypeConverter from its structural schema, rooted as its published OpenAPI is).
 */
export function atomForCustomResource(schema: JSONSchemaProps): Atom {
  return atomFromStructural(customResourceRoot(fromOpenAPI(schema)));
}
