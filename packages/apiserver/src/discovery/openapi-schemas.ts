import {
  builtinResources,
  jsonFields,
  jsonShape,
  kindsOfType,
  schemaFor,
  schemaType,
  type JsonShape,
  type ResourceDefinition,
  type SourceField,
  type SourceType,
} from '@listwatch/api';
import type { GroupVersionKind } from './subresources.js';

// The component schemas of our OpenAPI documents (OpenAPI 3.0 form: `$ref`s into
// #/components/schemas; openapi.ts rewrites them for swagger 2.0), built from the schema source
// of @listwatch/api, which is derived from upstream's generated.proto: kube's definition names,
// descriptions, formats and the x-kubernetes-* extensions kubectl reads for `apply` (strategic
// merge metadata) and `explain`. Kinds the source lacks (custom resources) get a generic schema.

/** A JSON schema fragment. */
export type Schema = { [key: string]: unknown };

export const SCHEMA_REF_PREFIX = '#/components/schemas/';
export const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
const OBJECT_META = `${META}.ObjectMeta`;
const LIST_META = `${META}.ListMeta`;
const DELETE_OPTIONS = `${META}.DeleteOptions`;

export function ref(name: string): Schema {
  return { $ref: `${SCHEMA_REF_PREFIX}${name}` };
}

/** `x-kubernetes-group-version-kind` as schemas carry it: a list. */
export function gvkExtension(...gvks: GroupVersionKind[]): Schema {
  return {
    'x-kubernetes-group-version-kind': gvks.map(({ group, kind, version }) => ({
      group,
      kind,
      version,
    })),
  };
}

function scalarSchema(shape: JsonShape & { kind: 'scalar' }): Schema {
  switch (shape.scalar) {
    case 'string':
      return { type: 'string' };
    case 'bool':
      return { type: 'boolean' };
    case 'int32':
    case 'int64':
      return { type: 'integer', format: shape.scalar };
    case 'double':
    case 'float':
      return { type: 'number', format: shape.scalar };
    case 'bytes':
      return { type: 'string', format: 'byte' };
  }
}

/** A list item or map value: named types by reference. */
function elementSchema(shape: JsonShape): Schema {
  switch (shape.kind) {
    case 'scalar':
      return scalarSchema(shape);
    case 'struct':
    case 'special':
      return ref(shape.name);
    case 'list':
      return { type: 'array', items: elementSchema(shape.items) };
    case 'map':
      return { type: 'object', additionalProperties: elementSchema(shape.values) };
  }
}

/** The markers kubectl and server-side apply read, as kube's OpenAPI extensions. */
function extensions(field: SourceField): Schema {
  return {
    ...(field.default !== undefined ? { default: field.default } : {}),
    ...(field.listMapKeys ? { 'x-kubernetes-list-map-keys': [...field.listMapKeys] } : {}),
    ...(field.listType ? { 'x-kubernetes-list-type': field.listType } : {}),
    ...(field.mapType ? { 'x-kubernetes-map-type': field.mapType } : {}),
    ...(field.patchMergeKey ? { 'x-kubernetes-patch-merge-key': field.patchMergeKey } : {}),
    ...(field.patchStrategy ? { 'x-kubernetes-patch-strategy': field.patchStrategy } : {}),
  };
}

function propertySchema(field: SourceField): Schema {
  const shape = jsonShape(field.type);
  const described = field.description ? { description: field.description } : {};
  switch (shape.kind) {
    case 'struct':
    case 'special':
      // `allOf: [$ref]`, as kube's v3 documents write a described reference (a sibling of a bare
      // `$ref` is ignored); kubectl's patch metadata lookup and `explain` follow allOf[0].
      return { ...described, allOf: [ref(shape.name)], ...extensions(field) };
    default:
      return { ...described, ...elementSchema(shape), ...extensions(field) };
  }
}

/** Types whose Go code marshals itself, as kube's OpenAPI publishes them. */
function specialSchema(type: SourceType): Schema {
  const described = type.description ? { description: type.description } : {};
  switch (type.json) {
    case 'date-time':
      return { ...described, type: 'string', format: 'date-time' };
    case 'duration':
      return { ...described, type: 'string' };
    case 'quantity':
      return { ...described, oneOf: [{ type: 'string' }, { type: 'number' }] };
    case 'int-or-string':
      return {
        ...described,
        type: 'string',
        format: 'int-or-string',
        'x-kubernetes-int-or-string': true,
      };
    case 'items': {
      const items = type.fields[0];
      return { ...described, ...(items ? elementSchema(jsonShape(items.type)) : {}) };
    }
    case 'schema-or-array':
    case 'schema-or-bool':
    case 'schema-or-string-array':
      // A schema or another JSON value: kube's OpenAPI gives no type.
      return described;
    default:
      return { ...described, type: 'object' };
  }
}

