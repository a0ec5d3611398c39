import {
  ApiError,
  decodeTypedObject,
  fieldErrors,
  isRecord,
  schemaFor,
  type DecodeFailure,
  type KubeObject,
  type ResourceDefinition,
  type SchemaGvk,
} from '@listwatch/api';
import { setObjectDefaults } from '../defaulting.js';
import { cannotBeHandled } from '../field-validation.js';
import type { ServedResource } from './resource-strategy.js';

// The typed decode of a request body or patch result (kube's codec: decode, default, convert),
// before the strategy sees the object.

/** Where a decoded object came from: kube words and codes a decoding failure by it. */
export type DecodeSource = 'body' | 'patch';

function decodeError(
  definition: ResourceDefinition,
  object: Record<string, unknown>,
  failure: DecodeFailure,
  source: DecodeSource,
): ApiError {
  const message = failure.typeMeta
    ? `couldn't get version/kind; json parse error: ${failure.message}`
    : failure.message;
  if (source === 'body') {
    // k8s.io/apiserver pkg/endpoints/handlers/rest.go transformDecodeError: a 400.
    return ApiError.badRequest(
      failure.typeMeta
        ? `the object provided is unrecognized (must be of type ${definition.kind}): ${message}`
        : cannotBeHandled(definition, object, message),
    );
  }
  // handlers/patch.go: a patched object that does not decode is a 422 on `patch`.
  return ApiError.invalid({ kind: '' }, '', [
    fieldErrors.invalid('patch', jsonOrUndefined(object), message),
  ]);
}

/** The object as JSON text, or nothing when it is too deep for JSON.stringify. */
function jsonOrUndefined(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

/**
 * Decodes a request body or a patch result into an object of `definition`'s kind, as kube's
 * typed decode does: every field must have the Go type the schema source gives it (400 for a
 * body, 422 for a patch), nulls become Go zero values, and the kind's defaulting applies. `gvk`
 * names a body of another kind (pods/binding: Binding, deployments/scale: Scale).
 */
export function decodeTyped(
  definition: ResourceDefinition,
  value: unknown,
  source: DecodeSource,
  gvk?: SchemaGvk,
): KubeObject {
  if (!isRecord(value)) throw ApiError.badRequest('the body of the request must be a JSON object');
  const kind = gvk?.kind ?? definition.kind;
  const failure = decodeTypedObject(value, kind, schemaFor(gvk ?? definition)?.name);
  if (failure) throw decodeError({ ...definition, kind }, value, failure, source);
  const object = value as KubeObject;
  setObjectDefaults(object, gvk ?? definition);
  return object;
}

/**
 * decodeTyped into the resource's own kind, then its strategy's defaulting and conversion.
 * Every create, update and patch of a resource goes through here before the strategy sees it.
 */
export function decodeObject(
  { definition, strategy }: ServedResource,
  value: unknown,
  source: DecodeSource,
): KubeObject {
  const object = decodeTyped(definition, value, source);
  strategy.decode?.(object);
  return object;
}
