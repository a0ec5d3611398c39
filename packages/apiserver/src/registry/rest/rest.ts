import type {
  DeleteOptions,
  GetOptions,
  KubeObject,
  ListOptions,
  Logger,
  Status,
  Verb,
} from '@listwatch/api';
import type { CacheListResult, CacheWatcher } from '@listwatch/storage';
import type { RequestAuthenticator } from '../../authentication/request-authenticator.js';
import type { Attributes } from '../../authorization/attributes.js';
import type { RequestAuthorizer } from '../../authorization/request-authorizer.js';

// The interfaces a REST storage implements, as k8s.io/apiserver pkg/registry/rest/rest.go
// names them. A route exists where a storage implements the verb's interface (routes.ts, as
// endpoints/installer.go registers them): nothing is served because nothing excluded it.

/**
 * What a storage is told of the request it serves (kube's request context): where, who, and
 * how an unexpected failure on the client's input is reported. Never the HTTP request itself.
 */
export interface RequestContext {
  /** The URL's namespace (undefined for a cluster-scoped resource or an all-namespaces list). */
  namespace: string | undefined;
  /** The request as authorized: admission's user, verb, resource and name. */
  attributes: Attributes;
  authorizer: RequestAuthorizer;
  /** What a TokenReview asks (the server's authenticator). */
  authenticator: Pick<RequestAuthenticator, 'reviewToken'>;
  logger: Logger;
  /** Reports a failure on the client's input that no check caught (a 400 is answered). */
  inputFailed(err: unknown): void;
}

/** The watch a Watcher opens: the watch cache's watcher of this request. */
export type WatchInterface = CacheWatcher;

/** rest.Getter: GET of one object (or of a subresource's view of it). */
export interface Getter {
  get(ctx: RequestContext, name: string, options: GetOptions): Promise<KubeObject>;
}

/** rest.Lister: GET of a collection. */
export interface Lister {
  list(ctx: RequestContext, options: ListOptions): Promise<CacheListResult>;
}

/** What a Watcher is given beyond the list options: the pinned name and its time limit. */
export interface WatchRequest {
  options: ListOptions;
  /** A `watch/{name}` path or a `metadata.name` field selector. */
  name?: string;
  timeoutMs: number;
}

/** rest.Watcher: a watch of a collection. */
export interface Watcher {
  watch(ctx: RequestContext, request: WatchRequest): Promise<WatchInterface>;
}

/** Write options every storage write takes (CreateOptions, UpdateOptions, PatchOptions). */
export interface WriteOptions {
  /** `dryRun=All`: every step runs, nothing is written. */
  dryRun: boolean;
}

/** The field manager step of a create or update (managedFields of what is written). */
export type ManagedFieldsStep = (
  next: KubeObject,
  current: KubeObject | undefined,
  sent: KubeObject,
) => KubeObject;

export interface CreateOptions extends WriteOptions {
  /** Records the create in managedFields (handlers/create.go UpdateNoErrors). */
  managedFields?: (object: KubeObject) => KubeObject;
}

/** rest.Creater: POST to a collection, or to an object's subresource (pods/binding). */
export interface Creater {
  create(
    ctx: RequestContext,
    name: string | undefined,
    object: KubeObject,
    options: CreateOptions,
  ): Promise<KubeObject | Status>;
}

/**
 * rest.UpdatedObjectInfo: the object a PUT, PATCH or apply makes of the stored one (undefined
 * when there is none and the update may create), before the strategy. Its resourceVersion, if
 * set and not the stored one's, is the write's precondition.
 */
export interface UpdatedObjectInfo {
  updatedObject(current: KubeObject | undefined): KubeObject;
  /** The field manager step, after the strategy's PrepareForUpdate. */
  managedFields?: ManagedFieldsStep;
}

export interface UpdateOptions extends WriteOptions {
  /** An update of a missing object creates it (server-side apply: forceAllowCreate). */
  forceAllowCreate?: boolean;
}

