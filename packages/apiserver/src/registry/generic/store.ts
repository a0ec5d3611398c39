import {
  ApiError,
  groupResourceOf,
  isDryRunOf,
  successStatus,
  withExactResourceVersion,
  type DeleteOptions,
  type GetOptions,
  type GroupResource,
  type KubeObject,
  type ListOptions,
  type ResourceDefinition,
  type Status,
} from '@listwatch/api';
import {
  isStorageError,
  type CacheListResult,
  type ListWatchSource,
  type Storage,
  type TryUpdate,
} from '@listwatch/storage';
import { admit, type AdmissionOperation } from '../../admission/admission.js';
import {
  beforeDelete,
  deletionFinalizersForGarbageCollection,
  markAsDeleting,
} from '../rest/delete.js';
import { admitNamespace } from '../../admission/namespace-lifecycle.js';
import type { ResourceRegistry } from '../resource-registry.js';
import { prepareForCreate } from '../rest/create.js';
import { prepareForUpdate } from '../rest/update.js';
import {
  storesNothing,
  type ResourceStrategy,
  type ServedResource,
} from '../rest/resource-strategy.js';
import { pruneUnknownFields } from '../field-validation.js';
import { fromInput } from '../rest/input.js';
import type {
  CollectionDeleter,
  CreateOptions,
  Creater,
  DeleteCollectionResult,
  DeleteResult,
  Getter,
  GracefulDeleter,
  Lister,
  RequestContext,
  RESTStorage,
  UpdatedObjectInfo,
  UpdateOptions,
  UpdateResult,
  Updater,
  WatchInterface,
  WatchRequest,
  Watcher,
} from '../rest/rest.js';
import { pinnedName, predicateOf } from './selection-predicate.js';
import { subresourceStorages } from './subresource-storages.js';
import { UnstoredCreateREST } from './unstored-create-rest.js';

// The generic registry Store (k8s.io/apiserver pkg/registry/generic/registry/store.go): one per
// served resource, its strategy injected, through which every verb passes with one order of
// steps. A write: the request's object (decoded by the handler) → admission → the strategy's
// PrepareForCreate/PrepareForUpdate and validation → allocation (a Service's cluster IP) → the
// field manager → the resource's storage, which converts to the storage version
// (generic/converting-storage.ts) → the watch cache, which serves reads and watches.

/** Leaves a guaranteedUpdate whose result is to be deleted instead (ShouldDeleteDuringUpdate). */
class FinalizersEmptied extends Error {
  constructor(readonly revision: string | undefined) {
    super('finalizers emptied');
  }
}

/** Leaves the marking update: the object is to be deleted now (store.go errDeleteNow). */
class DeleteNow extends Error {}
/** Leaves the marking update: a graceful deletion is already under way (errAlreadyDeleting). */
class AlreadyDeleting extends Error {}

function sameFinalizers(a: readonly string[], b: readonly string[]): boolean {
  const set = new Set(a);
  return set.size === new Set(b).size && b.every((f) => set.has(f));
}

/** What a Store is made of: its resource, strategy, storage and watch cache. */
export interface StoreOptions {
  definition: ResourceDefinition;
  strategy: ResourceStrategy;
  /** The resource's storage: the server's, or a view in another storage version. */
  storage: Storage;
  /** The watch cache (or storage directly, when the cache is disabled for the resource). */
  source: ListWatchSource;
  /** The served resources, for admission's lookups (NamespaceLifecycle, RBAC). */
  registry: ResourceRegistry;
}

