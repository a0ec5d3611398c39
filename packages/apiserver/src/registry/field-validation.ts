import {
  ApiError,
  fieldErrors,
  isRecord,
  jsonFields,
  jsonShape,
  schemaFor,
  type JsonShape,
  type KubeObject,
  type ResourceDefinition,
} from '@listwatch/api';
import type { DuplicateField } from '@listwatch/codec';

// Server-side field validation (KEP-2885), as kube-apiserver does it for built-in types: the
// body is decoded strictly against the kind's schema (k8s.io/apimachinery runtime/serializer/json
// with sigs.k8s.io/json), and the `fieldValidation` query parameter decides what an unknown
// field costs (k8s.io/apiserver pkg/endpoints/handlers/create.go, update.go, patch.go).
// The fields are those of the schema source (@listwatch/api, from upstream's generated.proto),
// so every type is closed as its Go struct is; what marshals itself (Quantity, RawExtension,
// FieldsV1...) is taken as is. Kinds the source lacks keep any spec and status.

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

/** The options type each write names in its 422 (metav1.CreateOptions & co). */
export type WriteOptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions';

const SUPPORTED = ['', 'Ignore', 'Strict', 'Warn'] as const;

/**
 * The `fieldValidation` query parameter: unset or empty is Warn (kube's default since 1.27);
 * anything else unsupported is 422 Invalid (apimachinery validation.ValidateFieldValidation).
 */
