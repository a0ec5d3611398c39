import { ApiError, type KubeObject } from '@listwatch/api';
import type { JsonObject } from '../patch/json-value.js';
import { admit } from '../registry/admission.js';
import { pruneUnknownFields } from '../registry/field-validation.js';
import { decodeObject, prepareForUpdate } from '../registry/strategy.js';
import { applyOptions, fieldManagerOf, parseApplyPatch } from './field-manager.js';
import { objectKey, type RequestScope } from './request-scope.js';
import { writeObject } from './response.js';
import { patchMediaType } from '../patch/apply-patch.js';
import { allocate, createDecoded, fromInput, updateWith } from './write.js';

// PATCH with `application/apply-patch+yaml`: server-side apply (k8s.io/apiserver
// pkg/endpoints/handlers/patch.go applyPatcher). The configuration is merged into the live
// object by the fieldmanager; an apply to a missing object creates it (201); an apply that
// changes nothing writes nothing, so the resourceVersion stays.

/**
 * The applied configuration as a typed object: fields the kind does not have are refused, as
 * the typed conversion of structured-merge-diff refuses them, whatever fieldValidation says.
 */
function readConfiguration(scope: RequestScope, body: Buffer, name: string): JsonObject {
  const config = parseApplyPatch(body, patchMediaType(scope.ctx.get('content-type')));
  const unknown = pruneUnknownFields(scope.definition, config as unknown as KubeObject);
  if (unknown.length) {
    const meta = (config['metadata'] ?? {}) as { namespace?: string };
    const { group, version, kind } = scope.definition;
    throw ApiError.badRequest(
      `failed to create typed patch object (${meta.namespace ?? ''}/${name}; ${group}/${version}, Kind=${kind}): .${unknown[0] ?? ''}: field not declared in schema`,
    );
  }
  return config;
}

/** The name the configuration gives must be the URL's (patch.go checks it the same way). */
function withName(object: KubeObject, name: string): KubeObject {
  object.metadata ??= {};
  if (object.metadata.name === undefined || object.metadata.name === '') {
    object.metadata.name = name;
  }
  if (object.metadata.name !== name) {
    throw ApiError.badRequest(
      `the name of the object (${object.metadata.name}) does not match the name on the URL (${name})`,
    );
  }
  return object;
}

export async function applyObject(
  scope: RequestScope,
  name: string,
  subresource: string | undefined,
  body: Buffer,
): Promise<void> {
  const { definition } = scope;
  const { manager, force } = applyOptions(scope);
  const config = fromInput(scope, () => readConfiguration(scope, body, name));
  const fieldManager = fieldManagerOf(definition, subresource);
  const key = objectKey(scope, name);
  // The watch cache says first whether the object exists (patch.go's read is the cacher's);
  // a cached object deleted meanwhile is read again from storage.
  let cached = scope.source.cachedObject(key);
  for (;;) {
    const existing = cached ?? (await scope.storage.get(key));
    if (!existing) {
      if (subresource) throw ApiError.notFound(scope.gr, name);
      const created = await createByApply(scope, name, fieldManager, config, manager, force);
      if (created) return writeObject(scope.ctx, 201, created, definition);
      continue;
    }
    const update = updateWith(scope, name, async (current) => {
      const next = fromInput(scope, () => {
        const applied = fieldManager.apply(current, config, manager, force);
        const decoded = withName(decodeObject(definition, applied, 'patch'), name);
        const requested = decoded.metadata.resourceVersion;
        const prepared = prepareForUpdate(definition, decoded, current, subresource);
        // A status write keeps the stored metadata but for managedFields (ResetObjectMetaForStatus).
        if (decoded.metadata.managedFields)
          prepared.metadata.managedFields = decoded.metadata.managedFields;
        else delete prepared.metadata.managedFields;
        // A resourceVersion the configuration sets is a precondition.
        if (requested !== undefined && requested !== current.metadata.resourceVersion)
          prepared.metadata.resourceVersion = requested;
        else delete prepared.metadata.resourceVersion;
        return prepared;
      });
      if (subresource === undefined) await allocate(scope, next, current);
      await admit(scope, 'UPDATE', next, current);
      return next;
    });
    const updated = await update.catch((err: unknown) => {
      if (cached && err instanceof ApiError && err.code === 404) return undefined;
      throw err;
    });
    if (updated) return writeObject(scope.ctx, 200, updated, definition);
    cached = undefined;
  }
}

/**
 * An apply to a missing object creates it through the steps of every create; undefined when
 * someone created it meanwhile (the caller then applies to that object).
 */
async function createByApply(
  scope: RequestScope,
  name: string,
  fieldManager: ReturnType<typeof fieldManagerOf>,
  config: JsonObject,
  manager: string,
  force: boolean,
): Promise<KubeObject | undefined> {
  const decoded = fromInput(scope, () =>
    withName(
      decodeObject(
        scope.definition,
        fieldManager.apply(undefined, config, manager, force),
        'patch',
      ),
      name,
    ),
  );
  return createDecoded(scope, decoded).catch((err: unknown) => {
    if (err instanceof ApiError && err.reason === 'AlreadyExists') return undefined;
    throw err;
  });
}
