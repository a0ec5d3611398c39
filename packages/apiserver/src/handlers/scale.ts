import {
  ApiError,
  APPLY_PATCH_TYPES,
  apiVersionOf,
  parseGetOptions,
  type KubeObject,
  type ResourceDefinition,
  type Verb,
} from '@listwatch/api';
import {
  FieldManager,
  parentEntries,
  scaleEntries,
  type ReplicasPathMappings,
} from '../fieldmanager/index.js';
import { applyPatch, patchMediaType, supportedPatchTypes } from '../patch/apply-patch.js';
import { cloneJson, type JsonObject, type JsonValue } from '../patch/json-value.js';
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
import { applyOptions, parseApplyPatch, updateManager } from './field-manager.js';
import { readObject } from './read.js';
import { requireName, type RequestScope } from './request-scope.js';
import { writeObject } from './response.js';
import { addWarnings } from './warnings.js';
import { dropUnknownBodyFields, fromInput, updateWith } from './write.js';

// The scale subresource as kube-apiserver serves it for deployments and replicasets
// (pkg/registry/apps/deployment/storage/storage.go ScaleREST): GET reads the parent as an
// autoscaling/v1 Scale; PUT and PATCH turn the new Scale into an update of the parent's
// spec.replicas, which then takes the parent's own update path (resourceVersion precondition,
// strategy, generation). Every write is tracked on the Scale by its own field manager and its
// ownership of spec.replicas moved onto the parent's replicas path (the managedFieldsHandler of
// scaleUpdatedObjectInfo, k8s.io/apimachinery/pkg/util/managedfields/scalehandler.go); PATCH
// with application/apply-patch+yaml applies a Scale (`kubectl apply --server-side
// --subresource=scale`).

/** The field manager of every scale subresource: writes tracked on autoscaling/v1 Scale. */
const scaleFieldManager = new FieldManager({
  gvk: SCALE_GVK,
  subresource: 'scale',
  hasStatusSubresource: false,
});

const SPEC_REPLICAS = [{ field: 'spec' }, { field: 'replicas' }];

function replicasPaths(definition: ResourceDefinition, scale: ScaleStrategy): ReplicasPathMappings {
  return scale.replicasPaths ?? new Map([[apiVersionOf(definition), SPEC_REPLICAS]]);
}

/** The parent as a Scale, owned as the parent's replicas are (ScaleHandler.ToSubresource). */
function currentScale(
  definition: ResourceDefinition,
  scale: ScaleStrategy,
  current: KubeObject,
): KubeObject {
  const old = scale.toScale(current);
  let entries: unknown[] | undefined;
  try {
    entries = scaleEntries(current.metadata.managedFields, replicasPaths(definition, scale));
  } catch {
    // Entries that do not decode are the parent's to keep; the Scale starts untracked.
    entries = undefined;
  }
  if (entries) old.metadata.managedFields = entries as unknown as JsonValue[];
  return old;
}

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
  // ScaleHandler.ToParent: who wrote the Scale's spec.replicas owns the parent's replicas.
  let entries: unknown[] | undefined;
  try {
    entries = parentEntries(
      current.metadata.managedFields,
      next.metadata.managedFields,
      apiVersionOf(definition),
      replicasPaths(definition, scale),
    );
  } catch {
    entries = current.metadata.managedFields;
  }
  if (entries) updated.metadata.managedFields = entries as unknown as JsonValue[];
  else delete updated.metadata.managedFields;
  return updated;
}

/** PUT {resource}/{name}/scale: a whole Scale; its resourceVersion, if any, must be current. */
async function updateScale(scope: RequestScope, name: string, scale: ScaleStrategy) {
  const validation = fieldValidationOf(scope.query, 'UpdateOptions');
  const manager = updateManager(scope, 'UpdateOptions');
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
        scaleFieldManager.update(
          currentScale(scope.definition, scale, current),
          cloneJson(incoming as unknown as JsonObject) as unknown as KubeObject,
          manager,
        ),
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
  if (APPLY_PATCH_TYPES.includes(patchMediaType(contentType)))
    return applyScale(scope, name, scale, patch);
  if (!accepted.includes(patchMediaType(contentType)))
    throw unsupportedPatchType([...accepted, ...APPLY_PATCH_TYPES]);
  const manager = updateManager(scope, 'PatchOptions');
  const definition = scaleDefinition(scope.definition);
  let unknown: string[] = [];
  const updated = await updateWith(scope, name, (current) =>
    fromInput(scope, () => {
      const old = currentScale(scope.definition, scale, current);
      const result = applyPatch(contentType, old as unknown as JsonObject, patch, schemaKind);
      const patched = decodeScale(scope, result, 'patch');
      unknown = pruneUnknownFields(definition, patched);
      if (unknown.length && validation === 'Strict')
        throw ApiError.badRequest(strictDecodingMessage(unknown));
      if (patched.metadata.resourceVersion === old.metadata.resourceVersion)
        delete patched.metadata.resourceVersion;
      return scaledParent(scope, scale, current, scaleFieldManager.update(old, patched, manager));
    }),
  );
  if (validation === 'Warn') addWarnings(scope.ctx, unknownFieldMessages(unknown));
  return updated;
}

/**
 * PATCH {resource}/{name}/scale with an apply patch: the configuration, an autoscaling/v1 Scale,
 * is applied to the current Scale by the Scale's field manager (patch.go applyPatcher); a
 * conflict on spec.replicas names the manager of the parent's replicas.
 */
async function applyScale(
  scope: RequestScope,
  name: string,
  scale: ScaleStrategy,
  body: Buffer,
): Promise<KubeObject> {
  const { manager, force } = applyOptions(scope);
  const definition = scaleDefinition(scope.definition);
  const config = fromInput(scope, () => {
    const parsed = parseApplyPatch(body, patchMediaType(scope.ctx.get('content-type')));
    // Another kind is the field manager's 400 (versioncheck.go), before any typed conversion.
    const isScale =
      parsed['apiVersion'] === `${SCALE_GVK.group}/${SCALE_GVK.version}` &&
      parsed['kind'] === SCALE_GVK.kind;
    const unknown = isScale ? pruneUnknownFields(definition, parsed as unknown as KubeObject) : [];
    if (unknown.length) {
      throw ApiError.badRequest(
        `failed to create typed patch object (${scope.namespace ?? ''}/${name}; autoscaling/v1, Kind=Scale): .${unknown[0] ?? ''}: field not declared in schema`,
      );
    }
    return parsed;
  });
  return updateWith(scope, name, (current) =>
    fromInput(scope, () => {
      const old = currentScale(scope.definition, scale, current);
      const applied = scaleFieldManager.apply(old, config, manager, force);
      const next = decodeScale(scope, applied, 'patch');
      if (next.metadata.resourceVersion === old.metadata.resourceVersion)
        delete next.metadata.resourceVersion;
      return scaledParent(scope, scale, current, next);
    }),
  );
}

/**
 * Serves `{resource}/{name}/scale` for a resource whose definition lists the subresource and
 * whose strategy converts it; anything else has no such path (404).
 */
export async function serveScale(scope: RequestScope, verb: Verb): Promise<void> {
  const scale = scope.definition.subresources.includes('scale')
    ? strategyOf(scope.definition).scale
    : undefined;
  if (!scale) throw ApiError.pathNotFound();
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
      throw ApiError.methodNotAllowed();
  }
  writeObject(scope.ctx, 200, scale.toScale(parent));
}