function byName<T>(entries: [string, T][]): [string, T][] {
  return entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function structSchema(name: string, type: SourceType): Schema {
  const fields = [...jsonFields(name).values()];
  // kube-openapi requires a field marked +required, or one whose json tag lacks omitempty and
  // that is not marked +optional (the source's keepEmpty, from the Go types).
  const required = fields
    .filter((f) => f.required || (f.keepEmpty && !f.optional))
    .map((f) => f.name);
  const kinds = [...kindsOfType(name)];
  if (name === DELETE_OPTIONS) {
    // Registered in every group version served (apimachinery AddToGroupVersion), as kube tags it.
    for (const def of builtinResources) {
      if (!kinds.some((k) => k.group === def.group && k.version === def.version)) {
        kinds.push({ group: def.group, version: def.version, kind: 'DeleteOptions' });
      }
    }
  }
  return {
    ...(type.description ? { description: type.description } : {}),
    type: 'object',
    ...(required.length ? { required } : {}),
    properties: Object.fromEntries(byName(fields.map((f) => [f.name, propertySchema(f)]))),
    ...(type.structType ? { 'x-kubernetes-map-type': type.structType } : {}),
    ...(kinds.length ? gvkExtension(...kinds) : {}),
  };
}

const components = new Map<string, Schema>();

/** The component schema of a type of the schema source, by definition name. */
export function componentSchema(name: string): Schema | undefined {
  let schema = components.get(name);
  if (!schema) {
    const type = schemaType(name);
    if (!type) return undefined;
    schema = type.json ? specialSchema(type) : structSchema(name, type);
    components.set(name, schema);
  }
  return schema;
}

/**
 * The component name of a kind: the source's (`io.k8s.api.core.v1.Pod`,
 * `io.k8s.apimachinery.pkg.apis.meta.v1.Status`), else as kube names it: a group outside k8s.io
 * reads reversed, like CRDs (`com.example.v1.Widget`).
 */
export function schemaNameOf(gvk: GroupVersionKind): string {
  const known = schemaFor(gvk);
  if (known) return known.name;
  const { group, version, kind } = gvk;
  if (group === '') return `io.k8s.api.core.${version}.${kind}`;
  if (!group.includes('.') || group.endsWith('.k8s.io')) {
    return `io.k8s.api.${group.split('.')[0] ?? group}.${version}.${kind}`;
  }
  return `${group.split('.').reverse().join('.')}.${version}.${kind}`;
}

/** apiVersion and kind, as metav1.TypeMeta describes them. */
function typeMetaProperties(): Record<string, Schema> {
  const typeMeta = jsonFields(`${META}.TypeMeta`);
  return Object.fromEntries(
    ['apiVersion', 'kind'].flatMap((key) => {
      const field = typeMeta.get(key);
      return field ? [[key, propertySchema(field)]] : [];
    }),
  );
}

/** A kind the source does not have: its spec and status are kept as given. */
function genericKindSchema(gvk: GroupVersionKind): Schema {
  const open = (description: string): Schema => ({
    description,
    type: 'object',
    'x-kubernetes-preserve-unknown-fields': true,
  });
  return {
    description: `${gvk.kind} is served by listwatch; its spec and status are kept as given.`,
    type: 'object',
    properties: {
      ...typeMetaProperties(),
      metadata: { description: "Standard object's metadata.", allOf: [ref(OBJECT_META)] },
      spec: open(`Spec defines the behavior of the ${gvk.kind}.`),
      status: open(`Most recently observed status of the ${gvk.kind}. Read-only.`),
    },
    ...gvkExtension(gvk),
  };
}

/** The schema of one kind: the source's, or a generic one. */
export function kindSchema(gvk: GroupVersionKind): Schema {
  const known = schemaFor(gvk);
  return (known && componentSchema(known.name)) ?? genericKindSchema(gvk);
}

/** The schema of a resource's list kind (`PodList`). */
export function listSchema(def: ResourceDefinition): Schema {
  const listGvk = { group: def.group, version: def.version, kind: def.listKind };
  const known = schemaFor(listGvk);
  const schema = known && componentSchema(known.name);
  if (schema) return schema;
  return {
    description: `${def.listKind} is a list of ${def.kind} objects.`,
    type: 'object',
    required: ['items'],
    properties: {
      ...typeMetaProperties(),
      items: {
        description: `List of ${def.plural}.`,
        type: 'array',
        items: ref(schemaNameOf(def)),
      },
      metadata: { description: 'Standard list metadata.', allOf: [ref(LIST_META)] },
    },
    ...gvkExtension(listGvk),
  };
}

function collectRefs(value: unknown, into: Set<string>): void {
  if (Array.isArray(value)) {
    for (const item of value) collectRefs(item, into);
  } else if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (key === '$ref' && typeof inner === 'string' && inner.startsWith(SCHEMA_REF_PREFIX)) {
        into.add(inner.slice(SCHEMA_REF_PREFIX.length));
      } else {
        collectRefs(inner, into);
      }
    }
  }
}

/**
 * Completes a set of component schemas with every source schema they or `alsoReferencedBy`
 * reference, transitively, so each OpenAPI document stands alone (as kube's per-group-version v3
 * documents do). Sorted by name, for a stable document and ETag.
 */
export function withReferencedSchemas(
  schemas: Record<string, Schema>,
  alsoReferencedBy: unknown,
): Record<string, Schema> {
  const all: Record<string, Schema> = { ...schemas };
  const pending = new Set<string>();
  collectRefs(alsoReferencedBy, pending);
  collectRefs(schemas, pending);
  // A Set visits what is added while iterating it: this walks the reference graph to the end.
  for (const name of pending) {
    if (all[name]) continue;
    const shared = componentSchema(name);
    if (!shared) continue;
    all[name] = shared;
    collectRefs(shared, pending);
  }
  return Object.fromEntries(byName(Object.entries(all)));
}
