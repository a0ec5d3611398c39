import { ApiError, fieldErrors, type KubeObject, type ResourceDefinition } from '@listwatch/api';
import {
  kindSchema,
  sharedSchemas,
  SCHEMA_REF_PREFIX,
  type Schema,
} from '../discovery/openapi-schemas.js';

// Server-side field validation (KEP-2885), as kube-apiserver does it for built-in types: the
// body is decoded strictly against the kind's schema (k8s.io/apimachinery runtime/serializer/json
// with sigs.k8s.io/json), and the `fieldValidation` query parameter decides what an unknown
// field costs (k8s.io/apiserver pkg/endpoints/handlers/create.go, update.go, patch.go).
// The schemas are our OpenAPI component schemas: closed where they list every field, and open
// (x-kubernetes-preserve-unknown-fields) where they do not, so a real field is never refused.

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

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Follows `$ref` and the `allOf: [$ref]` form of described references to the schema itself. */
function resolve(schema: Schema | undefined): Schema | undefined {
  let current = schema;
  for (let depth = 0; current && depth < 8; depth++) {
    const allOf = current['allOf'];
    if (Array.isArray(allOf) && isRecord(allOf[0])) {
      current = allOf[0];
      continue;
    }
    const ref = current['$ref'];
    if (typeof ref === 'string' && ref.startsWith(SCHEMA_REF_PREFIX)) {
      current = sharedSchemas[ref.slice(SCHEMA_REF_PREFIX.length)];
      continue;
    }
    return current;
  }
  return current;
}

/**
 * Walks `value` against `schema`, reporting each unknown field by its path (`spec.foo`,
 * `spec.containers[0].foo`, as sigs.k8s.io/json words it) and deleting it: kube decodes into Go
 * structs, so an unknown field is never stored, whatever the validation level.
 */
function prune(value: unknown, schema: Schema | undefined, path: string, unknown: string[]): void {
  const resolved = resolve(schema);
  if (!resolved) return;
  if (Array.isArray(value)) {
    const items = isRecord(resolved['items']) ? resolved['items'] : undefined;
    if (items) value.forEach((item, i) => prune(item, items, `${path}[${i}]`, unknown));
    return;
  }
  if (!isRecord(value)) return;
  const at = (key: string) => (path ? `${path}.${key}` : key);
  const properties = isRecord(resolved['properties']) ? resolved['properties'] : undefined;
  const additional = isRecord(resolved['additionalProperties'])
    ? resolved['additionalProperties']
    : undefined;
  if (properties) {
    const open = resolved['x-kubernetes-preserve-unknown-fields'] === true;
    for (const key of Object.keys(value)) {
      const property = Object.hasOwn(properties, key) ? properties[key] : undefined;
      if (isRecord(property)) prune(value[key], property, at(key), unknown);
      else if (!open) {
        unknown.push(at(key));
        delete value[key];
      }
    }
  } else if (additional) {
    for (const key of Object.keys(value)) prune(value[key], additional, at(key), unknown);
  }
  // Neither: an object we do not describe (status, FieldsV1): anything goes.
}

const kindSchemas = new Map<string, Schema>();

function schemaOf(definition: ResourceDefinition): Schema {
  const key = `${definition.group}/${definition.version}/${definition.kind}`;
  let schema = kindSchemas.get(key);
  if (!schema) {
    schema = kindSchema(definition);
    kindSchemas.set(key, schema);
  }
  return schema;
}

/**
 * Removes the fields `object` has that its kind does not, and returns their paths in document
 * order. `object` is changed in place.
 */
export function pruneUnknownFields(definition: ResourceDefinition, object: KubeObject): string[] {
  const unknown: string[] = [];
  prune(object, schemaOf(definition), '', unknown);
  return unknown;
}

/** What an unknown field is called in warnings and strict errors. */
export function unknownFieldMessages(paths: readonly string[]): string[] {
  return paths.map((path) => `unknown field ${JSON.stringify(path)}`);
}

/** runtime.NewStrictDecodingError's text: `strict decoding error: unknown field "a", ...`. */
export function strictDecodingMessage(paths: readonly string[]): string {
  return `strict decoding error: ${unknownFieldMessages(paths).join(', ')}`;
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
  paths: readonly string[],
): ApiError {
  return ApiError.badRequest(cannotBeHandled(definition, body, strictDecodingMessage(paths)));
}