export function fieldValidationOf(
  query: URLSearchParams,
  optionsKind: WriteOptionsKind,
): FieldValidation {
  const value = query.get('fieldValidation') ?? '';
  if (!(SUPPORTED as readonly string[]).includes(value)) {
    throw ApiError.invalid({ group: 'meta.k8s.io', kind: optionsKind }, '', [
      fieldErrors.notSupported('fieldValidation', value, SUPPORTED),
    ]);
  }
  return value === '' ? 'Warn' : (value as FieldValidation);
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

function prune(value: unknown, shape: JsonShape, path: string, unknown: string[]): void {
  if (shape.kind === 'list') {
    if (Array.isArray(value))
      value.forEach((v, i) => prune(v, shape.items, `${path}[${i}]`, unknown));
  } else if (shape.kind === 'map') {
    if (isRecord(value))
      for (const key of Object.keys(value)) prune(value[key], shape.values, at(path, key), unknown);
  } else if (shape.kind === 'struct' && isRecord(value)) {
    const fields = jsonFields(shape.name);
    for (const key of Object.keys(value)) {
      const field = fields.get(key);
      if (field) prune(value[key], jsonShape(field.type), at(path, key), unknown);
      else {
        unknown.push(at(path, key));
        delete value[key];
      }
    }
  } else if (shape.kind === 'special' && shape.form.startsWith('schema-or-')) {
    // JSONSchemaPropsOrBool/OrArray/OrStringArray: a schema is a struct like any other.
    const schema = jsonShape(shape.name.replace(/Or\w+$/, ''));
    if (isRecord(value)) prune(value, schema, path, unknown);
    else if (Array.isArray(value) && shape.form === 'schema-or-array')
      value.forEach((v, i) => prune(v, schema, `${path}[${i}]`, unknown));
  }
  // Scalars and other self-marshalling types (Quantity, RawExtension...): nothing below.
}

/** A kind the source lacks (a custom resource): TypeMeta, ObjectMeta, and any spec and status. */
function pruneGeneric(object: Record<string, unknown>, unknown: string[]): void {
  for (const key of Object.keys(object)) {
    if (key === 'metadata') prune(object[key], OBJECT_META, key, unknown);
    else if (!['apiVersion', 'kind', 'spec', 'status'].includes(key)) {
      unknown.push(key);
      delete object[key];
    }
  }
}

/**
 * Removes the fields `object` has that its kind does not, and returns their paths in document
 * order. `object` is changed in place. A kind the schema source lacks keeps any spec and status
 * (its Store prunes custom resources by their structural schema instead).
 */
export function pruneUnknownFields(definition: ResourceDefinition, object: KubeObject): string[] {
  const unknown: string[] = [];
  const schema = schemaFor(definition);
  if (schema) prune(object, jsonShape(schema.name), '', unknown);
  else pruneGeneric(object, unknown);
  return unknown;
}

/** Drops the fields an object's metadata has that ObjectMeta does not; returns their paths. */
export function pruneObjectMeta(object: KubeObject): string[] {
  const unknown: string[] = [];
  prune(object.metadata, OBJECT_META, 'metadata', unknown);
  return unknown;
}

/** The shape one step below `shape` (a struct field, list item or map value), if decoded. */
function stepInto(shape: JsonShape, segment: string | number): JsonShape | undefined {
  if (shape.kind === 'list') return typeof segment === 'number' ? shape.items : undefined;
  if (shape.kind === 'map') return typeof segment === 'string' ? shape.values : undefined;
  if (shape.kind === 'struct') {
    const field = typeof segment === 'string' ? jsonFields(shape.name).get(segment) : undefined;
    return field ? jsonShape(field.type) : undefined;
  }
  if (shape.kind === 'special' && shape.form.startsWith('schema-or-')) {
    return stepInto(jsonShape(shape.name.replace(/Or\w+$/, '')), segment);
  }
  return undefined;
}

/**
 * The duplicated keys kube's strict decoder reports (sigs.k8s.io/json DisallowDuplicateFields):
 * where it decodes field by field. Inside an unknown field (reported as unknown) or a type that
 * reads its own JSON (Quantity, RawExtension, FieldsV1...) nothing is. A kind the source lacks
 * (a custom resource) decodes into maps, so every duplicate counts.
 */
export function duplicateFieldPaths(
  definition: ResourceDefinition,
  duplicates: readonly DuplicateField[],
): string[] {
  const schema = schemaFor(definition);
  const paths = duplicates.filter(
    (d) =>
      !schema ||
      d.segments.reduce<JsonShape | undefined>(
        (shape, segment) => shape && stepInto(shape, segment),
        jsonShape(schema.name),
      ) !== undefined,
  );
  return [...new Set(paths.map((d) => d.path))];
}

/** What a duplicated field is called in warnings and strict errors. */
export function duplicateFieldMessages(paths: readonly string[]): string[] {
  return paths.map((path) => `duplicate field ${JSON.stringify(path)}`);
}

/** What an unknown field is called in warnings and strict errors. */
export function unknownFieldMessages(paths: readonly string[]): string[] {
  return paths.map((path) => `unknown field ${JSON.stringify(path)}`);
}

/**
 * runtime.NewStrictDecodingError's text: `strict decoding error: unknown field "a", duplicate
 * field "b"` (unknown fields first, then duplicated ones).
 */
export function strictDecodingMessage(
  unknown: readonly string[],
  duplicates: readonly string[] = [],
): string {
  return `strict decoding error: ${[...unknownFieldMessages(unknown), ...duplicateFieldMessages(duplicates)].join(', ')}`;
}

/**
 * kube's transformDecodeError: a body's decoding error, with the kind and version the body
 * claimed (defaulted from the URL, as the decoder defaults them).
 */
export function cannotBeHandled(
  definition: ResourceDefinition,
  body: Record<string, unknown>,
  message: string,
): string {
  const kind = typeof body['kind'] === 'string' && body['kind'] ? body['kind'] : definition.kind;
  const apiVersion = typeof body['apiVersion'] === 'string' ? body['apiVersion'] : '';
  const version = apiVersion ? apiVersion.slice(apiVersion.indexOf('/') + 1) : definition.version;
  return `${kind} in version ${JSON.stringify(version)} cannot be handled as a ${definition.kind}: ${message}`;
}

/** A strict create or update with unknown fields: 400, worded by cannotBeHandled. */
export function strictBodyError(
  definition: ResourceDefinition,
  body: KubeObject,
  unknown: readonly string[],
  duplicates: readonly string[] = [],
): ApiError {
  return ApiError.badRequest(
    cannotBeHandled(definition, body, strictDecodingMessage(unknown, duplicates)),
  );
}
