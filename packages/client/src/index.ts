export { realClock, type Clock, type ClockTimer } from './util/clock.js';
export { FakeClock } from './util/fake-clock.js';

export {
  DeletedFinalStateUnknown,
  isDeletedFinalStateUnknown,
} from './cache/deleted-final-state-unknown.js';
export {
  deletionHandlingMetaNamespaceKeyFunc,
  metaNamespaceKeyFunc,
  splitMetaNamespaceKey,
  type KeyFunc,
} from './cache/key-func.js';
export { newStore, type KeyListerGetter, type ReflectorStore, type Store } from './cache/store.js';
export {
  metaNamespaceIndexFunc,
  NamespaceIndex,
  newIndexer,
  type IndexFunc,
  type Indexer,
  type Indexers,
} from './cache/indexer.js';
export { Lister, NamespaceLister, type LabelMatcher } from './cache/lister.js';
export { DeltaType, newestDelta, oldestDelta, type Delta, type Deltas } from './cache/delta.js';
export {
  FIFOClosedError,
  isFIFOClosedError,
  type PopProcessFunc,
  type Queue,
  type TransformFunc,
} from './cache/queue.js';
export { DeltaFIFO, type DeltaFIFOOptions } from './cache/delta-fifo.js';
export { RealFIFO, type RealFIFOOptions } from './cache/real-fifo.js';
export type { ResourceEventHandler } from './cache/resource-event-handler.js';
export { processDeltas } from './cache/process-deltas.js';

export {
  InMemoryWorkQueueMetrics,
  noopWorkQueueMetrics,
  type WorkQueueMetrics,
} from './workqueue/metrics.js';
export { WorkQueue, type WorkQueueGetResult, type WorkQueueOptions } from './workqueue/queue.js';
export { DelayingQueue } from './workqueue/delaying-queue.js';
export {
  RateLimitingQueue,
  type RateLimitingQueueOptions,
} from './workqueue/rate-limiting-queue.js';
export {
  BucketRateLimiter,
  defaultControllerRateLimiter,
  ItemExponentialFailureRateLimiter,
  ItemFastSlowRateLimiter,
  MaxOfRateLimiter,
  WithMaxWaitRateLimiter,
  type RateLimiter,
} from './workqueue/rate-limiters.js';

// Logging is @listwatch/api's (one Logger, one redaction rule); re-exported for compatibility.
export { jsonLineLogger, silentLogger, type Logger, type LogLevel } from '@listwatch/api';
export { defaultClientLogger } from './util/default-logger.js';
export { sleep } from './util/sleep.js';
export { Backoff, REFLECTOR_BACKOFF, type BackoffOptions } from './util/backoff.js';
export {
  ConnectionError,
  WatchIdleError,
  errorFromResponse,
  isConnectionRefused,
  isExpired,
  isTooLargeResourceVersion,
  isTooManyRequests,
  reasonForCode,
} from './rest/errors.js';
export {
  anonymousCredentials,
  basicAuth,
  bearerToken,
  clientCertificate,
  TokenFileProvider,
  type CredentialProvider,
  type Credentials,
  type TokenFileOptions,
} from './clientcmd/credentials.js';
// The Node-only parts (kubeconfig, exec credentials), as `@listwatch/client/node` lists them.
export * from './node.js';
export { listParamsToQuery, type ListParams, type TweakListOptions } from './rest/list-params.js';
export {
  DEFAULT_PAGE_SIZE,
  ListPager,
  type ListPage,
  type ListPagerOptions,
  type PageFunc,
} from './pager/list-pager.js';
export type { RestClientOptions, RestConfig, RetryOptions, TlsConfig } from './rest/config.js';
export type { HttpMethod, RequestOptions } from './rest/request.js';
export { RestClient } from './rest/client.js';
// The patch media types are @listwatch/api's; re-exported for compatibility.
export { PATCH_CONTENT_TYPES } from '@listwatch/api';
export {
  ResourceClient,
  type DeleteOptions,
  type GetOptions,
  type ApplyConfiguration,
  type ApplyOptions,
  type PatchType,
  type ResourceRef,
  type WriteOptions,
} from './rest/resource-client.js';
export {
  bearerSubprotocol,
  DEFAULT_BOOKMARK_IDLE_TIMEOUT_MS,
  defaultIdleTimeoutMs,
  type WatchConnector,
  type WatchStream,
  type WatchStreamEvent,
  type WatchStreamOptions,
  type WatchTransport,
} from './rest/watch-stream.js';

