// Small constructors for the JSON schemas of our OpenAPI documents, in OpenAPI 3.0 form
// (`$ref`s into #/components/schemas; openapi.ts rewrites them for swagger 2.0).

/** A JSON schema fragment. */
export type Schema = { [key: string]: unknown };

export const SCHEMA_REF_PREFIX = '#/components/schemas/';
export const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
export const CORE = 'io.k8s.api.core.v1';
export const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';
export const INT_OR_STRING = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';

export function ref(name: string): Schema {
  return { $ref: `${SCHEMA_REF_PREFIX}${name}` };
}

/**
 * A described reference, written `allOf: [$ref]` as kube's v3 documents do (a sibling of a bare
 * `$ref` is ignored). kubectl's patch-metadata lookup and `explain` both follow allOf[0].
 */
export function field(name: string, description: string): Schema {
  return { description, allOf: [ref(name)], default: {} };
}

const described = (description: string | undefined): Schema => (description ? { description } : {});

export const str = (description?: string): Schema => ({
  ...described(description),
  type: 'string',
});
export const int32 = (description?: string): Schema => ({
  ...described(description),
  type: 'integer',
  format: 'int32',
});
export const int64 = (description?: string): Schema => ({
  ...described(description),
  type: 'integer',
  format: 'int64',
});
export const bool = (description?: string): Schema => ({
  ...described(description),
  type: 'boolean',
});
export const intOrString = (description: string): Schema => field(INT_OR_STRING, description);

export const stringMap = (description?: string, options: { atomic?: boolean } = {}): Schema => ({
  ...described(description),
  type: 'object',
  additionalProperties: { type: 'string', default: '' },
  ...(options.atomic ? { 'x-kubernetes-map-type': 'atomic' } : {}),
});

export const quantityMap = (description: string): Schema => ({
  description,
  type: 'object',
  additionalProperties: ref(QUANTITY),
});

/** An object whose fields we do not spell out: anything goes, and is kept. */
export const open = (description?: string): Schema => ({
  ...described(description),
  type: 'object',
  'x-kubernetes-preserve-unknown-fields': true,
});

export const stringList = (
  description?: string,
  listType: 'atomic' | 'set' = 'atomic',
): Schema => ({
  ...described(description),
  type: 'array',
  items: { type: 'string', default: '' },
  'x-kubernetes-list-type': listType,
});

export const atomicList = (item: Schema, description?: string): Schema => ({
  ...described(description),
  type: 'array',
  items: item,
  'x-kubernetes-list-type': 'atomic',
});

/**
 * A list keyed by `keys` for server-side apply; unless `patch: false`, also merged by its first
 * key in strategic merge patch (`patchStrategy:"merge" patchMergeKey:...` in k8s.io/api).
 */
export function keyedList(
  item: string,
  keys: readonly [string, ...string[]],
  options: { description?: string; strategy?: string; patch?: false } = {},
): Schema {
  return {
    ...described(options.description),
    type: 'array',
    items: ref(item),
    'x-kubernetes-list-map-keys': [...keys],
    'x-kubernetes-list-type': 'map',
    ...(options.patch === false
      ? {}
      : {
          'x-kubernetes-patch-merge-key': keys[0],
          'x-kubernetes-patch-strategy': options.strategy ?? 'merge',
        }),
  };
}

/**
 * An object schema. `preserveUnknown` keeps fields we do not declare (kept for types whose less
 * common fields we leave out), `mapType: 'atomic'` makes apply replace it whole.
 */
export function object(
  description: string,
  properties: Record<string, Schema>,
  options: { required?: string[]; preserveUnknown?: boolean; mapType?: 'atomic' } = {},
): Schema {
  return {
    description,
    type: 'object',
    ...(options.required ? { required: options.required } : {}),
    properties,
    ...(options.preserveUnknown ? { 'x-kubernetes-preserve-unknown-fields': true } : {}),
    ...(options.mapType ? { 'x-kubernetes-map-type': options.mapType } : {}),
  };
}