export class Store
  implements
    ServedResource,
    Getter,
    Lister,
    Watcher,
    Creater,
    Updater,
    GracefulDeleter,
    CollectionDeleter
{
  readonly definition: ResourceDefinition;
  readonly strategy: ResourceStrategy;
  /** `pods` / `deployments.apps`: how errors name the resource. */
  readonly gr: GroupResource;
  private readonly storage: Storage;
  private readonly source: ListWatchSource;
  private readonly registry: ResourceRegistry;
  private storages: { main: RESTStorage; subresources: Map<string, RESTStorage> } | undefined;

  constructor(options: StoreOptions) {
    this.definition = options.definition;
    this.strategy = options.strategy;
    this.gr = groupResourceOf(options.definition);
    this.storage = options.storage;
    this.source = options.source;
    this.registry = options.registry;
  }

  /**
   * The REST storage of the resource's path (its declared verbs, from this Store or, for a
   * resource that stores nothing, its create alone) or of a subresource's; undefined where the
   * resource declares none. Routes exist where these implement a verb (handlers/routes.ts).
   */
  restStorage(subresource?: string): RESTStorage | undefined {
    this.storages ??= {
      main: this.mainStorage(),
      subresources: subresourceStorages(this, this.strategy, this.registry),
    };
    if (subresource === undefined) return this.storages.main;
    return this.storages.subresources.get(subresource);
  }

  /** This Store as the interfaces its definition declares (discovery's verbs). */
  private mainStorage(): RESTStorage {
    const { strategy, definition } = this;
    if (storesNothing(strategy)) return new UnstoredCreateREST(definition, strategy);
    const verbs = new Set(definition.verbs);
    const main: RESTStorage = {};
    if (verbs.has('get')) main.get = this.get.bind(this);
    if (verbs.has('list')) main.list = this.list.bind(this);
    if (verbs.has('watch')) main.watch = this.watch.bind(this);
    if (verbs.has('create')) main.create = this.create.bind(this);
    if (verbs.has('update')) main.update = this.update.bind(this);
    if (verbs.has('delete')) main.delete = this.delete.bind(this);
    if (verbs.has('deletecollection')) main.deleteCollection = this.deleteCollection.bind(this);
    return main;
  }

  private key(ctx: Pick<RequestContext, 'namespace'>, name: string): string {
    return this.source.keys.object(this.definition.namespaced ? ctx.namespace : undefined, name);
  }

  private namespaceOf(ctx: Pick<RequestContext, 'namespace'>): { namespace?: string } {
    return this.definition.namespaced && ctx.namespace !== undefined
      ? { namespace: ctx.namespace }
      : {};
  }

  /**
   * Removes the fields of `object` its kind does not have and returns their paths: the
   * strategy's pruning (custom resources: their structural schema), else the schema source's.
   */
  pruneUnknownFields(object: KubeObject): string[] {
    return pruneUnknownFields(this.definition, object, this.strategy.structural);
  }

  /** Storage errors as the API reports them for this object (`pods "x" not found`). */
  interpret(name: string, err: unknown): unknown {
    return isStorageError(err) ? err.interpret(this.gr, name) : err;
  }

  /**
   * GET one object. Where from is the watch cache's call (delegator.go Get): no resourceVersion
   * reads storage; "0" (any) and N (not older than N) read the watch cache, or storage when the
   * cache is disabled for the resource or not initialized yet.
   */
  async get(ctx: RequestContext, name: string, options: GetOptions = {}): Promise<KubeObject> {
    const object = await this.source
      .get({ ...options, ...this.namespaceOf(ctx), name })
      .catch((err: unknown) => {
        throw withExactResourceVersion(this.interpret(name, err), options.resourceVersion);
      });
    if (!object) throw ApiError.notFound(this.gr, name);
    return object;
  }

  /** LIST with every resourceVersion semantic, served by the watch cache (or storage behind it). */
  list(ctx: RequestContext, options: ListOptions): Promise<CacheListResult> {
    // The typed options go down as they are; the source classifies them (classifyList).
    return this.source
      .list({ ...options, ...this.namespaceOf(ctx), predicate: predicateOf(options) })
      .catch((err: unknown) => {
        throw withExactResourceVersion(err, options.resourceVersion);
      });
  }

  /** A watch from the watch cache (classifyWatch decides where it starts). */
  watch(ctx: RequestContext, request: WatchRequest): Promise<WatchInterface> {
    const predicate = predicateOf(request.options);
    const name = pinnedName(predicate, request.name);
    return this.source.watch({
      ...request.options,
      ...this.namespaceOf(ctx),
      ...(name !== undefined ? { name } : {}),
      predicate,
      timeoutMs: request.timeoutMs,
    });
  }

  private admit(
    ctx: RequestContext,
    operation: AdmissionOperation,
    object: KubeObject,
    oldObject?: KubeObject,
  ): Promise<void> {
    return admit(this.strategy, this.registry, ctx, {
      operation,
      object,
      ...(oldObject ? { oldObject } : {}),
      request: ctx.attributes,
      authorizer: ctx.authorizer,
    });
  }

  /** The strategy's allocations (a Service's cluster IP) for what is about to be written. */
  private async allocate(object: KubeObject, dryRun: boolean, current?: KubeObject) {
    await this.strategy.allocate?.(object, {
      storage: this.storage,
      prefix: this.source.keys.prefix,
      dryRun,
      ...(current ? { current } : {}),
    });
  }

  /**
   * Create, in rest/create.go's order: the field manager's record of the request's object,
   * admission, BeforeCreate (PrepareForCreate, validation), NamespaceLifecycle, the strategy's
   * allocations (a Service's clusterIP and nodePorts), then the resource's storage, which
   * converts to its storage version. A dry run answers what would be written.
   */
  async create(
    ctx: RequestContext,
    _name: string | undefined,
    decoded: KubeObject,
    options: CreateOptions,
  ): Promise<KubeObject> {
    const tracked = options.managedFields
      ? fromInput(ctx, () => options.managedFields!(decoded))
      : decoded;
    await this.admit(ctx, 'CREATE', tracked);
    const namespace = this.definition.namespaced ? ctx.namespace : undefined;
    const object = fromInput(ctx, () => prepareForCreate(this, tracked, namespace));
    const name = object.metadata.name ?? '';
    if (namespace !== undefined) await admitNamespace(this.registry, ctx, namespace);
    await this.allocate(object, options.dryRun);
    if (options.dryRun) return object;
    return this.storage.create(this.key(ctx, name), object).catch((err: unknown) => {
      throw this.interpret(name, err);
    });
  }

  /** Whether an update of `current` to `next` deletes the object instead (ShouldDeleteDuringUpdate). */
  private deletesDuringUpdate(next: KubeObject, current: KubeObject): boolean {
    const grace = current.metadata.deletionGracePeriodSeconds;
    return (
      !next.metadata.finalizers?.length &&
      current.metadata.deletionTimestamp !== undefined &&
      (grace === undefined || grace === 0) &&
      (this.strategy.mayDeleteDuringUpdate?.(next) ?? true)
    );
  }

  /**
   * Writes `compute(current)` with optimistic concurrency; a stale resourceVersion is 409. An
   * update that removes the last finalizer of an object being deleted deletes it (the reply is
   * its last state, as deleteWithoutFinalizers returns it). The storage's GuaranteedUpdate, as
   * the Store and storages that write the parent directly (BindingREST) use it.
   */
  async guaranteedUpdate(
    ctx: RequestContext,
    name: string,
    compute: (current: KubeObject) => KubeObject | Promise<KubeObject>,
    dryRun: boolean,
  ): Promise<KubeObject> {
    const key = this.key(ctx, name);
    const tryUpdate: TryUpdate = async (current) => {
      const next = await compute(current);
      const expected = next.metadata.resourceVersion;
      if (
        expected !== undefined &&
        expected !== '' &&
        expected !== current.metadata.resourceVersion
      ) {
        throw ApiError.conflict(this.gr, name);
      }
      if (!dryRun && this.deletesDuringUpdate(next, current))
        throw new FinalizersEmptied(current.metadata.resourceVersion);
      return next;
    };
    try {
      if (dryRun) {
        const current = await this.storage.get(key);
        if (!current) throw ApiError.notFound(this.gr, name);
        // Nothing is written: the answer carries the stored resourceVersion (kubectl diff shows it).
        const next = await tryUpdate(current);
        next.metadata.resourceVersion = current.metadata.resourceVersion ?? '';
        return next;
      }
      // The watch cache's copy saves the read when it is current (cacher.go GuaranteedUpdate).
      return await this.storage.guaranteedUpdate(key, tryUpdate, this.source.cachedObject(key));
    } catch (err) {
      if (!(err instanceof FinalizersEmptied)) throw this.interpret(name, err);
      return this.storage
        .delete(key, { expectedRevision: Number(err.revision) })
        .catch((deleteErr: unknown) => {
          if (isStorageError(deleteErr, 'ResourceVersionConflicts'))
            throw ApiError.conflict(this.gr, name);
          throw this.interpret(name, deleteErr);
        });
    }
  }

  /**
   * Update (PUT, PATCH, apply) of the object or of a subresource (`status`, `finalize`): the
   * request's object from the stored one, BeforeUpdate (PrepareForUpdate, validation), the field
   * manager, allocation (the main resource only), admission, then the storage's
   * GuaranteedUpdate, retried on a stale read. With forceAllowCreate an update of a missing
   * object creates it (apply).
   */
  async update(
    ctx: RequestContext,
    name: string,
    objInfo: UpdatedObjectInfo,
    options: UpdateOptions,
    subresource?: string,
  ): Promise<UpdateResult> {
    if (!options.forceAllowCreate)
      return {
        object: await this.updateExisting(ctx, name, objInfo, options, subresource),
        created: false,
      };
    // The watch cache says first whether the object exists (patch.go's read is the cacher's);
    // a cached object deleted meanwhile is read again from storage.
    const key = this.key(ctx, name);
    let cached = this.source.cachedObject(key);
    for (;;) {
      const existing = cached ?? (await this.storage.get(key));
      if (!existing) {
        if (subresource) throw ApiError.notFound(this.gr, name);
        const decoded = fromInput(ctx, () => objInfo.updatedObject(undefined));
        const created = await this.create(ctx, name, decoded, options).catch((err: unknown) => {
          if (err instanceof ApiError && err.reason === 'AlreadyExists') return undefined;
          throw err;
        });
        if (created) return { object: created, created: true };
        continue;
      }
      const updated = await this.updateExisting(ctx, name, objInfo, options, subresource).catch(
        (err: unknown) => {
          if (cached && err instanceof ApiError && err.code === 404) return undefined;
          throw err;
        },
      );
      if (updated) return { object: updated, created: false };
      cached = undefined;
    }
  }

  private updateExisting(
    ctx: RequestContext,
    name: string,
    objInfo: UpdatedObjectInfo,
    options: UpdateOptions,
    subresource: string | undefined,
  ): Promise<KubeObject> {
    return this.guaranteedUpdate(
      ctx,
      name,
      async (current) => {
        const next = fromInput(ctx, () => {
          const sent = objInfo.updatedObject(current);
          const requested = sent.metadata.resourceVersion;
          const prepared = prepareForUpdate(this, sent, current, subresource);
          // A resourceVersion the request sets is a precondition; otherwise the read state is.
          if (
            requested !== undefined &&
            requested !== '' &&
            requested !== current.metadata.resourceVersion
          )
            prepared.metadata.resourceVersion = requested;
          else delete prepared.metadata.resourceVersion;
          return objInfo.managedFields ? objInfo.managedFields(prepared, current, sent) : prepared;
        });
        if (subresource === undefined) await this.allocate(next, options.dryRun, current);
        await this.admit(ctx, 'UPDATE', next, current);
        return next;
      },
      options.dryRun,
    );
  }

  /** Preconditions of DeleteOptions (uid, resourceVersion): a mismatch is 409 Conflict. */
  private checkPreconditions(name: string, current: KubeObject, options: DeleteOptions): void {
    const want = options.preconditions;
    if (want?.uid !== undefined && want.uid !== current.metadata.uid) {
      throw ApiError.conflict(
        this.gr,
        name,
        `Precondition failed: UID in precondition: ${want.uid}, UID in object meta: ${current.metadata.uid ?? ''}`,
      );
    }
    if (
      want?.resourceVersion !== undefined &&
      want.resourceVersion !== current.metadata.resourceVersion
    ) {
      throw ApiError.conflict(
        this.gr,
        name,
        `Precondition failed: ResourceVersion in precondition: ${want.resourceVersion}, ResourceVersion in object meta: ${current.metadata.resourceVersion ?? ''}`,
      );
    }
  }

  /**
   * What an immediate delete answers (finalizeDelete): the deleted object for kinds whose store
   * returns it (pods), else a Success Status naming it.
   */
  private deletedReply(deleted: KubeObject): KubeObject | Status {
    if (this.strategy.returnDeletedObject) return deleted;
    return successStatus({
      name: deleted.metadata.name ?? '',
      ...(this.definition.group ? { group: this.definition.group } : {}),
      kind: this.definition.plural,
      ...(deleted.metadata.uid ? { uid: deleted.metadata.uid } : {}),
    });
  }

  /**
   * Delete, as Store.Delete: preconditions, the kind's own delete (namespaces), then
   * BeforeDelete. A graceful delete (pods) or pending finalizers only mark the object
   * (deletionTimestamp, deletionGracePeriodSeconds) through an update; a graceful delete with no
   * grace left, or an object with neither, is removed. A dry run computes the same answer and
   * writes nothing.
   */
  async delete(ctx: RequestContext, name: string, options: DeleteOptions): Promise<DeleteResult> {
    const { object, deleted } = await this.deleteOne(ctx, name, options);
    return { reply: deleted ? this.deletedReply(object) : object, deleted };
  }

  private async deleteOne(
    ctx: RequestContext,
    name: string,
    options: DeleteOptions,
  ): Promise<{ object: KubeObject; deleted: boolean }> {
    const { storage, strategy } = this;
    const key = this.key(ctx, name);
    const current = await storage.get(key);
    if (!current) throw ApiError.notFound(this.gr, name);
    this.checkPreconditions(name, current, options);
    const dryRun = isDryRunOf(options);
    try {
      if (strategy.delete) {
        const object = await strategy.delete({
          registry: this.registry,
          logger: ctx.logger,
          name,
          current,
          options,
          dryRun,
          update: (mark) =>
            dryRun ? Promise.resolve(mark(current)) : storage.guaranteedUpdate(key, mark),
        });
        if (object) return { object, deleted: false };
      }
      const first = beforeDelete(strategy, current, options, Date.now());
      // Finalizers cannot change through DeleteOptions once a graceful deletion is pending.
      if (first.pending) return { object: current, deleted: false };
      const finalizers = current.metadata.finalizers ?? [];
      let last = current;
      if (
        first.graceful ||
        finalizers.length > 0 ||
        !sameFinalizers(
          deletionFinalizersForGarbageCollection(strategy, current, options),
          finalizers,
        )
      ) {
        let pendingFinalizers = false;
        let grace = 0;
        // updateForGracefulDeletionAndFinalizers: decided again on the state the update reads.
        const mark = (latest: KubeObject): KubeObject => {
          this.checkPreconditions(name, latest, options);
          const decided = beforeDelete(strategy, latest, options, Date.now());
          if (decided.pending) throw new AlreadyDeleting();
          const kept = deletionFinalizersForGarbageCollection(strategy, decided.object, options);
          pendingFinalizers = kept.length > 0;
          if (!decided.graceful) {
            if (pendingFinalizers) return markAsDeleting(decided.object, kept, Date.now());
            throw new DeleteNow();
          }
          grace = decided.gracePeriodSeconds;
          const { finalizers: _old, ...meta } = decided.object.metadata;
          return {
            ...decided.object,
            metadata: kept.length ? { ...meta, finalizers: kept } : meta,
          };
        };
        try {
          last = dryRun ? mark(current) : await storage.guaranteedUpdate(key, mark);
          if (pendingFinalizers || grace > 0) return { object: last, deleted: false };
        } catch (err) {
          if (err instanceof AlreadyDeleting) return { object: current, deleted: false };
          if (!(err instanceof DeleteNow)) throw err;
        }
      }
      if (dryRun) return { object: last, deleted: true };
      try {
        const deleted = await storage.delete(key, {
          expectedRevision: Number(last.metadata.resourceVersion),
        });
        return { object: deleted, deleted: true };
      } catch (err) {
        // A zero grace period races the kubelet's own confirmation: gone is what was asked.
        if (last !== current && isStorageError(err, 'KeyNotFound'))
          return { object: last, deleted: true };
        throw err;
      }
    } catch (err) {
      if (isStorageError(err, 'ResourceVersionConflicts')) throw ApiError.conflict(this.gr, name);
      throw this.interpret(name, err);
    }
  }

  /**
   * DeleteCollection: every object the selectors match goes through the same delete as one
   * object (finalizers, dry run); one deleted meanwhile is skipped.
   */
  async deleteCollection(
    ctx: RequestContext,
    options: DeleteOptions,
    listOptions: ListOptions,
  ): Promise<DeleteCollectionResult> {
    const list = await this.source.list({
      ...this.namespaceOf(ctx),
      predicate: predicateOf(listOptions),
    });
    const items: KubeObject[] = [];
    for (const object of list.items) {
      try {
        items.push((await this.deleteOne(ctx, object.metadata.name ?? '', options)).object);
      } catch (err) {
        if (!(err instanceof ApiError && err.code === 404)) throw err;
      }
    }
    return { resourceVersion: list.resourceVersion, items };
  }
}