export type { ListerWatcher } from './cache/lister-watcher.js';
export { Reflector, type ReflectorOptions } from './cache/reflector.js';
export type {
  ReflectorObserver,
  ReflectorPhase,
  ReflectorWatchEventInfo,
} from './cache/reflector-observer.js';
export {
  DEFAULT_HANDLER_BUFFER_SIZE,
  type EventHandler,
  type HandlerMetrics,
} from './cache/processor-listener.js';
export {
  MINIMUM_RESYNC_PERIOD_MS,
  SharedIndexInformer,
  waitForCacheSync,
  type HandlerOptions,
  type HandlerRegistration,
  type InformerMetrics,
  type SharedInformerOptions,
} from './cache/shared-informer.js';
export {
  informerKey,
  newFilteredDynamicSharedInformerFactory,
  SharedInformerFactory,
  type GenericInformer,
  type InformerFactoryOptions,
  type InformerOptions,
} from './cache/informer-factory.js';

export {
  Controller,
  deletedObject,
  enqueueKeys,
  type ControllerOptions,
} from './controller/controller.js';

// The reconciler runtime, named as controller-runtime's packages.
export {
  requestFromKey,
  requestKey,
  type Reconciler,
  type Request,
  type Result,
} from './reconcile/reconcile.js';
export {
  ControllerBuilder,
  newControllerManagedBy,
  type ControllerBuilderOptions,
  type ForOptions,
} from './builder/builder.js';
export { Manager, type ManagerOptions, type Runnable } from './manager/manager.js';
export {
  and,
  annotationChangedPredicate,
  generationChangedPredicate,
  labelChangedPredicate,
  or,
  resourceVersionChangedPredicate,
  type Predicate,
} from './predicate/predicate.js';
export {
  enqueueMapped,
  requestForObject,
  requestForOwner,
  type MapFunc,
} from './handler/enqueue.js';
export {
  addFinalizer,
  addFinalizerWithPatch,
  containsFinalizer,
  removeFinalizer,
  removeFinalizerWithPatch,
  setControllerReference,
} from './controllerutil/controllerutil.js';
export {
  findStatusCondition,
  isStatusConditionFalse,
  isStatusConditionPresentAndEqual,
  isStatusConditionTrue,
  removeStatusCondition,
  setStatusCondition,
  type ConditionInput,
} from './meta/conditions.js';
export {
  controllerRuntimeMetrics,
  InMemoryMetrics,
  workQueueMetricsProvider,
  type CounterMetric,
  type GaugeMetric,
  type HistogramMetric,
  type MetricLabels,
  type MetricOptions,
  type MetricsFactory,
  type ReconcileMetrics,
  type ReconcileOutcome,
} from './metrics/metrics.js';

export {
  EventBroadcaster,
  EventRecorder,
  objectReference,
  type EventBroadcasterOptions,
  type EventBroadcasterStats,
  type EventRecorderOptions,
  type EventType,
} from './tools/events/event-broadcaster.js';
export {
  AGGREGATE_MESSAGE_PREFIX,
  EventCorrelator,
  type CorrelateResult,
  type EventCorrelatorOptions,
} from './tools/record/events-cache.js';

export {
  LeaderElector,
  type LeaderCallbacks,
  type LeaderElectionConfig,
} from './leaderelection/leader-election.js';
export {
  formatMicroTime,
  LeaseLock,
  type LeaderElectionRecord,
  type Lease,
  type ResourceLock,
} from './leaderelection/resource-lock.js';
export {
  ADD,
  CHANGE,
  CONNECT,
  DELETE,
  ERROR,
  makeInformer,
  parseCollectionPath,
  UPDATE,
  type Informer,
  type InformerEvent,
  type MakeInformerOptions,
} from './cache/make-informer.js';

export type {
  KubernetesListObject,
  KubernetesObject,
  ObjectMetaAccessor,
  OwnerReferenceAccessor,
} from './runtime/kubernetes-object.js';
export {
  apiextensionsV1,
  apiregistrationV1,
  appsV1,
  authenticationV1,
  authorizationV1,
  autoscalingV1,
  autoscalingV2,
  batchV1,
  coordinationV1,
  coreV1,
  discoveryV1,
  eventsV1,
  networkingV1,
  policyV1,
  rbacV1,
  typedResource,
  typedResources,
  type ObjectOf,
  type ResourceRefOf,
  type TypedResourceRef,
} from './typed/resources.js';
export type * from './typed/types.js';
export type { APIService, APIServiceCondition, APIServiceSpec } from './typed/apiregistration.js';

export {
  DiscoveryClient,
  type APIGroupResources,
  type DiscoveryClientOptions,
} from './discovery/discovery.js';
export {
  DeferredDiscoveryRESTMapper,
  DiscoveryRESTMapper,
  isNoMatchError,
  NoKindMatchError,
  NoResourceMatchError,
  type GroupKind,
  type GroupVersionKind,
  type GroupVersionResource,
  type PartialGroupVersionResource,
  type RESTMapping,
} from './restmapper/restmapper.js';

export { resourceRefFromGVR, type Unstructured } from './dynamic/dynamic.js';

export { Watch, type WatchCallback } from './rest/watch.js';
