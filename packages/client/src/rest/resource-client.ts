import {
  ApiError,
  isValidPathSegmentName,
  PATCH_CONTENT_TYPES,
  type KubeList,
  type KubeObject,
  type ResourceDefinition,
  type Status,
} from '@listwatch/api';
import type { KubernetesObject } from '../runtime/kubernetes-object.js';
import type { ListerWatcher } from '../cache/lister-watcher.js';
import { ListPager, type ListPage, type ListPagerOptions } from '../pager/list-pager.js';
import type { RestClient } from './client.js';
import { listParamsToQuery, type ListParams, type TweakListOptions } from './list-params.js';
import type { WatchStream, WatchStreamOptions } from './watch-stream.js';

/** Who the resource client is for: enough of a ResourceDefinition to build URLs. */
export type ResourceRef = Pick<ResourceDefinition, 'group' | 'version' | 'plural' | 'namespaced'> &
  Partial<Pick<ResourceDefinition, 'kind'>>;

export interface GetOptions {
  resourceVersion?: string | undefined;
  signal?: AbortSignal | undefined;
}

export interface WriteOptions {
  dryRun?: boolean | undefined;
  fieldManager?: string | undefined;
  signal?: AbortSignal | undefined;
}

/** metav1.DeleteOptions. */
export interface DeleteOptions {
  gracePeriodSeconds?: number | undefined;
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground' | undefined;
  preconditions?: { uid?: string; resourceVersion?: string } | undefined;
  dryRun?: boolean | undefined;
  signal?: AbortSignal | undefined;
}

/** metav1.ApplyOptions: server-side apply needs a field manager; `force` takes over conflicts. */
export interface ApplyOptions {
  fieldManager: string;
  force?: boolean | undefined;
  dryRun?: boolean | undefined;
  signal?: AbortSignal | undefined;
}

type DeepPartial<T> = T extends readonly (infer U)[]
  ? readonly DeepPartial<U>[]
  : T extends object
    ? { [K in keyof T]?: DeepPartial<T[K]> }
    : T;

/**
 * What an apply sends (client-go's apply configurations): the type and name of the object and
 * only the fields the manager has an opinion about.
 */
export type ApplyConfiguration<T extends KubernetesObject = KubeObject> = DeepPartial<
  Omit<T, 'apiVersion' | 'kind' | 'metadata'>
> & {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string } & DeepPartial<KubeObject['metadata']>;
};

/** The patch flavours patch() sends (and server-side apply), by short name. */
export type PatchType = keyof typeof PATCH_CONTENT_TYPES;

function writeQuery(options: WriteOptions | undefined): URLSearchParams | undefined {
  if (!options?.dryRun && options?.fieldManager === undefined) return undefined;
  const query = new URLSearchParams();
  if (options.dryRun) query.set('dryRun', 'All');
  if (options.fieldManager !== undefined) query.set('fieldManager', options.fieldManager);
  return query;
}

/**
 * The verbs of one resource, optionally scoped to a namespace (client-go's dynamic client
 * `Resource(gvr).Namespace(ns)`): URLs as kube-apiserver serves them, `/api/v1/...` for the
 * core group and `/apis/<group>/<version>/...` for the others.
 */
export class ResourceClient<T extends KubernetesObject = KubeObject> {
  constructor(
    readonly client: RestClient,
    readonly definition: ResourceRef,
    readonly namespaceName: string | undefined,
  ) {}

  /** The same resource in one namespace ('' means all namespaces, for list and watch). */
  namespace(namespace: string): ResourceClient<T> {
    return new ResourceClient<T>(this.client, this.definition, namespace);
  }

  /** `/api/v1` or `/apis/<group>/<version>`. */
  get groupVersionPath(): string {
    const { group, version } = this.definition;
    return group ? `/apis/${group}/${version}` : `/api/${version}`;
  }

  /** The collection's path; cluster-wide for a namespaced resource when no namespace is set. */
  collectionPath(namespace = this.namespaceName): string {
    const ns =
      this.definition.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
    return `${this.groupVersionPath}${ns}/${this.definition.plural}`;
  }

