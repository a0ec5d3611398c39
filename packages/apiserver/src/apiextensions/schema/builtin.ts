import {
  jsonFields,
  jsonShape,
  schemaFor,
  schemaType,
  type JsonForm,
  type JsonShape,
  type SchemaGvk,
  type SourceField,
} from '@listwatch/api';
import type { Structural } from './structural.js';

// The structural schema of a built-in type, from the schema source (@listwatch/api, upstream's
// generated.proto and Go markers), as kube-openapi publishes kube's Go types: a struct is an
// object closed to unknown fields, a `+listType`/`+listMapKey` (or, without them, a
// `+patchStrategy=merge` list keyed by `+patchMergeKey`, kube-openapi schemaconv
// getListElementRelationship) becomes x-kubernetes-list-type/-map-keys, `+mapType` and
// `+structType` x-kubernetes-map-type, a `+default` literal the default. Types are recursive
// (JSONSchemaProps), so nodes are cached and shared: the graph may have cycles.

const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
const SCALARS: Readonly<Record<string, Structural['type']>> = {
  string: 'string',
  bytes: 'string',
  bool: 'boolean',
  int32: 'integer',
  int64: 'integer',
  double: 'number',
  float: 'number',
};

const structs = new Map<string, Structural>();

/** The structural schema of a struct of the schema source (`io.k8s.api.core.v1.PodSpec`). */
export function structuralForType(name: string): Structural {
  const known = structs.get(name);
  if (known) return known;
  const properties = new Map<string, Structural>();
  const node: Structural = { type: 'object', properties, goType: name };
  if (schemaType(name)?.structType === 'atomic') node.mapType = 'atomic';
  structs.set(name, node);
  for (const [key, field] of jsonFields(name)) properties.set(key, fieldStructural(field));
  return node;
}

/** The structural schema of a kind the source has, or undefined (custom resources). */
export function structuralForKind(gvk: SchemaGvk): Structural | undefined {
  const kind = schemaFor(gvk);
  return kind ? structuralForType(kind.name) : undefined;
}

const fields = new WeakMap<SourceField, Structural>();

function fieldStructural(field: SourceField): Structural {
  let node = fields.get(field);
  if (!node) {
    node = shapeStructural(jsonShape(field.type), field);
    if (field.default !== undefined) node = { ...node, default: field.default };
    fields.set(field, node);
  }
  return node;
}

function shapeStructural(shape: JsonShape, field?: SourceField): Structural {
  switch (shape.kind) {
    case 'scalar':
      return { type: SCALARS[shape.scalar] ?? 'string' };
    case 'struct':
      return structuralForType(shape.name);
    case 'map': {
      const node: Structural = {
        type: 'object',
        additionalProperties: shapeStructural(shape.values),
      };
      if (field?.mapType) node.mapType = field.mapType;
      return node;
    }
    case 'list':
      return { type: 'array', items: shapeStructural(shape.items), ...listSemantics(field) };
    case 'special':
      return special(shape.form, shape.name);
  }
}

/** Types that read their own JSON (metav1.Time, Quantity, IntOrString, RawExtension...). */
function special(form: Exclude<JsonForm, 'items'>, name: string): Structural {
  switch (form) {
    case 'object':
      // FieldsV1, RawExtension: any JSON object, kept whole.
      return { type: 'object', preserveUnknownFields: true, mapType: 'atomic', marshals: form };
    case 'int-or-string':
    case 'quantity':
      return { intOrString: true, marshals: form };
    case 'date-time':
    case 'duration':
      return { type: 'string', marshals: form };
    default: {
      // JSONSchemaPropsOrBool/OrArray/OrStringArray: a schema (a struct like any other), or an
      // array of schemas, a boolean, an array of strings.
      const schema = structuralForType(name.replace(/Or\w+$/, ''));
      const node: Structural = {
        properties: schema.properties!,
        goType: schema.goType!,
        marshals: form,
      };
      if (form === 'schema-or-array') node.items = schema;
      return node;
    }
  }
}

/** kube-openapi schemaconv getListElementRelationship, from a field's markers. */
function listSemantics(field?: SourceField): Pick<Structural, 'listType' | 'listMapKeys'> {
  if (field?.listType === 'map') return { listType: 'map', listMapKeys: field.listMapKeys ?? [] };
  if (field?.listType) return { listType: field.listType };
  if (field?.patchStrategy?.split(',').includes('merge')) {
    return field.patchMergeKey
      ? { listType: 'map', listMapKeys: [field.patchMergeKey] }
      : { listType: 'set' };
  }
  return { listType: 'atomic' };
}

/** metav1.ObjectMeta's: what every object's metadata is walked by (apiserver/schema/objectmeta). */
export function objectMetaStructural(): Structural {
  return structuralForType(OBJECT_META);
}

const TYPE_META: ReadonlyMap<string, Structural> = new Map([
  ['apiVersion', { type: 'string' }],
  ['kind', { type: 'string' }],
]);

/**
 * The root of a custom resource's schema, as the CRD's published OpenAPI has it
 * (apiextensions-apiserver pkg/controller/openapi/builder): apiVersion and kind strings, metadata
 * ObjectMeta; the CRD's own metadata schema (name and generateName rules) is validation's.
 */
export function customResourceRoot(schema: Structural): Structural {
  const properties = new Map(schema.properties ?? []);
  for (const [key, node] of TYPE_META) properties.set(key, node);
  properties.set('metadata', objectMetaStructural());
  return { ...schema, type: 'object', properties };
}

/**
 * A kind the source lacks and no CRD describes: TypeMeta, ObjectMeta, and any spec and status
 * (what kube's unstructured decoding keeps).
 */
export function genericObjectStructural(): Structural {
  return (generic ??= {
    type: 'object',
    properties: new Map([
      ...TYPE_META,
      ['metadata', objectMetaStructural()],
      ['spec', { preserveUnknownFields: true }],
      ['status', { preserveUnknownFields: true }],
    ]),
  });
}
let generic: Structural | undefined;
