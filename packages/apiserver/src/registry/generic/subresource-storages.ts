import {
  ApiError,
  successStatus,
  type GetOptions,
  type KubeObject,
  type Status,
} from '@listwatch/api';
import type { ResourceRegistry } from '../resource-registry.js';
import type {
  ConnectStrategy,
  ResourceStrategy,
  SubresourceStrategy,
} from '../rest/resource-strategy.js';
import type {
  Connecter,
  Creater,
  CreateOptions,
  Getter,
  RequestContext,
  RESTStorage,
  StreamLocation,
  UpdatedObjectInfo,
  Updater,
  UpdateOptions,
  UpdateResult,
} from '../rest/rest.js';
import { TokenREST } from '../core/serviceaccount/token.js';
import { ScaleREST } from './scale-rest.js';
import type { Store } from './store.js';

// A subresource's REST storage, as kube gives each one its own (pkg/registry/core/pod/storage:
// StatusREST, BindingREST, LogREST, ExecREST...): what it implements is what is routed there.

/** `{resource}/{name}/status`: the object read, its status written (StatusREST). */
export class StatusREST implements Getter, Updater {
  constructor(private readonly store: Store) {}

  get(ctx: RequestContext, name: string, options: GetOptions): Promise<KubeObject> {
    return this.store.get(ctx, name, options);
  }

  update(
    ctx: RequestContext,
    name: string,
    objInfo: UpdatedObjectInfo,
    options: UpdateOptions,
  ): Promise<UpdateResult> {
    return this.store.update(ctx, name, objInfo, options, 'status');
  }
}

/**
 * A subresource a PUT alone updates with a strategy of its own (namespaces/finalize:
 * FinalizeREST): an Updater, not a Getter, so no GET or PATCH is routed there.
 */
export class UpdateOnlyREST implements Updater {
  constructor(
    private readonly store: Store,
    private readonly subresource: string,
  ) {}

  update(
    ctx: RequestContext,
    name: string,
    objInfo: UpdatedObjectInfo,
    options: UpdateOptions,
  ): Promise<UpdateResult> {
    return this.store.update(
      ctx,
      name,
      objInfo,
      { ...options, forceAllowCreate: false },
      this.subresource,
    );
  }
}

/**
 * A subresource a POST creates whose body changes its parent (BindingREST.Create): the parent
 * is written through the storage's GuaranteedUpdate; the answer is a Success Status.
 */
export class SubresourceCreateREST implements Creater {
  constructor(
    private readonly store: Store,
    readonly strategy: SubresourceStrategy,
  ) {}

  async create(
    ctx: RequestContext,
    name: string | undefined,
    body: KubeObject,
    options: CreateOptions,
  ): Promise<Status> {
    if (name === undefined) throw ApiError.methodNotAllowed();
    this.strategy.validate(body, name);
    await this.store.guaranteedUpdate(
      ctx,
      name,
      (current) => this.strategy.apply(current, body, this.store.gr),
      options.dryRun,
    );
    return successStatus(undefined, 201);
  }
}

/** A subresource whose answer streams from elsewhere (LogREST, ExecREST and the like). */
export class ConnectREST implements Connecter {
  constructor(
    private readonly registry: ResourceRegistry,
    private readonly strategy: ConnectStrategy,
    readonly connectMethods: readonly ('GET' | 'POST')[],
  ) {}

  connect(
    ctx: RequestContext,
    name: string,
    query: URLSearchParams,
  ): Promise<StreamLocation | undefined> {
    return this.strategy.location({
      namespace: ctx.namespace,
      name,
      query,
      get: async (gr, namespace, objectName) => {
        const entry = this.registry.lookup(gr.group ?? '', 'v1', gr.resource);
        if (!entry) throw ApiError.notFound(gr, objectName);
        return entry.store.get({ ...ctx, namespace }, objectName, {});
      },
    });
  }
}

/** Which HTTP methods a connect subresource answers (ConnectMethods): log is read only. */
function connectMethodsOf(subresource: string): readonly ('GET' | 'POST')[] {
  return subresource === 'log' ? ['GET'] : ['GET', 'POST'];
}

/**
 * The storages of the subresources a definition declares, from what its strategy implements;
 * a declared subresource without one has no route (404).
 */
export function subresourceStorages(
  store: Store,
  strategy: ResourceStrategy,
  registry: ResourceRegistry,
): Map<string, RESTStorage> {
  const storages = new Map<string, RESTStorage>();
  for (const name of store.definition.subresources) {
    if (name === 'status') storages.set(name, new StatusREST(store));
    // serviceaccounts/token: its create is 404 where the server cannot sign tokens.
    else if (name === 'token') storages.set(name, new TokenREST(store, registry));
    else if (name === 'scale' && strategy.scale)
      storages.set(name, new ScaleREST(store, strategy.scale));
    else if (strategy.updateSubresources && Object.hasOwn(strategy.updateSubresources, name))
      storages.set(name, new UpdateOnlyREST(store, name));
    else if (strategy.subresources && Object.hasOwn(strategy.subresources, name))
      storages.set(name, new SubresourceCreateREST(store, strategy.subresources[name]!));
    else if (strategy.connect && Object.hasOwn(strategy.connect, name))
      storages.set(
        name,
        new ConnectREST(registry, strategy.connect[name]!, connectMethodsOf(name)),
      );
  }
  return storages;
}
