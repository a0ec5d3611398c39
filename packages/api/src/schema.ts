import { schemaSource } from './generated/schemas.js';
import {
  isProtoScalar,
  type JsonForm,
  type ProtoScalar,
  type SourceField,
  type SourceKind,
  type SourceType,
} from './schema-types.js';

// Lookups over the schema source (generated/schemas.ts, from upstream generated.proto): the
// kinds we serve, their fields as JSON has them, and the markers strategic merge patch and
// server-side apply read. The apiserver builds its OpenAPI documents, unknown-field detection
// and strategic merge schemas from these.

/** The source itself: for consumers that walk every type (protobuf, documentation). */
export { schemaSource };

const TYPE_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.TypeMeta';

/** A field's type as JSON has it: what validation, OpenAPI and patching walk. */
export type JsonShape =
  | { readonly kind: 'scalar'; readonly scalar: ProtoScalar }
  /** A type that marshals itself (Time, Quantity, IntOrString, RawExtension...). */
  | { readonly kind: 'special'; readonly form: Exclude<JsonForm, 'items'>; readonly name: string }
  | { readonly kind: 'struct'; readonly name: string }
  | { readonly kind: 'list'; readonly items: JsonShape }
  | { readonly kind: 'map'; readonly values: JsonShape };

/** A group, version and kind (`''` is the core group). */
export interface SchemaGvk {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/** A kind of the source: its GVK and its type's name and definition. */
export interface KindSchema {
  readonly gvk: SchemaGvk;
  /** The OpenAPI definition name: `io.k8s.api.core.v1.Pod`. */
  readonly name: string;
  readonly type: SourceType;
}

/** The types of the source, by OpenAPI definition name. */
export function schemaType(name: string): SourceType | undefined {
  return Object.hasOwn(schemaSource.types, name) ? schemaSource.types[name] : undefined;
}

const gvkKey = (gvk: SchemaGvk) => `${gvk.group}/${gvk.version}/${gvk.kind}`;
const kindsByGvk = new Map<string, SourceKind>(schemaSource.kinds.map((k) => [gvkKey(k), k]));

/** The schema of a kind, or undefined for kinds the source does not have (custom resources). */
export function schemaFor(gvk: SchemaGvk): KindSchema | undefined {
  const kind = kindsByGvk.get(gvkKey(gvk));
  const type = kind && schemaType(kind.type);
  return kind && type
    ? { gvk: { group: kind.group, version: kind.version, kind: kind.kind }, name: kind.type, type }
    : undefined;
}

/** Every GVK a type is the kind of (DeleteOptions is one in every group). */
export function kindsOfType(name: string): readonly SchemaGvk[] {
  return schemaSource.kinds
    .filter((k) => k.type === name)
    .map((k) => ({ group: k.group, version: k.version, kind: k.kind }));
}

const shapes = new Map<string, JsonShape>();

/** The JSON shape of a source field type (`[]io.k8s.api.core.v1.Container`, `int32`...). */
export function jsonShape(type: string): JsonShape {
  let shape = shapes.get(type);
  if (!shape) {
    shape = shapeOf(type);
    shapes.set(type, shape);
  }
  return shape;
}

function shapeOf(type: string): JsonShape {
  if (type.startsWith('[]')) return { kind: 'list', items: jsonShape(type.slice(2)) };
  if (type.startsWith('map[string]')) {
    return { kind: 'map', values: jsonShape(type.slice('map[string]'.length)) };
  }
  if (isProtoScalar(type)) return { kind: 'scalar', scalar: type };
  const named = schemaType(type);
  if (!named) throw new Error(`schema source: no type ${type}`);
  if (named.json === 'items') {
    // A named slice: JSON has the list itself.
    const items = named.fields[0];
    if (!items) throw new Error(`schema source: ${type} has no items`);
    return jsonShape(items.type);
  }
  if (named.json) return { kind: 'special', form: named.json, name: type };
  return { kind: 'struct', name: type };
}

const isKindType = new Set(schemaSource.kinds.map((k) => k.type));
const flattened = new Map<string, ReadonlyMap<string, SourceField>>();

/**
 * The fields of a struct as JSON has them, in order: a kind's apiVersion and kind
 * (metav1.TypeMeta) first, then its own, the fields of embedded structs in their place.
 */
export function jsonFields(name: string): ReadonlyMap<string, SourceField> {
  let fields = flattened.get(name);
  if (!fields) {
    const out = new Map<string, SourceField>();
    const add = (typeName: string) => {
      for (const field of schemaType(typeName)?.fields ?? []) {
        if (field.inline) add(field.type);
        else out.set(field.name, field);
      }
    };
    if (isKindType.has(name)) {
      // TypeMeta declares kind before apiVersion; objects are written apiVersion first.
      const typeMeta = schemaType(TYPE_META)?.fields ?? [];
      for (const key of ['apiVersion', 'kind']) {
        const field = typeMeta.find((f) => f.name === key);
        if (field) out.set(key, field);
      }
    }
    add(name);
    fields = out;
    flattened.set(name, fields);
  }
  return fields;
}

/** Lists and maps are walked through to what they hold. */
function element(shape: JsonShape): JsonShape {
  let inner = shape;
  while (inner.kind === 'list' || inner.kind === 'map') {
    inner = inner.kind === 'list' ? inner.items : inner.values;
  }
  return inner;
}

/**
 * The field at a dotted JSON path below a kind or a type: `spec.template.spec.containers.env`
 * (list items and map values are walked through, so `containers.env` is a container's env).
 * Undefined when a part of the path is not a field.
 */
export function fieldAtPath(
  root: SchemaGvk | string,
  path: string | readonly string[],
): SourceField | undefined {
  let typeName = typeof root === 'string' ? root : schemaFor(root)?.name;
  let field: SourceField | undefined;
  for (const key of typeof path === 'string' ? path.split('.') : path) {
    if (typeName === undefined) return undefined;
    field = jsonFields(typeName).get(key);
    if (!field) return undefined;
    const inner = element(jsonShape(field.type));
    typeName = inner.kind === 'struct' ? inner.name : undefined;
  }
  return field;
}

/** What `+patchStrategy` says: lists merged (by `+patchMergeKey`), maps replaced, retainKeys. */
export interface PatchStrategy {
  readonly merge: boolean;
  readonly replace: boolean;
  readonly retainKeys: boolean;
  readonly mergeKey?: string;
}

export function patchStrategyOf(field: SourceField): PatchStrategy {
  const parts = (field.patchStrategy ?? '').split(',');
  return {
    merge: parts.includes('merge'),
    replace: parts.includes('replace'),
    retainKeys: parts.includes('retainKeys'),
    ...(field.patchMergeKey ? { mergeKey: field.patchMergeKey } : {}),
  };
}

/** The strategic merge key of the list at `path` below a kind (`spec.containers` → `name`). */
export function mergeKeyAt(gvk: SchemaGvk, path: string): string | undefined {
  return fieldAtPath(gvk, path)?.patchMergeKey;
}
