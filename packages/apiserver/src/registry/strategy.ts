import {
  ApiError,
  apiVersionOf,
  decodeTypedObject,
  fieldErrors,
  schemaFor,
  generateName,
  validateObjectMeta,
  type DecodeFailure,
  type DeleteOptions,
  type FieldError,
  type GroupResource,
  type KubeObject,
  type Logger,
  type ResourceDefinition,
  type SchemaGvk,
} from '@listwatch/api';
import type { Storage } from '@listwatch/storage';
import type { RequestAuthenticator } from '../authentication/request-authenticator.js';
import type { UserInfo } from '../authentication/user.js';
import type { RequestAuthorizer } from '../authorization/request-authorizer.js';
import { randomUUID } from 'node:crypto';
import { deploymentStrategy } from './apps/deployment/strategy.js';
import { replicaSetStrategy } from './apps/replicaset/strategy.js';
import { configMapStrategy } from './core/configmap/strategy.js';
import { setObjectDefaults } from './defaulting.js';
import { controllerRevisionStrategy } from './apps/controllerrevision/strategy.js';
import type { StorageConversion } from './generic/converting-storage.js';
import { daemonSetStrategy } from './apps/daemonset/strategy.js';
import { eventStrategy, eventsV1Strategy } from './core/event/strategy.js';
import { cannotBeHandled } from './field-validation.js';
import type { GracefulDeleteStrategy } from './rest/delete.js';
import { cronJobStrategy } from './batch/cronjob/strategy.js';
import { jobStrategy } from './batch/job/strategy.js';
import { endpointsStrategy } from './core/endpoint/strategy.js';
import { endpointSliceStrategy } from './discovery/endpointslice/strategy.js';
import { ingressStrategy } from './networking/ingress/strategy.js';
import { networkPolicyStrategy } from './networking/networkpolicy/strategy.js';
import type { AdmissionRequest } from '../admission/admission.js';
import { namespaceStrategy } from './core/namespace/strategy.js';
import { podStrategy } from './core/pod/strategy.js';
import {
  horizontalPodAutoscalerStrategy,
  horizontalPodAutoscalerV1Strategy,
} from './autoscaling/horizontalpodautoscaler/strategy.js';
import { podDisruptionBudgetStrategy } from './policy/poddisruptionbudget/strategy.js';
import { reviewStrategies } from './authorization/review-strategy.js';
import { limitRangeStrategy } from './core/limitrange/strategy.js';
import { resourceQuotaStrategy } from './core/resourcequota/strategy.js';
import type { ResourceRegistry } from './resource-registry.js';
import { roleStrategies } from './rbac/strategy.js';
import { podTemplateStrategy } from './core/podtemplate/strategy.js';
import { replicationControllerStrategy } from './core/replicationcontroller/strategy.js';
import type { ScaleStrategy } from './autoscaling/scale.js';
import type { StreamLocation } from './rest/rest.js';
import type { Atom } from '../fieldmanager/index.js';
import { secretStrategy } from './core/secret/strategy.js';
import { serviceAccountStrategy } from './core/serviceaccount/strategy.js';
import { apiServiceStrategy } from '../apiregistration/apiservice-strategy.js';
import { customResourceDefinitionStrategy } from '../apiextensions/customresourcedefinition-strategy.js';
import { serviceStrategy } from './core/service/strategy.js';
import { statefulSetStrategy } from './apps/statefulset/strategy.js';
import { persistentVolumeClaimStrategy } from './core/persistentvolumeclaim/strategy.js';
import { persistentVolumeStrategy } from './core/persistentvolume/strategy.js';

// What kube-apiserver's registry strategies do to every object (k8s.io/apiserver
// pkg/registry/rest/create.go BeforeCreate, update.go BeforeUpdate, and each type's strategy).

/**
 * What one resource adds to the generic steps below: kube's per-type registry strategy, with the
 * defaulting and conversion its typed decode does, and its delete and scale behaviour.
 */
