import type {
  FieldError,
  GroupResource,
  KubeObject,
  Logger,
  DeleteOptions,
  ResourceDefinition,
  SchemaGvk,
} from '@listwatch/api';
import type { Storage } from '@listwatch/storage';
import type { AdmissionRequest } from '../../admission/admission.js';
import type { RequestAuthenticator } from '../../authentication/request-authenticator.js';
import type { UserInfo } from '../../authentication/user.js';
import type { RequestAuthorizer } from '../../authorization/request-authorizer.js';
import type { Structural } from '../../apiextensions/schema/structural.js';
import type { ScaleStrategy } from '../autoscaling/scale.js';
import type { StorageConversion } from '../generic/converting-storage.js';
import type { ResourceRegistry } from '../resource-registry.js';
import type { GracefulDeleteStrategy } from './delete.js';
import type { StreamLocation } from './rest.js';

// What a resource's registry strategy may add to the generic steps (k8s.io/apiserver
// pkg/registry/rest create.go RESTCreateStrategy, update.go RESTUpdateStrategy, delete.go
// RESTDeleteStrategy, and each type's strategy.go). A Store is made with one (registry/generic/store.ts).

/**
 * What one resource adds to the generic steps: kube's per-type registry strategy, with the
 * defaulting and conversion its typed decode does, and its delete and scale behaviour. `T` is
 * the kind's object as decoded (registry/rest/typed-object.ts: `TypedObject<Pod>`); every hook
 * sees only objects of its own kind (methods, so a typed strategy serves in the table).
 */
export interface ResourceStrategy<
  T extends KubeObject = KubeObject,
> extends GracefulDeleteStrategy {
  /** Defaulting and v1 conversion, on every decoded body and patch result (e.g. stringData). */
  decode?(object: T): void;
  /** PrepareForCreate, after ObjectMeta validation: server-set fields of a new object. */
  prepareForCreate?(object: T): void;
  /**
   * PrepareForUpdate: what an update keeps or sets whatever the client sent; `next` carries the
   * current generation, which the strategy bumps if its kind has one.
   */
  prepareForUpdate?(next: T, current: T): void;
  /**
   * The status strategy's PrepareForUpdate beyond the generic one (which keeps everything but
   * status from the stored object): what else a /status write may change (deployments: their
   * annotations, where the controller records the revision).
   */
  prepareForStatusUpdate?(result: T, sent: T): void;
  /**
   * Subresources a PUT updates with a strategy of their own, by name, each its PrepareForUpdate
   * after the main one (namespaces/finalize: namespaceFinalizeStrategy keeps the status).
   */
  updateSubresources?: Readonly<Record<string, (next: KubeObject, current: KubeObject) => void>>;
  /**
   * Whether an update that leaves an object being deleted without finalizers may delete it,
   * beyond the generic rule (namespaces: only once spec.finalizers is empty too,
   * ShouldDeleteNamespaceDuringUpdate).
   */
  mayDeleteDuringUpdate?(next: T): boolean;
  /** Validate beyond ObjectMeta, on create and on every update of the main resource: 422. */
  validate?(object: T): FieldError[];
  /**
   * ValidateUpdate's own rules, after `validate` (alone on a /status write): immutable fields,
   * allowed transitions, rules that read the stored object: 422.
   */
  validateUpdate?(next: T, current: T): FieldError[];
  /** Validate's rules that only a create checks, after `validate`. */
  validateCreate?(object: T): FieldError[];
  /** The object's storage form, when it is stored as another group version's (events.k8s.io). */
  storage?: StorageConversion;
  /**
   * What the kind's REST storage allocates before a create or an update is written (a Service's
   * cluster IP and node ports), unique among the stored objects of `prefix`; may throw a 422.
   */
  allocate?(object: T, context: AllocateContext): Promise<void>;
  /**
   * The structural schema of a kind the schema source lacks (custom resources: their CRD's),
   * which pruning, defaulting (on decode), unknown-field detection and server-side apply walk
   * instead of the source's.
   */
  structural?: Structural;
  /** The store's ReturnDeletedObject: a delete answers with the object, not a Status. */
  returnDeletedObject?: boolean;
  /** The scale subresource (autoscaling/v1 Scale), for kinds that serve one. */
  scale?: ScaleStrategy;
  /** Subresources a POST creates, by name (pods/binding). */
  subresources?: Readonly<Record<string, SubresourceStrategy>>;
  /** Subresources a GET streams from elsewhere, by name (pods/log: the kubelet's). */
  connect?: Readonly<Record<string, ConnectStrategy>>;
  /**
   * A delete of the kind's own REST storage before the store's (namespaces: REST.Delete in
   * pkg/registry/core/namespace/storage): answers the object as left, still stored, or
   * undefined to go on with the store's delete.
   */
  delete?(request: DeleteRequest): Promise<KubeObject | undefined>;
  /**
   * A check with the request's user, on create (before ObjectMeta and field validation, as kube's
   * policy-based storages) and in every attempt of an update: RBAC escalation prevention.
   */
  admit?(request: AdmissionRequest<T>): void | Promise<void>;
  /**
   * The kind's REST storage when it stores nothing and only creates (kube's rest.Creater alone:
   * TokenReview, the access reviews): the answer to a create, from the decoded body. Such a
   * resource has no watch cache, no storageVersionHash, and none of the store's create steps.
   */
  createWithoutStorage?(request: UnstoredCreateRequest<T>): KubeObject | Promise<KubeObject>;
}

