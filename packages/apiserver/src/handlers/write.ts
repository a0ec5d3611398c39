import {
  ApiError,
  APPLY_PATCH_TYPES,
  type KubeObject,
  type ResourceDefinition,
} from '@listwatch/api';
import { DuplicateMapKeyError, type DuplicateField } from '@listwatch/codec';
import { applyPatch, patchMediaType, supportedPatchTypes } from '../patch/apply-patch.js';
import { unsupportedPatchType } from '../patch/patch-error.js';
import { cloneJson, type JsonObject } from '../patch/json-value.js';
import {
  cannotBeHandled,
  duplicateFieldMessages,
  duplicateFieldPaths,
  fieldValidationOf,
  pruneUnknownFields,
  strictBodyError,
  strictDecodingMessage,
  unknownFieldMessages,
  type FieldValidation,
  type WriteOptionsKind,
} from '../registry/field-validation.js';
import type { SubresourceCreateREST } from '../registry/generic/subresource-storages.js';
import { fromInput as fromClientInput } from '../registry/rest/input.js';
import type { ManagedFieldsStep, RESTStorage, Updater } from '../registry/rest/rest.js';
import { checkObjectName } from '../registry/rest/update.js';
import { decodeObject, decodeTyped } from '../registry/rest/decode.js';
import { applyObject } from './apply.js';
import { decodeBody, readBody } from './body.js';
import { refuseForce, trackUpdate, updateManager } from './field-manager-params.js';
import { isDryRun, requireName, type RequestScope } from './request-scope.js';
import { writeObject } from './response.js';
import { addWarnings } from './warnings.js';

export async function body(scope: RequestScope): Promise<Buffer> {
  return readBody(scope.ctx.req, scope.server.maxRequestBodyBytes);
}

/** Runs a step on the client's input: anything but an ApiError thrown there is a 400. */
export function fromInput<T>(scope: RequestScope, step: () => T): T {
  return fromClientInput(scope.context, step);
}

/**
 * The kind of a body: its definition and how its unknown fields are dropped (the resource's
 * own kind: its Store's pruning).
 */
export interface BodyKind {
  definition: ResourceDefinition;
  pruneUnknownFields(object: KubeObject): string[];
}

/** A subresource's body kind (Scale, TokenRequest): the schema source prunes it. */
export function bodyKindOf(definition: ResourceDefinition): BodyKind {
  return { definition, pruneUnknownFields: (object) => pruneUnknownFields(definition, object) };
}

/**
 * Drops a decoded body's unknown fields, as fieldValidation says: a 400 naming them (Strict), a
 * Warning header each (Warn), or silently (Ignore).
 */
export function dropUnknownBodyFields(
  scope: RequestScope,
  kind: BodyKind,
  object: KubeObject,
  validation: FieldValidation,
  duplicated: readonly DuplicateField[] = [],
): KubeObject {
  return reportUnknownBodyFields(
    scope,
    kind.definition,
    object,
    validation,
    kind.pruneUnknownFields(object),
    duplicated,
  );
}

/** What fieldValidation makes of a body's unknown (already dropped) and duplicated fields. */
function reportUnknownBodyFields(
  scope: RequestScope,
  definition: ResourceDefinition,
  object: KubeObject,
  validation: FieldValidation,
  unknown: readonly string[],
  duplicated: readonly DuplicateField[] = [],
): KubeObject {
  const duplicates = duplicated.length ? duplicateFieldPaths(definition, duplicated) : [];
  if (validation === 'Strict' && (unknown.length || duplicates.length))
    throw strictBodyError(definition, object, unknown, duplicates);
  if (validation === 'Warn' && (unknown.length || duplicates.length))
    addWarnings(scope.ctx, [
      ...unknownFieldMessages(unknown),
      ...duplicateFieldMessages(duplicates),
    ]);
  return object;
}

/**
 * decodeBody, its CBOR duplicate-key error worded as transformDecodeError words a body that
 * cannot be decoded into the kind (`ConfigMap in version "v1" cannot be handled as a ...`).
 */
function decodeBodyAs(
  definition: ResourceDefinition,
  raw: Buffer,
  contentType: string,
  duplicates?: DuplicateField[],
): unknown {
  try {
    return decodeBody(raw, contentType, duplicates);
  } catch (err) {
    if (err instanceof DuplicateMapKeyError)
      throw ApiError.badRequest(cannotBeHandled(definition, {}, err.detail));
    throw err;
  }
}

/** Decodes a create/update body and drops its unknown fields, as fieldValidation says. */
export async function decodeWriteBody(
  scope: RequestScope,
  optionsKind: WriteOptionsKind,
): Promise<KubeObject> {
  const validation = fieldValidationOf(scope.query, optionsKind);
  const raw = await body(scope);
  return fromInput(scope, () => {
    // Duplicated keys are looked for only where they cost something (Warn, Strict).
    const duplicates: DuplicateField[] | undefined = validation === 'Ignore' ? undefined : [];
    const decoded = decodeBodyAs(scope.definition, raw, scope.ctx.get('content-type'), duplicates);
    // One pass: unknown fields dropped, the rest decoded and defaulted.
    const unknown: string[] = [];
    const object = decodeObject(scope.store, decoded, 'body', unknown);
    return reportUnknownBodyFields(
      scope,
      scope.definition,
      object,
      validation,
      unknown,
      duplicates,
    );
  });
}

