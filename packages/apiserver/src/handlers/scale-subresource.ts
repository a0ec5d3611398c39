import {
  ApiError,
  APPLY_PATCH_TYPES,
  parseGetOptions,
  type KubeObject,
  type Verb,
} from '@listwatch/api';
import { FieldManager } from '../fieldmanager/index.js';
import { applyPatch, patchMediaType, supportedPatchTypes } from '../patch/apply-patch.js';
import { cloneJson, type JsonObject } from '../patch/json-value.js';
import { unsupportedPatchType } from '../patch/patch-error.js';
import {
  fieldValidationOf,
  pruneUnknownFields,
  strictDecodingMessage,
  unknownFieldMessages,
} from '../registry/field-validation.js';
import { scaleDefinition, type ScaleREST } from '../registry/generic/scale-rest.js';
import type { UpdatedObjectInfo } from '../registry/rest/rest.js';
import { SCALE_GVK } from '../registry/autoscaling/scale.js';
import { decodeTyped, type DecodeSource } from '../registry/rest/decode.js';
import { decodeBody, readBody } from './body.js';
import { applyOptions, parseApplyPatch, updateManager } from './field-manager-params.js';
import { isDryRun, requireName, type RequestScope } from './request-scope.js';
import { writeObject } from './response.js';
import { addWarnings } from './warnings.js';
import { bodyKindOf, dropUnknownBodyFields, fromInput } from './write.js';

// The scale subresource's handlers (ScaleREST is registry/generic/scale-rest.ts): GET answers
// the parent as an autoscaling/v1 Scale; PUT and PATCH make the new Scale of the current one,
// which ScaleREST turns into an update of the parent. Every write is tracked on the Scale by
// its own field manager; PATCH with application/apply-patch+yaml applies a Scale (`kubectl
// apply --server-side --subresource=scale`).

/** The field manager of every scale subresource: writes tracked on autoscaling/v1 Scale. */
const scaleFieldManager = new FieldManager({
  gvk: SCALE_GVK,
  subresource: 'scale',
  hasStatusSubresource: false,
});

function decodeScale(scope: RequestScope, value: unknown, source: DecodeSource): KubeObject {
  return decodeTyped(scope.definition, value, source, SCALE_GVK);
}

/** What a write sends ScaleREST: the new Scale of the current one, every attempt anew. */
function scaleInfo(scope: RequestScope, next: (old: KubeObject) => KubeObject): UpdatedObjectInfo {
  return {
    updatedObject: (old) => {
      if (!old) throw ApiError.notFound(scope.gr, requireName(scope));
      return next(old);
    },
  };
}

/** PUT {resource}/{name}/scale: a whole Scale; its resourceVersion, if any, must be current. */
async function updateScale(scope: RequestScope, name: string, storage: ScaleREST) {
  const validation = fieldValidationOf(scope.query, 'UpdateOptions');
  const manager = updateManager(scope, 'UpdateOptions');
  const raw = await readBody(scope.ctx.req, scope.server.maxRequestBodyBytes);
  const definition = scaleDefinition(scope.definition);
  const incoming = fromInput(scope, () => {
    const object = decodeScale(scope, decodeBody(raw, scope.ctx.get('content-type')), 'body');
    return dropUnknownBodyFields(scope, bodyKindOf(definition), object, validation);
  });
  const info = scaleInfo(scope, (old) =>
    scaleFieldManager.update(
      old,
      cloneJson(incoming as unknown as JsonObject) as unknown as KubeObject,
      manager,
    ),
  );
  return storage.update(scope.context, name, info, { dryRun: isDryRun(scope) });
}

/**
 * PATCH {resource}/{name}/scale: the patch applies to the current Scale (what `kubectl scale`
 * sends: a merge patch of spec.replicas); a resourceVersion the patch sets is a precondition.
 */
async function patchScale(scope: RequestScope, name: string, storage: ScaleREST) {
  const validation = fieldValidationOf(scope.query, 'PatchOptions');
  const patch = await readBody(scope.ctx.req, scope.server.maxRequestBodyBytes);
  const contentType = scope.ctx.get('content-type');
  const schemaKind = { group: SCALE_GVK.group, kind: SCALE_GVK.kind };
  const accepted = supportedPatchTypes(schemaKind);
  if (APPLY_PATCH_TYPES.includes(patchMediaType(contentType)))
    return applyScale(scope, name, storage, patch);
  if (!accepted.includes(patchMediaType(contentType)))
    throw unsupportedPatchType([...accepted, ...APPLY_PATCH_TYPES]);
  const manager = updateManager(scope, 'PatchOptions');
  const definition = scaleDefinition(scope.definition);
  let unknown: string[] = [];
  const info = scaleInfo(scope, (old) => {
    const result = applyPatch(contentType, old as unknown as JsonObject, patch, schemaKind);
    const patched = decodeScale(scope, result, 'patch');
    unknown = pruneUnknownFields(definition, patched);
    if (unknown.length && validation === 'Strict')
      throw ApiError.badRequest(strictDecodingMessage(unknown));
    if (patched.metadata.resourceVersion === old.metadata.resourceVersion)
      delete patched.metadata.resourceVersion;
    return scaleFieldManager.update(old, patched, manager);
  });
  const updated = await storage.update(scope.context, name, info, { dryRun: isDryRun(scope) });
  if (validation === 'Warn') addWarnings(scope.ctx, unknownFieldMessages(unknown));
  return updated;
}

/**
 * PATCH {resource}/{name}/scale with an apply patch: the configuration, an autoscaling/v1 Scale,
 * is applied to the current Scale by the Scale's field manager (patch.go applyPatcher); a
 * conflict on spec.replicas names the manager of the parent's replicas.
 */
async function applyScale(scope: RequestScope, name: string, storage: ScaleREST, body: Buffer) {
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
  const info = scaleInfo(scope, (old) => {
    const applied = scaleFieldManager.apply(old, config, manager, force);
    const next = decodeScale(scope, applied, 'patch');
    if (next.metadata.resourceVersion === old.metadata.resourceVersion)
      delete next.metadata.resourceVersion;
    return next;
  });
  return storage.update(scope.context, name, info, { dryRun: isDryRun(scope) });
}

/** Serves `{resource}/{name}/scale` through the resource's ScaleREST. */
export async function serveScale(scope: RequestScope, storage: ScaleREST, verb: Verb) {
  const name = requireName(scope);
  let scale: KubeObject;
  switch (verb) {
    case 'get':
      scale = await storage.get(scope.context, name, parseGetOptions(scope.query));
      break;
    case 'update':
      scale = (await updateScale(scope, name, storage)).object;
      break;
    case 'patch':
      scale = (await patchScale(scope, name, storage)).object;
      break;
    default:
      throw ApiError.methodNotAllowed();
  }
  writeObject(scope.ctx, 200, scale);
}
