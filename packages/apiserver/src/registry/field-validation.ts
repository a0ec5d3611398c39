import { ApiError, fieldErrors, type KubeObject, type ResourceDefinition } from '@listwatch/api';
import type { DuplicateField } from '@listwatch/codec';
import { genericObjectStructural, structuralForKind } from '../apiextensions/schema/builtin.js';
import { prune } from '../apiextensions/schema/pruning.js';
import type { Structural } from '../apiextensions/schema/structural.js';

// Server-side field validation (KEP-2885), as kube-apiserver does it for built-in types: the
// body is decoded strictly against the kind's schema (k8s.io/apimachinery runtime/serializer/json
// with sigs.k8s.io/json), and the `fieldValidation` query parameter decides what an unknown
// field costs (k8s.io/apiserver pkg/endpoints/handlers/create.go, update.go, patch.go).
// The fields are those of the kind's structural schema (apiextensions/schema: the schema source's
// types, closed as their Go structs are, or a CRD's); what marshals itself (Quantity,
// RawExtension, FieldsV1...) is taken as is. Kinds without either keep any spec and status.

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

/**
 * Removes the fields `object` has that its kind does not, and returns their paths in document
 * order (apiextensions/schema/pruning.ts over the kind's structural schema: the schema source's
 * type, a CRD's, or TypeMeta, ObjectMeta and any spec and status). `object` is changed in place.
 */
export function pruneUnknownFields(
  definition: ResourceDefinition,
  object: KubeObject,
  structural?: Structural,
): string[] {
  return prune(object, structuralOf(definition, structural));
}

/** The structural schema unknown fields are found by: the strategy's, the source's, or generic. */
export function structuralOf(definition: ResourceDefinition, structural?: Structural): Structural {
  return structural ?? structuralForKind(definition) ?? genericObjectStructural();
}

/** The node one step below `s` (a struct field, list item or map value), if decoded. */
function stepInto(s: Structural, segment: string | number): Structural | undefined {
  if (s.marshals && s.marshals.startsWith('schema-or-')) {
    // JSONSchemaPropsOr*: decoded field by field where it is a schema.
    return typeof segment === 'string' ? s.properties?.get(segment) : undefined;
  }
  if (s.marshals || s.preserveUnknownFields) return undefined;
  if (typeof segment === 'number') return s.type === 'array' ? s.items : undefined;
  if (s.properties) return s.properties.get(segment);
  return typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
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
  const schema = structuralForKind(definition);
  const paths = duplicates.filter(
    (d) =>
      !schema ||
      d.segments.reduce<Structural | undefined>(
        (s, segment) => s && stepInto(s, segment),
        schema,
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
