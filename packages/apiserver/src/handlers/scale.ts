import {
  ApiError,
  parseGetOptions,
  type KubeObject,
  type ResourceDefinition,
  type Verb,
} from '@listwatch/api';
import { applyPatch, patchMediaType, supportedPatchTypes } from '../patch/apply-patch.js';
import { cloneJson, type JsonObject } from '../patch/json-value.js';
import { unsupportedPatchType } from '../patch/patch-error.js';
import {
  fieldValidationOf,
  pruneUnknownFields,
  strictDecodingMessage,
  unknownFieldMessages,
} from '../registry/field-validation.js';
import { SCALE_GVK, validateScale, type ScaleStrategy } from '../registry/scale.js';
import {
  checkTypeMeta,
  decodeObject,
  prepareForUpdate,
  strategyOf,
  type DecodeSource,
} from '../registry/strategy.js';
import { decodeBody, readBody } from './body.js';
import { readObject } from './read.js';
import { noSuchResource, requireName, type RequestScope } from './request-scope.js';
import { writeObject } from './response.js';
import { addWarnings } from './warnings.js';
import { dropUnknownBodyFields, fromInput, updateWith } from './write.js';

// The scale subresource as kube-apiserver serves it for deployments and replicasets
// (pkg/registry/apps/deployment/storage/storage.go ScaleREST): GET reads the parent as an
// autoscaling/v1 Scale; PUT and PATCH turn the new Scale into an update of the parent's
// spec.replicas, which then takes the parent's own update path (resourceVersion precondition,
// strategy, generation).

/** The Scale kind where the main resource's definition is expected (type meta, schema). */
function scaleDefinition(definition: ResourceDefinition): ResourceDefinition {
  return { ...definition, ...SCALE_GVK, listKind: 'ScaleList' };
}

function decodeScale(scope: RequestScope, value: unknown, source: DecodeSource): KubeObject {
  return decodeObject(scope.definition, value, source, SCALE_GVK);
}

/**
 * scaleUpdatedObjectInfo.UpdatedObject: the parent with the Scale's replicas, after the update
 * handler's name check, ValidateScale and the Scale's uid precondition. The Scale's
 * resourceVersion becomes the parent's precondition (none: unconditional).
 */
function scaledParent(
  scope: RequestScope,
  scale: ScaleStrategy,
  current: KubeObject,
  next: KubeObject,
): KubeObject {
  const { definition } = scope;
  checkTypeMeta(scaleDefinition(definition), next);
  const name = current.metadata.name ?? '';
  if (next.metadata.name !== undefined && next.metadata.name !== name) {
    throw ApiError.badRequest(
      `the name of the object (${next.metadata.name}) does not match the name on the URL (${name})`,
    );
  }
  if (definition.namespaced && next.metadata.namespace) {
    if (next.metadata.namespace !== current.metadata.namespace)
      throw ApiError.badRequest(
        'the namespace of the provided object does not match the namespace sent on the request',
      );
  }
  next.metadata.name = name;
  if (definition.namespaced) next.metadata.namespace = current.metadata.namespace ?? '';
  validateScale(next, definition.namespaced);
  const uid = next.metadata.uid;
  if (uid && uid !== current.metadata.uid) {
    throw ApiError.conflict(
      { group: definition.group, resource: `${definition.plural}/scale` },
      name,
      `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${current.metadata.uid ?? ''}`,
    );
  }
  const updated = prepareForUpdate(definition, scale.withScale(current, next), current, undefined);
  const precondition = next.metadata.resourceVersion;
  if (precondition) updated.metadata.resourceVersion = precondition;
  else delete updated.metadata.resourceVersion;
  return updated;
}

/** PUT {resource}/{name}/scale: a whole Scale; its resourceVersion, if any, must be current. */
async function updateScale(scope: RequestScope, name: string, scale: ScaleStrategy) {
  const validation = fieldValidationOf(scope.query, 'UpdateOptions');
  const raw = await readBody(scope.ctx.req, scope.server.maxRequestBodyBytes);
  const definition = scaleDefinition(scope.definition);
  const incoming = fromInput(scope, () => {
    const object = decodeScale(scope, decodeBody(raw, scope.ctx.get('content-type')), 'body');
    return dropUnknownBodyFields(scope, definition, object, validation);
  });
  return updateWith(scope, name, (current) =>
    fromInput(scope, () =>
      scaledParent(
        scope,
        scale,
        current,
        cloneJson(incoming as unknown as JsonObject) as unknown as KubeObject,
      ),
    ),
  );
}

/**
 * PATCH {resource}/{name}/scale: the patch applies to the current Scale (what `kubectl scale`
 * sends: a merge patch of spec.replicas); a resourceVersion the patch sets is a precondition.
 */
async function patchScale(scope: RequestScope, name: string, scale: ScaleStrategy) {
  const validation = fieldValidationOf(scope.query, 'PatchOptions');
  const patch = await readBody(scope.ctx.req, scope.server.maxRequestBodyBytes);
  const contentType = scope.ctx.get('content-type');
  const schemaKind = { group: SCALE_GVK.group, kind: SCALE_GVK.kind };
  const accepted = supportedPatchTypes(schemaKind);
  if (!accepted.includes(patchMediaType(contentType))) throw unsupportedPatchType(accepted);
  const definition = scaleDefinition(scope.definition);
  let unknown: string[] = [];
  const updated = await updateWith(scope, name, (current) =>
    fromInput(scope, () => {
      const old = scale.toScale(current);
      const result = applyPatch(contentType, old as unknown as JsonObject, patch, schemaKind);
      const patched = decodeScale(scope, result, 'patch');
      unknown = pruneUnknownFields(definition, patched);
      if (unknown.length && validation === 'Strict')
        throw ApiError.badRequest(strictDecodingMessage(unknown));
      if (patched.metadata.resourceVersion === old.metadata.resourceVersion)
        delete patched.metadata.resourceVersion;
      return scaledParent(scope, scale, current, patched);
    }),
  );
  if (validation === 'Warn') addWarnings(scope.ctx, unknownFieldMessages(unknown));
  return updated;
}

/**
 * Serves `{resource}/{name}/scale` for a resource whose definition lists the subresource and
 * whose strategy converts it; anything else has no such path (404).
 */
export async function serveScale(scope: RequestScope, verb: Verb): Promise<void> {
  const scale = scope.definition.subresources.includes('scale')
    ? strategyOf(scope.definition).scale
    : undefined;
  if (!scale) throw noSuchResource();
  const name = requireName(scope);
  let parent: KubeObject;
  switch (verb) {
    case 'get':
      parent = await readObject(scope, name, parseGetOptions(scope.query));
      break;
    case 'update':
      parent = await updateScale(scope, name, scale);
      break;
    case 'patch':
      parent = await patchScale(scope, name, scale);
      break;
    default:
      throw ApiError.methodNotAllowed(
        'the server does not allow this method on the requested resource',
      );
  }
  writeObject(scope.ctx, 200, scale.toScale(parent));
}