/** A strategy of a resource that stores nothing (see createWithoutStorage). */
export type UnstoredStrategy = ResourceStrategy &
  Required<Pick<ResourceStrategy, 'createWithoutStorage'>>;

export function storesNothing(strategy: ResourceStrategy): strategy is UnstoredStrategy {
  return strategy.createWithoutStorage !== undefined;
}

/** What a create without storage is given: the decoded body and who asks. */
export interface UnstoredCreateRequest<T extends KubeObject = KubeObject> {
  /** The body, its metadata's system fields wiped and its namespace the URL's. */
  object: T;
  user: UserInfo;
  authenticator: Pick<RequestAuthenticator, 'reviewToken'>;
  authorizer: Pick<RequestAuthorizer, 'decide' | 'rulesReview'>;
}

/** Where an allocation looks for what is taken. */
export interface AllocateContext {
  storage: Storage;
  /** The storage prefix of every object of the resource. */
  prefix: string;
  /** A dry run: nothing allocated is kept. */
  dryRun: boolean;
  /** The object as stored, on update: what it holds stays its own. */
  current?: KubeObject;
}

/** What a strategy's own delete is given: the object as read, after preconditions. */
export interface DeleteRequest {
  registry: ResourceRegistry;
  logger: Logger;
  name: string;
  current: KubeObject;
  options: DeleteOptions;
  dryRun: boolean;
  /**
   * The Store's update of the object being deleted (its storage's GuaranteedUpdate of `mark`;
   * in a dry run, `mark` of `current`): how a kind's delete marks it without reaching storage.
   */
  update: (mark: (current: KubeObject) => KubeObject) => Promise<KubeObject>;
}

/**
 * A subresource a POST creates whose body changes its parent (a rest.Creater on a subresource,
 * such as pods/binding's BindingREST): the reply is a Success Status.
 */
export interface SubresourceStrategy {
  /** The kind of the body (core/v1 Binding), whose type in the schema source decodes it. */
  gvk: SchemaGvk;
  /** Checks the decoded body against the parent's name before anything is read (400, 422). */
  validate(body: KubeObject, name: string): void;
  /** The parent as the body leaves it; a 409 on `gr` when the parent cannot take it. */
  apply(parent: KubeObject, body: KubeObject, gr: GroupResource): KubeObject;
}

/**
 * A subresource whose GET streams what another server answers (kube's rest.Getter returning a
 * LocationStreamer, e.g. pods/log from the pod's kubelet).
 */
export interface ConnectStrategy {
  /** Where to stream from; undefined answers an empty body (a pod no node runs yet). */
  location(request: ConnectRequest): Promise<StreamLocation | undefined>;
}

/** What a connect strategy is given: the parent's name and query, and a way to read objects. */
export interface ConnectRequest {
  namespace: string | undefined;
  name: string;
  query: URLSearchParams;
  /** A stored object by resource, or the 404 its own GET would give. */
  get(gr: GroupResource, namespace: string | undefined, name: string): Promise<KubeObject>;
}

/**
 * A served resource as the registry builds its Store: the definition and the strategy injected
 * into it (kube's NewREST(...) per resource, pkg/registry/<group>/<resource>/storage).
 */
export interface ServedResource {
  readonly definition: ResourceDefinition;
  readonly strategy: ResourceStrategy;
}
