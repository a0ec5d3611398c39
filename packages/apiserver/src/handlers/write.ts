import {
  ApiError,
  APPLY_PATCH_TYPES,
  successStatus,
  type KubeObject,
  type ResourceDefinition,
} from '@listwatch/api';
import { DuplicateMapKeyError, type DuplicateField } from '@listwatch/codec';
import { isStorageError } from '@listwatch/storage';
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
import { admit } from '../registry/admission.js';
import { admitNamespace } from '../registry/namespace-lifecycle.js';
import {
  decodeObject,
  prepareForCreate,
  prepareForUpdate,
  strategyOf,
  subresourceStrategyOf,
  checkObjectName,
  type SubresourceStrategy,
} from '../registry/strategy.js';
import { applyObject } from './apply.js';
import { decodeBody, readBody } from './body.js';
import { refuseForce, trackUpdate, updateManager } from './field-manager.js';
import { interpret, isDryRun, objectKey, requireName, type RequestScope } from './request-scope.js';
import { writeObject } from './response.js';
import { addWarnings } from './warnings.js';

async function body(scope: RequestScope): Promise<Buffer> {
  return readBody(scope.ctx.req, scope.server.maxRequestBodyBytes);
}

function isStackOverflow(err: unknown): boolean {
  return err instanceof RangeError && /call stack/i.test(err.message);
}

/**
 * Runs a step that works on what the client sent (decoding, patching, the strategy). ApiErrors
 * pass; anything else thrown there is, as far as the client can tell, its input's doing: a 400,
 * never a 500. A stack overflow is expected (JSON within kube's 10000 levels can still be too
 * deep for recursion here); anything else means a check is missing, so it is logged.
 */
export function fromInput<T>(scope: RequestScope, step: () => T): T {
  try {
    return step();
  } catch (err) {
    if (err instanceof ApiError) throw err;
    if (isStackOverflow(err))
      throw ApiError.badRequest('the object is nested too deeply to be processed');
    scope.server.logger.warn('a write failed on its input', {
      method: scope.ctx.method,
      path: scope.ctx.path,
      error: err instanceof Error ? (err.stack ?? err.message) : String(err),
    });
    const message = err instanceof Error ? err.message : String(err);
    throw ApiError.badRequest(`the request could not be processed: ${message}`);
  }
}

/**
 * Drops a decoded body's unknown fields, as fieldValidation says: a 400 naming them (Strict), a
 * Warning header each (Warn), or silently (Ignore). `definition` is the body's kind's (a
 * subresource's Scale or TokenRequest).
 */
export function dropUnknownBodyFields(
  scope: RequestScope,
  definition: ResourceDefinition,
  object: KubeObject,
  validation: FieldValidation,
  duplicated: readonly DuplicateField[] = [],
): KubeObject {
  const unknown = pruneUnknownFields(definition, object);
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
    const object = decodeObject(scope.definition, decoded, 'body');
    return dropUnknownBodyFields(scope, scope.definition, object, validation, duplicates);
  });
}

/** The strategy's allocations (a Service's cluster IP) for what is about to be written. */
export async function allocate(scope: RequestScope, object: KubeObject, current?: KubeObject) {
  await strategyOf(scope.definition).allocate?.(object, {
    storage: scope.storage,
    prefix: scope.source.keys.prefix,
    dryRun: isDryRun(scope),
    ...(current ? { current } : {}),
  });
}

function subresourceOf(scope: RequestScope, verb: 'update' | 'patch'): string | undefined {
  const sub = scope.info.subresource;
  if (sub === undefined) return undefined;
  if (!scope.definition.subresources.includes(sub)) throw ApiError.pathNotFound();
  if (sub === 'status') return 'status';
  // namespaces/finalize and the like: PUT only.
  const own = strategyOf(scope.definition).updateSubresources;
  if (verb === 'update' && own && Object.hasOwn(own, sub)) return sub;
  throw ApiError.pathNotFound();
}