  /** One object's path (plus a subresource). */
  objectPath(name: string, namespace = this.namespaceName, subresource?: string): string {
    if (!name) throw ApiError.badRequest(`resource name may not be empty`);
    // client-go's Request.Name: a name must be a valid path segment (`.`/`..` would be collapsed).
    const invalid = isValidPathSegmentName(name);
    if (invalid.length)
      throw ApiError.badRequest(
        `invalid resource name ${JSON.stringify(name)}: ${invalid.join(', ')}`,
      );
    if (this.definition.namespaced && !namespace) {
      throw ApiError.badRequest(
        `an empty namespace may not be set for namespaced resource ${this.definition.plural}`,
      );
    }
    return `${this.collectionPath(namespace)}/${encodeURIComponent(name)}${subresource ? `/${subresource}` : ''}`;
  }

  get(name: string, options: GetOptions = {}): Promise<T> {
    const query =
      options.resourceVersion !== undefined
        ? new URLSearchParams({ resourceVersion: options.resourceVersion })
        : undefined;
    return this.client.request<T>({
      method: 'GET',
      path: this.objectPath(name),
      ...(query ? { query } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }

  /** One LIST request (one page if `limit` is set); items are decoded as they arrive. */
  list(params: ListParams = {}, signal?: AbortSignal): Promise<KubeList<T>> {
    return this.listRequest(params, signal, false);
  }

  private listRequest(
    params: ListParams,
    signal: AbortSignal | undefined,
    noConnectionRetry: boolean,
  ): Promise<KubeList<T>> {
    return this.client.request<KubeList<T>>({
      method: 'GET',
      path: this.collectionPath(),
      query: listParamsToQuery(params),
      streamList: true,
      ...(noConnectionRetry ? { noConnectionRetry } : {}),
      ...(signal ? { signal } : {}),
    });
  }

  /** Pages of at most `pageSize` items, following continue tokens; see ListPager. */
  listPages(
    params: ListParams = {},
    options: ListPagerOptions & { signal?: AbortSignal } = {},
  ): AsyncGenerator<ListPage<T>> {
    const { signal, ...pager } = options;
    return new ListPager<T>((p, s) => this.list(p, s), pager).pages(params, signal);
  }

  /** Every item, read page by page at one resourceVersion. */
  async listAll(
    params: ListParams = {},
    options: ListPagerOptions & { signal?: AbortSignal } = {},
  ): Promise<KubeList<T>> {
    const { signal, ...pager } = options;
    return (await new ListPager<T>((p, s) => this.list(p, s), pager).list(params, signal)).list;
  }

  watch(params: ListParams = {}, options: WatchStreamOptions = {}): Promise<WatchStream<T>> {
    return this.client.watch<T>(this.collectionPath(), params, options);
  }

  create(obj: T, options?: WriteOptions): Promise<T> {
    const ns = this.namespaceName || obj.metadata?.namespace;
    const query = writeQuery(options);
    if (this.definition.namespaced && !ns) {
      throw ApiError.badRequest(
        `an empty namespace may not be set for namespaced resource ${this.definition.plural}`,
      );
    }
    return this.client.request<T>({
      method: 'POST',
      path: this.collectionPath(ns),
      body: obj,
      ...(query ? { query } : {}),
      ...(options?.signal ? { signal: options.signal } : {}),
    });
  }

  /** PUT: optimistic concurrency through the object's resourceVersion (409 Conflict if stale). */
  update(obj: T, options?: WriteOptions): Promise<T> {
    return this.put(obj, undefined, options);
  }

  /** PUT to the status subresource: only `.status` changes. */
  updateStatus(obj: T, options?: WriteOptions): Promise<T> {
    return this.put(obj, 'status', options);
  }

  patch(
    name: string,
    patch: unknown,
    type: PatchType = 'merge',
    options?: WriteOptions & { subresource?: string },
  ): Promise<T> {
    const query = writeQuery(options);
    return this.client.request<T>({
      method: 'PATCH',
      path: this.objectPath(name, this.namespaceName, options?.subresource),
      body: patch,
      contentType: PATCH_CONTENT_TYPES[type],
      ...(query ? { query } : {}),
      ...(options?.signal ? { signal: options.signal } : {}),
    });
  }

  /**
   * Server-side apply (client-go's Apply): PATCH with `application/apply-patch+yaml`; creates the
   * object when missing. A field another manager owns with another value is a 409 unless
   * `force`.
   */
  apply(obj: ApplyConfiguration<T>, options: ApplyOptions): Promise<T> {
    return this.applyTo(obj, undefined, options);
  }

  /** Server-side apply to the status subresource (client-go's ApplyStatus). */
  applyStatus(obj: ApplyConfiguration<T>, options: ApplyOptions): Promise<T> {
    return this.applyTo(obj, 'status', options);
  }

  private applyTo(
    obj: ApplyConfiguration<T>,
    subresource: string | undefined,
    options: ApplyOptions,
  ): Promise<T> {
    const name = obj.metadata?.name;
    if (!name) throw ApiError.badRequest('name is required');
    const query = new URLSearchParams({ fieldManager: options.fieldManager });
    if (options.force) query.set('force', 'true');
    if (options.dryRun) query.set('dryRun', 'All');
    return this.client.request<T>({
      method: 'PATCH',
      path: this.objectPath(name, this.namespaceName || obj.metadata?.namespace, subresource),
      body: obj,
      contentType: PATCH_CONTENT_TYPES.apply,
      query,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }

  /** Returns the deleted object, or a Status when the server answers with one. */
  delete(name: string, options: DeleteOptions = {}): Promise<T | Status> {
    const { signal, ...rest } = options;
    return this.client.request<T | Status>({
      method: 'DELETE',
      path: this.objectPath(name),
      body: deleteBody(rest),
      ...(signal ? { signal } : {}),
    });
  }

  /** DELETE on the collection, with the same selectors a LIST takes. */
  deleteCollection(
    params: ListParams = {},
    options: DeleteOptions = {},
  ): Promise<KubeList<T> | Status> {
    const { signal, ...rest } = options;
    return this.client.request<KubeList<T> | Status>({
      method: 'DELETE',
      path: this.collectionPath(),
      query: listParamsToQuery(params),
      body: deleteBody(rest),
      ...(signal ? { signal } : {}),
    });
  }

  /** This collection as a reflector's source; `tweak` rewrites every LIST and WATCH's params. */
  listerWatcher(
    tweak?: TweakListOptions,
    watchOptions: Omit<WatchStreamOptions, 'signal'> = {},
  ): ListerWatcher<T> {
    const apply = tweak ?? ((p: ListParams) => p);
    return {
      // The reflector's backoff is the retry: a refused connection reaches it (and its watch
      // error handler and log) on the first attempt, not after the REST client's 10 retries.
      list: (params, signal) => this.listRequest(apply({ ...params }), signal, true),
      watch: (params, signal) =>
        this.watch(apply({ ...params }), { ...watchOptions, ...(signal ? { signal } : {}) }),
    };
  }

  private put(
    obj: T,
    subresource: string | undefined,
    options: WriteOptions | undefined,
  ): Promise<T> {
    const ns = this.namespaceName || obj.metadata?.namespace;
    const query = writeQuery(options);
    return this.client.request<T>({
      method: 'PUT',
      path: this.objectPath(obj.metadata?.name ?? '', ns, subresource),
      body: obj,
      ...(query ? { query } : {}),
      ...(options?.signal ? { signal: options.signal } : {}),
    });
  }
}

function deleteBody(options: Omit<DeleteOptions, 'signal'>): Record<string, unknown> {
  return {
    kind: 'DeleteOptions',
    apiVersion: 'v1',
    ...(options.gracePeriodSeconds !== undefined
      ? { gracePeriodSeconds: options.gracePeriodSeconds }
      : {}),
    ...(options.propagationPolicy !== undefined
      ? { propagationPolicy: options.propagationPolicy }
      : {}),
    ...(options.preconditions !== undefined ? { preconditions: options.preconditions } : {}),
    ...(options.dryRun ? { dryRun: ['All'] } : {}),
  };
}
