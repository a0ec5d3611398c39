import { ApiError, type KubeObject } from '@listwatch/api';
import type { JsonObject } from '../patch/json-value.js';
import type { Updater } from '../registry/rest/rest.js';
import { decodeObject } from '../registry/rest/decode.js';
import { applyOptions, fieldManagerOf, parseApplyPatch } from './field-manager-params.js';
import { isDryRun, type RequestScope } from './request-scope.js';
import { writeObject } from './response.js';
import { patchMediaType } from '../patch/apply-patch.js';
import { fromInput } from './write.js';

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
  const unknown = scope.store.pruneUnknownFields(config as unknown as KubeObject);
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

/**
 * An apply: the configuration merged into the stored object by the field manager, or into
 * nothing when there is none (a create through the Store's create steps, 201).
 */
export async function applyObject(
  scope: RequestScope,
  storage: Updater,
  name: string,
  body: Buffer,
): Promise<void> {
  const { definition } = scope;
  const { subresource } = scope.info;
  const { manager, force } = applyOptions(scope);
  const dryRun = isDryRun(scope);
  const config = fromInput(scope, () => readConfiguration(scope, body, name));
  const fieldManager = fieldManagerOf(scope.store, subresource);
  const { object, created } = await storage.update(
    scope.context,
    name,
    {
      updatedObject: (current) =>
        withName(
          decodeObject(scope.store, fieldManager.apply(current, config, manager, force), 'patch'),
          name,
        ),
      // A status write keeps the stored metadata but for managedFields (ResetObjectMetaForStatus).
      managedFields: (prepared, _current, sent) => {
        if (sent.metadata.managedFields)
          prepared.metadata.managedFields = sent.metadata.managedFields;
        else delete prepared.metadata.managedFields;
        return prepared;
      },
    },
    { dryRun, forceAllowCreate: subresource === undefined },
  );
  writeObject(scope.ctx, created ? 201 : 200, object, definition);
}