/** POST a new object (201), after NamespaceLifecycle admission and ObjectMeta validation. */
export async function createObject(scope: RequestScope): Promise<void> {
  const { definition } = scope;
  if (scope.info.name !== undefined) {
    const subresource = subresourceStrategyOf(definition, scope.info.subresource);
    if (subresource) return createSubresource(scope, scope.info.name, subresource);
    throw ApiError.methodNotAllowed();
  }
  if (definition.namespaced && scope.namespace === undefined) {
    throw ApiError.methodNotAllowed();
  }
  const manager = updateManager(scope, 'CreateOptions');
  const decoded = await decodeWriteBody(scope, 'CreateOptions');
  fromInput(scope, () => trackUpdate(scope, undefined, decoded, undefined, manager));
  writeObject(scope.ctx, 201, await createDecoded(scope, decoded), definition);
}

/**
 * The steps of every create after decoding, in rest/create.go's order: admission, BeforeCreate,
 * NamespaceLifecycle, the strategy's allocations (a Service's clusterIP and nodePorts), then the
 * resource's own storage, which converts to its storage version. POST and an apply to a missing
 * object (patch.go applyPatcher) both take them. A dry run answers what would be written.
 */
export async function createDecoded(scope: RequestScope, decoded: KubeObject): Promise<KubeObject> {
  const { definition, server } = scope;
  await admit(scope, 'CREATE', decoded);
  const object = fromInput(scope, () => prepareForCreate(definition, decoded, scope.namespace));
  const name = object.metadata.name ?? '';
  if (scope.namespace !== undefined) await admitNamespace(server.registry, scope.namespace);
  await allocate(scope, object);
  if (isDryRun(scope)) return object;
  return scope.storage.create(objectKey(scope, name), object).catch((err: unknown) => {
    throw interpret(scope, name, err);
  });
}

/**
 * Leaves a guaranteedUpdate whose result has no finalizers left while the object was being
 * deleted with no grace period pending: such an object is deleted, not written
 * (registry/generic/registry/store.go ShouldDeleteDuringUpdate). A pod the kubelet is still
 * stopping (grace period above 0) is written as usual.
 */
class FinalizersEmptied extends Error {
  constructor(readonly revision: string | undefined) {
    super('finalizers emptied');
  }
}

/** Whether an update of `current` to `next` deletes the object instead (ShouldDeleteDuringUpdate). */
function deletesDuringUpdate(scope: RequestScope, next: KubeObject, current: KubeObject): boolean {
  const grace = current.metadata.deletionGracePeriodSeconds;
  return (
    !next.metadata.finalizers?.length &&
    current.metadata.deletionTimestamp !== undefined &&
    (grace === undefined || grace === 0) &&
    (strategyOf(scope.definition).mayDeleteDuringUpdate?.(next) ?? true)
  );
}

/**
 * Writes `compute(current)` with optimistic concurrency; a stale resourceVersion is 409. An update
 * that removes the last finalizer of an object being deleted deletes it.
 */
export async function updateWith(
  scope: RequestScope,
  name: string,
  compute: (current: KubeObject) => KubeObject | Promise<KubeObject>,
): Promise<KubeObject> {
  const key = objectKey(scope, name);
  const dryRun = isDryRun(scope);
  const tryUpdate = async (current: KubeObject): Promise<KubeObject> => {
    const next = await compute(current);
    const expected = next.metadata.resourceVersion;
    if (
      expected !== undefined &&
      expected !== '' &&
      expected !== current.metadata.resourceVersion
    ) {
      throw ApiError.conflict(scope.gr, name);
    }
    if (!dryRun && deletesDuringUpdate(scope, next, current))
      throw new FinalizersEmptied(current.metadata.resourceVersion);
    return next;
  };
  try {
    if (dryRun) {
      const current = await scope.storage.get(key);
      if (!current) throw ApiError.notFound(scope.gr, name);
      // Nothing is written: the answer carries the stored resourceVersion (kubectl diff shows it).
      const next = await tryUpdate(current);
      next.metadata.resourceVersion = current.metadata.resourceVersion ?? '';
      return next;
    }
    // The watch cache's copy saves the read when it is current (cacher.go GuaranteedUpdate).
    return await scope.storage.guaranteedUpdate(key, tryUpdate, scope.source.cachedObject(key));
  } catch (err) {
    if (!(err instanceof FinalizersEmptied)) throw interpret(scope, name, err);
    // The reply is the object's last state, as kube's deleteWithoutFinalizers returns it.
    return scope.storage
      .delete(key, { expectedRevision: Number(err.revision) })
      .catch((deleteErr: unknown) => {
        if (isStorageError(deleteErr, 'ResourceVersionConflicts'))
          throw ApiError.conflict(scope.gr, name);
        throw interpret(scope, name, deleteErr);
      });
  }
}

