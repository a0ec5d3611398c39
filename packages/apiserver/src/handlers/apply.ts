import { ApiError, type KubeObject } from '@listwatch/api';
import { isStorageError } from '@listwatch/storage';
import type { JsonObject } from '../patch/json-value.js';
import { admit } from '../registry/admission.js';
import { pruneUnknownFields } from '../registry/field-validation.js';
import { admitNamespace } from '../registry/namespace-lifecycle.js';
import { decodeObject, prepareForCreate, prepareForUpdate } from '../registry/strategy.js';
import { applyOptions, fieldManagerOf, parseApplyPatch } from './field-manager.js';
import { interpret, isDryRun, objectKey, type RequestScope } from './request-scope.js';
import { writeObject } from './response.js';
import { patchMediaType } from '../patch/apply-patch.js';
import { fromInput, updateWith } from './write.js';

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
  const { definition, server } = scope;
  const { manager, force } = applyOptions(scope);
  const config = fromInput(scope, () => readConfiguration(scope, body, name));
  const fieldManager = fieldManagerOf(definition, subresource);
  const key = objectKey(scope, name);
  // The watch cache says first whether the object exists (patch.go's read is the cacher's);
  // a cached object deleted meanwhile is read again from storage.
  let cached = scope.source.cachedObject(key);
  for (;;) {
    const existing = cached ?? (await server.storage.get(key));
    if (!existing) {
      if (subresource) throw ApiError.notFound(scope.gr, name);
      const created = await createByApply(scope, name, key, fieldManager, config, manager, force);
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

/** An apply to a missing object creates it; undefined when someone created it meanwhile. */
async function createByApply(
  scope: RequestScope,
  name: string,
  key: string,
  fieldManager: ReturnType<typeof fieldManagerOf>,
  config: JsonObject,
  manager: string,
  force: boolean,
): Promise<KubeObject | undefined> {
  const { definition, server } = scope;
  const decoded = fromInput(scope, () =>
    withName(
      decodeObject(definition, fieldManager.apply(undefined, config, manager, force), 'patch'),
      name,
    ),
  );
  await admit(scope, 'CREATE', decoded);
  const object = fromInput(scope, () => prepareForCreate(definition, decoded, scope.namespace));
  if (scope.namespace !== undefined) await admitNamespace(server.registry, scope.namespace);
  if (isDryRun(scope)) return object;
  try {
    return await server.storage.create(key, object);
  } catch (err) {
    if (isStorageError(err, 'KeyExists')) return undefined;
    throw interpret(scope, name, err);
  }
}