/** What an update did: whether it created the object (201) or changed it (200). */
export interface UpdateResult {
  object: KubeObject;
  created: boolean;
}

/** rest.Updater: PUT of an object or of a subresource. PATCH is an update too (rest.Patcher). */
export interface Updater {
  update(
    ctx: RequestContext,
    name: string,
    objInfo: UpdatedObjectInfo,
    options: UpdateOptions,
  ): Promise<UpdateResult>;
}

/** rest.Patcher: a Getter and an Updater; the handler applies the patch to what it gets. */
export type Patcher = Getter & Updater;

/** What a delete did: the object as left (marked for deletion) or as deleted. */
export interface DeleteResult {
  /** The reply: the object, or a Success Status naming it (a store without ReturnDeletedObject). */
  reply: KubeObject | Status;
  /** Gone from storage (or would be, in a dry run). */
  deleted: boolean;
}

/** rest.GracefulDeleter: DELETE of one object. */
export interface GracefulDeleter {
  delete(ctx: RequestContext, name: string, options: DeleteOptions): Promise<DeleteResult>;
}

/** What a deletecollection answers: the objects as each delete left them. */
export interface DeleteCollectionResult {
  resourceVersion: string;
  items: KubeObject[];
}

/** rest.CollectionDeleter: DELETE of a collection. */
export interface CollectionDeleter {
  deleteCollection(
    ctx: RequestContext,
    options: DeleteOptions,
    listOptions: ListOptions,
  ): Promise<DeleteCollectionResult>;
}

/** Where a Connecter's answer streams from (genericrest.LocationStreamer's fields). */
export interface StreamLocation {
  url: URL;
  contentType: string;
  /** Write each chunk as it arrives (follow). */
  flush: boolean;
  /** How upstream errors name the resource (`pods/log`). */
  resource: string;
}

/**
 * rest.Connecter (and a Getter returning a LocationStreamer, pods/log): the answer streams from
 * elsewhere; undefined answers an empty body (a pod no node runs yet).
 */
export interface Connecter {
  /** The HTTP methods it connects (ConnectMethods): GET for log, GET and POST for exec. */
  readonly connectMethods: readonly ('GET' | 'POST')[];
  connect(
    ctx: RequestContext,
    name: string,
    query: URLSearchParams,
  ): Promise<StreamLocation | undefined>;
}

/** Any REST storage: a resource's or a subresource's. */
export type RESTStorage = Partial<
  Getter & Lister & Watcher & Creater & Updater & GracefulDeleter & CollectionDeleter & Connecter
>;

/**
 * The verbs a storage serves at its item path (a name in the URL) and at its collection path,
 * from the interfaces it implements (installer.go registerResourceHandlers): Getter → get,
 * Updater → update, Patcher (Getter and Updater) → patch, GracefulDeleter → delete, Creater on a subresource → create;
 * Lister → list, Watcher → watch, Creater → create, CollectionDeleter → deletecollection. A
 * Connecter serves what its methods map to (GET → get, POST → create).
 */
export function itemVerbsOf(storage: RESTStorage, subresource: boolean): Verb[] {
  const verbs: Verb[] = [];
  if (storage.get || storage.connectMethods?.includes('GET')) verbs.push('get');
  if (storage.update) verbs.push('update');
  // rest.Patcher is a Getter and an Updater (namespaces/finalize is only an Updater).
  if (storage.update && storage.get) verbs.push('patch');
  if (storage.delete) verbs.push('delete');
  if (subresource && (storage.create || storage.connectMethods?.includes('POST')))
    verbs.push('create');
  return verbs;
}

export function collectionVerbsOf(storage: RESTStorage): Verb[] {
  const verbs: Verb[] = [];
  if (storage.list) verbs.push('list');
  if (storage.watch) verbs.push('watch');
  if (storage.create) verbs.push('create');
  if (storage.deleteCollection) verbs.push('deletecollection');
  return verbs;
}
