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
import { genericObjectStructural } from '../../apiextensions/schema/builtin.js';
import { pruneAndDefaultVisitor } from '../../apiextensions/schema/decode-visitor.js';
import { applyDefaults } from '../../apiextensions/schema/defaulting.js';
import { pruneAndDefault } from '../../apiextensions/schema/prune-and-default.js';
import { prune } from '../../apiextensions/schema/pruning.js';
import { builtinDefaulters } from '../defaulting.js';
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
 * names a body of another kind (pods/binding: Binding, deployments/scale: Scale). With
 * `unknown`, the fields the kind does not have are dropped too and their paths pushed there:
 * a built-in kind's body is then walked once, pruned, decoded and defaulted in one pass over its
 * structural schema (apiextensions/schema), as kube's decoder does it into Go structs.
 */
export function decodeTyped(
  definition: ResourceDefinition,
  value: unknown,
  source: DecodeSource,
  gvk?: SchemaGvk,
  unknown?: string[],
): KubeObject {
  return decodeAs(
    definition,
    value,
    source,
    gvk?.kind,
    schemaFor(gvk ?? definition)?.name,
    unknown,
  );
}

/** decodeTyped of a body of `kind`, its type `typeName` in the schema source (none: a CRD's). */
function decodeAs(
  definition: ResourceDefinition,
  value: unknown,
  source: DecodeSource,
  kind = definition.kind,
  typeName: string | undefined,
  unknown: string[] | undefined,
): KubeObject {
  if (!isRecord(value)) throw ApiError.badRequest('the body of the request must be a JSON object');
  const visitor =
    typeName || unknown ? pruneAndDefaultVisitor(unknown, builtinDefaulters) : undefined;
  const failure = decodeTypedObject(value, kind, typeName, visitor);
  if (failure) throw decodeError({ ...definition, kind }, value, failure, source);
  return value as KubeObject;
}

/**
 * decodeTyped into the resource's own kind, then its strategy's defaulting and conversion.
 * Every create, update and patch of a resource goes through here before the strategy sees it.
 * A kind the schema source lacks (a custom resource) is defaulted by its strategy's structural
 * schema and, with `unknown`, pruned by it in the same walk (its metadata was pruned by the
 * decode); without a structural schema it is kept as TypeMeta, spec and status.
 */
export function decodeObject(
  { definition, strategy }: ServedResource,
  value: unknown,
  source: DecodeSource,
  unknown?: string[],
): KubeObject {
  const typeName = schemaFor(definition)?.name;
  const object = decodeAs(definition, value, source, undefined, typeName, unknown);
  if (typeName === undefined) {
    const { structural } = strategy;
    if (structural && unknown) unknown.push(...pruneAndDefault(object, structural));
    else if (structural) applyDefaults(object, structural);
    else if (unknown) unknown.push(...prune(object, genericObjectStructural()));
  }
  strategy.decode?.(object);
  return object;
}