export interface ResourceStrategy extends GracefulDeleteStrategy {
  /** Defaulting and v1 conversion, on every decoded body and patch result (e.g. stringData). */
  decode?(object: KubeObject): void;
  /** PrepareForCreate, after ObjectMeta validation: server-set fields of a new object. */
  prepareForCreate?(object: KubeObject): void;
  /**
   * PrepareForUpdate: what an update keeps or sets whatever the client sent; `next` carries the
   * current generation, which the strategy bumps if its kind has one.
   */
  prepareForUpdate?(next: KubeObject, current: KubeObject): void;
  /**
   * The status strategy's PrepareForUpdate beyond the generic one (which keeps everything but
   * status from the stored object): what else a /status write may change (deployments: their
   * annotations, where the controller records the revision).
   */
  prepareForStatusUpdate?(result: KubeObject, sent: KubeObject): void;
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
  mayDeleteDuringUpdate?(next: KubeObject): boolean;
  /** Validate beyond ObjectMeta, on create and on every update of the main resource: 422. */
  validate?(object: KubeObject): FieldError[];
  /**
   * ValidateUpdate's own rules, after `validate` (alone on a /status write): immutable fields,
   * allowed transitions, rules that read the stored object: 422.
   */
  validateUpdate?(next: KubeObject, current: KubeObject): FieldError[];
  /** Validate's rules that only a create checks, after `validate`. */
  validateCreate?(object: KubeObject): FieldError[];
  /** The object's storage form, when it is stored as another group version's (events.k8s.io). */
  storage?: StorageConversion;
  /**
   * What the kind's REST storage allocates before a create or an update is written (a Service's
   * cluster IP and node ports), unique among the stored objects of `prefix`; may throw a 422.
   */
  allocate?(object: KubeObject, context: AllocateContext): Promise<void>;
  /**
   * Drops the fields a kind without a schema-source entry does not have (custom resources: the
   * CRD's structural schema), returning their paths; replaces the schema source's pruning.
   */
  pruneUnknownFields?(object: KubeObject): string[];
  /**
   * The server-side apply schema of a kind the schema source lacks (custom resources: their
   * structural schema's list and map types); replaces the schema source's.
   */
  applySchema?: Atom;
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
  admit?(request: AdmissionRequest): void | Promise<void>;
  /**
   * The kind's REST storage when it stores nothing and only creates (kube's rest.Creater alone:
   * TokenReview, the access reviews): the answer to a create, from the decoded body. Such a
   * resource has no watch cache, no storageVersionHash, and none of the store's create steps.
   */
  createWithoutStorage?(request: UnstoredCreateRequest): KubeObject | Promise<KubeObject>;
}

/** A strategy of a resource that stores nothing (see createWithoutStorage). */
export type UnstoredStrategy = ResourceStrategy &
  Required<Pick<ResourceStrategy, 'createWithoutStorage'>>;

export function storesNothing(strategy: ResourceStrategy): strategy is UnstoredStrategy {
  return strategy.createWithoutStorage !== undefined;
}