/** The storage of the request's path, as routed (routes.ts made sure it implements the verb). */
function routedStorage(scope: RequestScope): RESTStorage {
  const storage = scope.store.restStorage(scope.info.subresource);
  if (!storage) throw ApiError.pathNotFound();
  return storage;
}

/** The field manager's step of an update or patch, on the subresource written. */
function managedFieldsOf(scope: RequestScope, manager: string): ManagedFieldsStep {
  const { subresource } = scope.info;
  return (next, current) => trackUpdate(scope, current, next, subresource, manager);
}

/** POST a new object (201): decoded here, created by the Store. */
export async function createObject(scope: RequestScope): Promise<void> {
  const { definition } = scope;
  if (definition.namespaced && scope.namespace === undefined) {
    throw ApiError.methodNotAllowed();
  }
  const storage = routedStorage(scope);
  if (!storage.create) throw ApiError.methodNotAllowed();
  const dryRun = isDryRun(scope);
  const manager = updateManager(scope, 'CreateOptions');
  const decoded = await decodeWriteBody(scope, 'CreateOptions');
  const created = await storage.create(scope.context, undefined, decoded, {
    dryRun,
    managedFields: (object) => trackUpdate(scope, undefined, object, undefined, manager),
  });
  writeObject(scope.ctx, 201, created, definition);
}

/** PUT: replace the object (or its status, or a PUT-only subresource such as finalize). */
export async function updateObject(scope: RequestScope): Promise<void> {
  const name = requireName(scope);
  const storage = routedStorage(scope);
  if (!storage.update) throw ApiError.methodNotAllowed();
  const dryRun = isDryRun(scope);
  const manager = updateManager(scope, 'UpdateOptions');
  const incoming = await decodeWriteBody(scope, 'UpdateOptions');
  // Before anything is read: a body for another object is a 400, not the 404 of the URL's name.
  checkObjectName(incoming, name);
  const { object } = await storage.update(
    scope.context,
    name,
    {
      // A retry starts from the body as sent: the strategy changes what it is given.
      updatedObject: () => cloneJson(incoming as unknown as JsonObject) as unknown as KubeObject,
      managedFields: managedFieldsOf(scope, manager),
    },
    { dryRun },
  );
  writeObject(scope.ctx, 200, object, scope.definition);
}

/** PATCH: merge, JSON or strategic merge patch applied to the current state, retried on conflict. */
export async function patchObject(scope: RequestScope): Promise<void> {
  const name = requireName(scope);
  const storage = routedStorage(scope);
  if (!storage.update) throw ApiError.methodNotAllowed();
  const validation = fieldValidationOf(scope.query, 'PatchOptions');
  const patch = await body(scope);
  const contentType = scope.ctx.get('content-type');
  const { definition } = scope;
  // An unsupported patch type is 415 before the object is even read.
  const accepted = supportedPatchTypes({ group: definition.group, kind: definition.kind });
  if (APPLY_PATCH_TYPES.includes(patchMediaType(contentType)))
    return applyObject(scope, storage as Updater, name, patch);
  if (!accepted.includes(patchMediaType(contentType)))
    throw unsupportedPatchType([...accepted, ...APPLY_PATCH_TYPES]);
  refuseForce(scope);
  const dryRun = isDryRun(scope);
  const manager = updateManager(scope, 'PatchOptions');
  let unknown: string[] = [];
  const { object } = await storage.update(
    scope.context,
    name,
    {
      updatedObject: (current) => {
        if (!current) throw ApiError.notFound(scope.gr, name);
        const result = applyPatch(contentType, current as unknown as JsonObject, patch, {
          group: definition.group,
          kind: definition.kind,
        });
        // The patched object is decoded, strictly (patch.go applyPatchToCurrentObject).
        unknown = [];
        const patched = decodeObject(scope.store, result, 'patch', unknown);
        if (unknown.length && validation === 'Strict')
          throw ApiError.badRequest(strictDecodingMessage(unknown));
        return patched;
      },
      managedFields: managedFieldsOf(scope, manager),
    },
    { dryRun },
  );
  if (validation === 'Warn') addWarnings(scope.ctx, unknownFieldMessages(unknown));
  writeObject(scope.ctx, 200, object, definition);
}

/**
 * POST {resource}/{name}/{subresource} (pods/binding): the body, decoded as the subresource's
 * kind, goes to its storage, which changes the parent; the answer is a 201 Success Status, as
 * BindingREST.Create gives.
 */
export async function createSubresource(
  scope: RequestScope,
  storage: SubresourceCreateREST,
): Promise<void> {
  const name = requireName(scope);
  const raw = await body(scope);
  const decoded = fromInput(scope, () =>
    decodeTyped(
      scope.definition,
      decodeBody(raw, scope.ctx.get('content-type')),
      'body',
      storage.strategy.gvk,
    ),
  );
  const dryRun = isDryRun(scope);
  writeObject(scope.ctx, 201, await storage.create(scope.context, name, decoded, { dryRun }));
}