/** PUT: replace the object (or its status). */
export async function updateObject(scope: RequestScope): Promise<void> {
  const name = requireName(scope);
  const subresource = subresourceOf(scope, 'update');
  const manager = updateManager(scope, 'UpdateOptions');
  const incoming = await decodeWriteBody(scope, 'UpdateOptions');
  // Before anything is read: a body for another object is a 400, not the 404 of the URL's name.
  checkObjectName(incoming, name);
  const updated = await updateWith(scope, name, async (current) => {
    const next = fromInput(scope, () => {
      // A retry starts from the body as sent: the strategy changes what it is given.
      const next = prepareForUpdate(
        scope.definition,
        cloneJson(incoming as unknown as JsonObject) as unknown as KubeObject,
        current,
        subresource,
      );
      next.metadata.resourceVersion = incoming.metadata.resourceVersion ?? '';
      if (next.metadata.resourceVersion === '') delete next.metadata.resourceVersion;
      return trackUpdate(scope, current, next, subresource, manager);
    });
    if (subresource === undefined) await allocate(scope, next, current);
    await admit(scope, 'UPDATE', next, current);
    return next;
  });
  writeObject(scope.ctx, 200, updated, scope.definition);
}

/** PATCH: merge, JSON or strategic merge patch applied to the current state, retried on conflict. */
export async function patchObject(scope: RequestScope): Promise<void> {
  const name = requireName(scope);
  const subresource = subresourceOf(scope, 'patch');
  const validation = fieldValidationOf(scope.query, 'PatchOptions');
  const patch = await body(scope);
  const contentType = scope.ctx.get('content-type');
  const { definition } = scope;
  // An unsupported patch type is 415 before the object is even read.
  const accepted = supportedPatchTypes({ group: definition.group, kind: definition.kind });
  if (APPLY_PATCH_TYPES.includes(patchMediaType(contentType)))
    return applyObject(scope, name, subresource, patch);
  if (!accepted.includes(patchMediaType(contentType)))
    throw unsupportedPatchType([...accepted, ...APPLY_PATCH_TYPES]);
  refuseForce(scope);
  const manager = updateManager(scope, 'PatchOptions');
  let unknown: string[] = [];
  const updated = await updateWith(scope, name, async (current) => {
    const next = fromInput(scope, () => {
      const result = applyPatch(contentType, current as unknown as JsonObject, patch, {
        group: definition.group,
        kind: definition.kind,
      });
      // The patched object is decoded, strictly (patch.go applyPatchToCurrentObject).
      const patched = decodeObject(definition, result, 'patch');
      unknown = pruneUnknownFields(definition, patched);
      if (unknown.length && validation === 'Strict')
        throw ApiError.badRequest(strictDecodingMessage(unknown));
      const requested = patched.metadata.resourceVersion;
      const next = prepareForUpdate(definition, patched, current, subresource);
      // A resourceVersion the patch itself sets is a precondition; otherwise the read state is.
      if (requested !== undefined && requested !== current.metadata.resourceVersion)
        next.metadata.resourceVersion = requested;
      else delete next.metadata.resourceVersion;
      return trackUpdate(scope, current, next, subresource, manager);
    });
    if (subresource === undefined) await allocate(scope, next, current);
    await admit(scope, 'UPDATE', next, current);
    return next;
  });
  if (validation === 'Warn') addWarnings(scope.ctx, unknownFieldMessages(unknown));
  writeObject(scope.ctx, 200, updated, definition);
}

/**
 * POST {resource}/{name}/{subresource} (pods/binding): the body, decoded as the subresource's
 * kind, changes the parent through its update path; the answer is a 201 Success Status, as
 * BindingREST.Create gives.
 */
async function createSubresource(
  scope: RequestScope,
  name: string,
  subresource: SubresourceStrategy,
): Promise<void> {
  const raw = await body(scope);
  const decoded = fromInput(scope, () =>
    decodeObject(
      scope.definition,
      decodeBody(raw, scope.ctx.get('content-type')),
      'body',
      subresource.gvk,
    ),
  );
  subresource.validate(decoded, name);
  await updateWith(scope, name, (current) => subresource.apply(current, decoded, scope.gr));
  writeObject(scope.ctx, 201, successStatus(undefined, 201));
}