/** What a create without storage is given: the decoded body and who asks. */
export interface UnstoredCreateRequest {
  /** The body, its metadata's system fields wiped and its namespace the URL's. */
  object: KubeObject;
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

/** Kinds whose storage has the generic steps only (their kube strategies add nothing here yet). */
const GENERIC: ResourceStrategy = {};

/**
 * The strategies by qualified resource (`<resource>.<group>/<version>` for a version served as a
 * view of the storage version's objects). Every served resource has an entry.
 */
const strategies: Readonly<Record<string, ResourceStrategy>> = {
  configmaps: configMapStrategy,
  namespaces: namespaceStrategy,
  pods: podStrategy,
  secrets: secretStrategy,
  serviceaccounts: serviceAccountStrategy,
  services: serviceStrategy,
  events: eventStrategy,
  'deployments.apps': deploymentStrategy,
  'replicasets.apps': replicaSetStrategy,
  ...roleStrategies,
  'customresourcedefinitions.apiextensions.k8s.io': customResourceDefinitionStrategy,
  'apiservices.apiregistration.k8s.io': apiServiceStrategy,
  'statefulsets.apps': statefulSetStrategy,
  'daemonsets.apps': daemonSetStrategy,
  'controllerrevisions.apps': controllerRevisionStrategy,
  'jobs.batch': jobStrategy,
  'cronjobs.batch': cronJobStrategy,
  endpoints: endpointsStrategy,
  persistentvolumeclaims: persistentVolumeClaimStrategy,
  persistentvolumes: persistentVolumeStrategy,
  resourcequotas: resourceQuotaStrategy,
  limitranges: limitRangeStrategy,
  podtemplates: podTemplateStrategy,
  replicationcontrollers: replicationControllerStrategy,
  'endpointslices.discovery.k8s.io': endpointSliceStrategy,
  'ingresses.networking.k8s.io': ingressStrategy,
  'networkpolicies.networking.k8s.io': networkPolicyStrategy,
  'poddisruptionbudgets.policy': podDisruptionBudgetStrategy,
  'horizontalpodautoscalers.autoscaling': horizontalPodAutoscalerStrategy,
  'horizontalpodautoscalers.autoscaling/v1': horizontalPodAutoscalerV1Strategy,
  'events.events.k8s.io': eventsV1Strategy,
  nodes: GENERIC,
  'leases.coordination.k8s.io': GENERIC,
  ...reviewStrategies,
};

/**
 * Strategies of definitions made at runtime (custom resources, one per CRD version), by the
 * definition object itself: two servers in one process never see each other's.
 */
const runtimeStrategies = new WeakMap<ResourceDefinition, ResourceStrategy>();

/** Gives a definition made at runtime its strategy. */
export function setRuntimeStrategy(
  definition: ResourceDefinition,
  strategy: ResourceStrategy,
): void {
  runtimeStrategies.set(definition, strategy);
}

/**
 * The strategy registered for a definition, or undefined when there is none: a served resource
 * must have one (its Store is made with it; ResourceRegistry refuses a definition without).
 */
export function registeredStrategyOf(
  definition: Pick<ResourceDefinition, 'group' | 'plural'> & { version?: string },
): ResourceStrategy | undefined {
  const runtime = runtimeStrategies.get(definition as ResourceDefinition);
  if (runtime) return runtime;
  const qualified = definition.group
    ? `${definition.plural}.${definition.group}`
    : definition.plural;
  const versioned = `${qualified}/${definition.version ?? ''}`;
  if (Object.hasOwn(strategies, versioned)) return strategies[versioned];
  return Object.hasOwn(strategies, qualified) ? strategies[qualified] : undefined;
}

/** The strategy of a definition; one not served (a subresource's kind) has the generic steps. */
export function strategyOf(
  definition: Pick<ResourceDefinition, 'group' | 'plural'> & { version?: string },
): ResourceStrategy {
  return registeredStrategyOf(definition) ?? {};
}

/** The strategy of a subresource the definition lists and a POST creates, if any. */
export function subresourceStrategyOf(
  definition: ResourceDefinition,
  subresource: string | undefined,
): SubresourceStrategy | undefined {
  if (subresource === undefined || !definition.subresources.includes(subresource)) return undefined;
  const own = strategyOf(definition).subresources;
  return own && Object.hasOwn(own, subresource) ? own[subresource] : undefined;
}

export function hasStatusSubresource(definition: ResourceDefinition): boolean {
  return definition.subresources.includes('status');
}

function invalid(definition: ResourceDefinition, name: string, errors: FieldError[]): ApiError {
  return ApiError.invalid(
    { kind: definition.kind, ...(definition.group ? { group: definition.group } : {}) },
    name,
    errors,
  );
}

/** Checks apiVersion/kind of a body against the resource it was sent to (400 otherwise). */
export function checkTypeMeta(definition: ResourceDefinition, object: KubeObject): void {
  const expected = apiVersionOf(definition);
  if (object.apiVersion !== undefined && object.apiVersion !== expected) {
    throw ApiError.badRequest(
      `the API version in the data (${object.apiVersion}) does not match the expected API version (${expected})`,
    );
  }
  if (object.kind !== undefined && object.kind !== definition.kind) {
    throw ApiError.badRequest(
      `the kind in the data (${object.kind}) does not match the expected kind (${definition.kind})`,
    );
  }
}

/** Where a decoded object came from: kube words and codes a decoding failure by it. */
export type DecodeSource = 'body' | 'patch';

function decodeError(
  definition: ResourceDefinition,
  object: Record<string, unknown>,
  failure: DecodeFailure,
  source: DecodeSource,
): ApiError {
  const message = failure.typeMeta
    ? `couldn't get version/kind; json parse error: ${failure.message}`
    : failure.message;
  if (source === 'body') {
    // k8s.io/apiserver pkg/endpoints/handlers/rest.go transformDecodeError: a 400.
    return ApiError.badRequest(
      failure.typeMeta
        ? `the object provided is unrecognized (must be of type ${definition.kind}): ${message}`
        : cannotBeHandled(definition, object, message),
    );
  }
  // handlers/patch.go: a patched object that does not decode is a 422 on `patch`.
  return ApiError.invalid({ kind: '' }, '', [
    fieldErrors.invalid('patch', jsonOrUndefined(object), message),
  ]);
}

/** The object as JSON text, or nothing when it is too deep for JSON.stringify. */
function jsonOrUndefined(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

/**
 * Decodes a request body or a patch result into an object of `definition`'s kind, as kube's
 * typed decode does: every field must have the Go type the schema source gives it (400 for a
 * body, 422 for a patch), nulls become Go zero values, and the kind's defaulting and conversion
 * apply. Every create, update and patch goes through here before the strategy sees the object.
 * `gvk` names a body of another kind (pods/binding: Binding, deployments/scale: Scale).
 */
export function decodeObject(
  definition: ResourceDefinition,
  value: unknown,
  source: DecodeSource,
  gvk?: SchemaGvk,
): KubeObject {
  if (!isRecord(value)) throw ApiError.badRequest('the body of the request must be a JSON object');
  const kind = gvk?.kind ?? definition.kind;
  const failure = decodeTypedObject(value, kind, schemaFor(gvk ?? definition)?.name);
  if (failure) throw decodeError({ ...definition, kind }, value, failure, source);
  const object = value as KubeObject;
  setObjectDefaults(object, gvk ?? definition);
  if (!gvk) strategyOf(definition).decode?.(object);
  return object;
}

/**
 * BeforeCreate: type meta, namespace from the URL, generateName, uid, creationTimestamp,
 * server-owned fields cleared, then ObjectMeta validation (422). Generation is the strategy's
 * (rest/create.go leaves it as sent; deployments and replicasets start it at 1).
 */
export function prepareForCreate(
  definition: ResourceDefinition,
  object: KubeObject,
  namespace: string | undefined,
): KubeObject {
  checkTypeMeta(definition, object);
  const meta = object.metadata;
  if (definition.namespaced) {
    if (meta.namespace && namespace && meta.namespace !== namespace) {
      throw ApiError.badRequest(
        'the namespace of the provided object does not match the namespace sent on the request',
      );
    }
    meta.namespace = meta.namespace || namespace || '';
  } else {
    delete meta.namespace;
  }
  // kube's order: the name, the system fields (handlers/create.go FillObjectMetaSystemFields),
  // PrepareForCreate, then Validate (the job strategy's Validate builds its selector from the uid).
  if (!meta.name && meta.generateName) meta.name = generateName(meta.generateName);
  const strategy = strategyOf(definition);
  object.apiVersion = apiVersionOf(definition);
  object.kind = definition.kind;
  meta.uid = randomUUID();
  meta.creationTimestamp = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  delete meta.resourceVersion;
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  delete meta.selfLink;
  strategy.prepareForCreate?.(object);
  const errors = [
    ...validateObjectMeta(meta, {
      namespaced: definition.namespaced,
      nameRule: definition.nameRule,
    }),
    ...(strategy.validate?.(object) ?? []),
    ...(strategy.validateCreate?.(object) ?? []),
  ];
  if (errors.length) throw invalid(definition, meta.name ?? '', errors);
  return object;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A body's name must be the URL's (handlers/rest.go checkName): 400 otherwise. */
export function checkObjectName(object: KubeObject, name: string): void {
  // A body or patch that drops the name (`remove /metadata`, `{"metadata":null}`) is refused too.
  if ((object.metadata.name ?? '') !== name) {
    throw ApiError.badRequest(
      `the name of the object (${object.metadata.name ?? ''}) does not match the name on the URL (${name})`,
    );
  }
}

/**
 * BeforeUpdate on the main resource or its status: identity fields stay, the status subresource
 * only changes status, the main resource never does (when a status subresource exists), and
 * generation stays unless the strategy bumps it (rest/update.go BeforeUpdate).
 */
export function prepareForUpdate(
  definition: ResourceDefinition,
  next: KubeObject,
  current: KubeObject,
  subresource: string | undefined,
): KubeObject {
  checkTypeMeta(definition, next);
  const name = current.metadata.name ?? '';
  checkObjectName(next, name);
  if (
    definition.namespaced &&
    next.metadata.namespace &&
    next.metadata.namespace !== current.metadata.namespace
  ) {
    throw ApiError.badRequest(
      'the namespace of the provided object does not match the namespace sent on the request',
    );
  }
  let result: KubeObject;
  if (subresource === 'status') {
    // Status writes keep everything else, metadata included (status strategies' PrepareForUpdate).
    result = { ...current, metadata: { ...current.metadata } };
    if ('status' in next) result['status'] = next['status'];
    else delete result['status'];
  } else {
    result = { ...next, metadata: { ...next.metadata } };
    if (hasStatusSubresource(definition)) {
      if ('status' in current) result['status'] = current['status'];
      else delete result['status'];
    }
  }
  const strategy = strategyOf(definition);
  const meta = result.metadata;
  meta.name = name;
  if (definition.namespaced) meta.namespace = current.metadata.namespace ?? '';
  else delete meta.namespace;
  if (current.metadata.generation !== undefined) meta.generation = current.metadata.generation;
  else delete meta.generation;
  // The status strategy's own PrepareForUpdate, or the main one's (which may bump generation).
  if (subresource === 'status') strategy.prepareForStatusUpdate?.(result, next);
  else strategy.prepareForUpdate?.(result, current);
  if (subresource !== undefined && subresource !== 'status')
    strategy.updateSubresources?.[subresource]?.(result, current);
  if (current.metadata.uid !== undefined) meta.uid = current.metadata.uid;
  if (current.metadata.creationTimestamp !== undefined)
    meta.creationTimestamp = current.metadata.creationTimestamp;
  if (current.metadata.deletionTimestamp !== undefined)
    meta.deletionTimestamp = current.metadata.deletionTimestamp;
  else delete meta.deletionTimestamp;
  // Only a delete sets the grace period (ValidateObjectMetaUpdate: immutable).
  if (current.metadata.deletionGracePeriodSeconds !== undefined)
    meta.deletionGracePeriodSeconds = current.metadata.deletionGracePeriodSeconds;
  else delete meta.deletionGracePeriodSeconds;
  result.apiVersion = apiVersionOf(definition);
  result.kind = definition.kind;
  const { generateName: _generated, ...identity } = meta;
  const errors = [
    ...validateObjectMeta(identity, {
      namespaced: definition.namespaced,
      nameRule: definition.nameRule,
    }).filter((e) => e.field !== 'metadata.name' || !current.metadata.name),
    // A status write changes status only: the rest was validated when it was written.
    ...(subresource === 'status' ? [] : (strategy.validate?.(result) ?? [])),
    ...(strategy.validateUpdate?.(result, current) ?? []),
  ];
  if (errors.length) throw invalid(definition, name, errors);
  return result;
}
