import { toApiError, type KubeObject, type Logger } from '@listwatch/api';
import type { KubernetesObject } from '../runtime/kubernetes-object.js';
import type { BackoffOptions } from '../util/backoff.js';
import type { Clock } from '../util/clock.js';
import type { ListParams, TweakListOptions } from '../rest/list-params.js';
import type { RestClient } from '../rest/client.js';
import type { ResourceRef } from '../rest/resource-client.js';
import type { ResourceRefOf } from '../typed/resources.js';
import type { WatchStreamOptions } from '../rest/watch-stream.js';
import type { Indexers } from './indexer.js';
import type { ListerWatcher } from './lister-watcher.js';
import type { TransformFunc } from './queue.js';
import { SharedIndexInformer } from './shared-informer.js';
import type { Lister } from './lister.js';
import { resourceRefFromGVR, type Unstructured } from '../dynamic/dynamic.js';
import type {
  DeferredDiscoveryRESTMapper,
  GroupKind,
  GroupVersionResource,
} from '../restmapper/restmapper.js';

export interface InformerFactoryOptions {
  /** Where informers list and watch; or give `listerWatcherFor`. */
  client?: RestClient | undefined;
  /** A custom source per resource, namespace and (tweaked) params; wins over `client`. */
  listerWatcherFor?: (
    resource: ResourceRef,
    namespace: string,
    tweak: TweakListOptions | undefined,
  ) => ListerWatcher;
  /** '' (default): all namespaces. */
  namespace?: string | undefined;
  /** Applied to every informer's LIST and WATCH, e.g. a label selector. */
  tweakListOptions?: TweakListOptions | undefined;
  /** Default handler resync period of every informer (0: none). */
  defaultResyncMs?: number | undefined;
  transform?: TransformFunc | undefined;
  fifo?: 'real' | 'delta' | undefined;
  handlerBufferSize?: number | undefined;
  useWatchList?: boolean | undefined;
  watch?: Omit<WatchStreamOptions, 'signal'> | undefined;
  reflector?:
    { backoff?: BackoffOptions; pageSize?: number; minWatchTimeoutMs?: number } | undefined;
  logger?: Logger | undefined;
  clock?: Clock | undefined;
  /** Finds resources by kind for forKind(), and the scope of those forResource() is given. */
  restMapper?: DeferredDiscoveryRESTMapper | undefined;
}

/** An informer and its lister, by resource (client-go informers.GenericInformer). */
export interface GenericInformer<T extends KubernetesObject = Unstructured> {
  informer(): SharedIndexInformer<T>;
  lister(): Lister<T>;
}

export interface InformerOptions<T extends KubernetesObject = KubeObject> {
  namespace?: string | undefined;
  tweakListOptions?: TweakListOptions | undefined;
  resyncPeriodMs?: number | undefined;
  indexers?: Indexers<T> | undefined;
  transform?: TransformFunc<T> | undefined;
}

/**
 * Hands out one SharedIndexInformer per resource, namespace and selectors, so every controller
 * in a process that watches pods shares one watch and one cache (client-go
 * SharedInformerFactory).
 */
export class SharedInformerFactory {
  private readonly informers = new Map<string, SharedIndexInformer>();
  /** Keys of the informers start() has started. */
  private readonly started = new Set<string>();
  private readonly options: InformerFactoryOptions;
  private shuttingDown = false;

  constructor(options: InformerFactoryOptions) {
    if (!options.client && !options.listerWatcherFor) {
      throw toApiError(
        new Error('an informer factory needs a client or a listerWatcherFor function'),
      );
    }
    this.options = options;
  }

  /** The shared informer for a resource; created on first use, started by start(). */
  informerFor<T extends KubernetesObject = KubeObject>(
    resource: ResourceRefOf<T>,
    options: InformerOptions<T> = {},
  ): SharedIndexInformer<T> {
    const namespace = resource.namespaced
      ? (options.namespace ?? this.options.namespace ?? '')
      : '';
    const tweak = combine(this.options.tweakListOptions, options.tweakListOptions);
    const params = tweak ? tweak({}) : {};
    const key = informerKey(resource, namespace, params);
    const existing = this.informers.get(key);
    if (existing) return existing as unknown as SharedIndexInformer<T>;
    if (this.shuttingDown) throw toApiError(new Error('the informer factory is shut down'));
    const lw = (this.options.listerWatcherFor?.(resource, namespace, tweak) ??
      this.options
        .client!.resource<T>(resource)
        .namespace(namespace)
        .listerWatcher(tweak, this.options.watch ?? {})) as ListerWatcher<T>;
    const transform = (options.transform ?? this.options.transform) as TransformFunc<T> | undefined;
    const informer = new SharedIndexInformer<T>({
      listerWatcher: lw,
      resource: { group: resource.group, resource: resource.plural },
      resyncPeriodMs: options.resyncPeriodMs ?? this.options.defaultResyncMs ?? 0,
      ...(options.indexers ? { indexers: options.indexers } : {}),
      ...(transform ? { transform } : {}),
      ...(this.options.fifo ? { fifo: this.options.fifo } : {}),
      ...(this.options.handlerBufferSize !== undefined
        ? { handlerBufferSize: this.options.handlerBufferSize }
        : {}),
      ...(this.options.useWatchList !== undefined
        ? { useWatchList: this.options.useWatchList }
        : {}),
      ...(this.options.reflector ? { reflector: this.options.reflector } : {}),
      ...(this.options.logger ? { logger: this.options.logger } : {}),
      ...(this.options.clock ? { clock: this.options.clock } : {}),
    });
    this.informers.set(key, informer as unknown as SharedIndexInformer);
    return informer;
  }

  /**
   * The shared informer of any resource by group/version/resource, holding unstructured objects
   * (client-go dynamicinformer.DynamicSharedInformerFactory ForResource): a custom resource's
   * controller needs no generated code. A cluster-scoped resource needs `namespaced: false`
   * when the factory is limited to a namespace; forKind() knows the scope from discovery.
   */
  forResource<T extends KubernetesObject = Unstructured>(
    gvr: GroupVersionResource,
    options: InformerOptions<T> & { namespaced?: boolean } = {},
  ): GenericInformer<T> {
    const { namespaced, ...rest } = options;
    const informer = this.informerFor<T>(resourceRefFromGVR(gvr, namespaced), rest);
    return { informer: () => informer, lister: () => informer.lister() };
  }

  /**
   * The shared informer of a kind, its resource found through the REST mapper (discovery):
   * the version given, else the group's preferred one. A kind added since the last discovery
   * (a new CRD) is found, the mapper refetching on a miss.
   */
  async forKind<T extends KubernetesObject = Unstructured>(
    kind: GroupKind & { version?: string },
    options: InformerOptions<T> = {},
  ): Promise<GenericInformer<T>> {
    const mapper = this.options.restMapper;
    if (!mapper) throw toApiError(new Error('forKind needs an informer factory with a restMapper'));
    const ref = await mapper.resourceRefFor<T>(kind);
    const informer = this.informerFor<T>(ref, options);
    return { informer: () => informer, lister: () => informer.lister() };
  }

  /** Starts every informer created so far that is not running yet. */
  start(): void {
    if (this.shuttingDown) return;
    for (const [key, informer] of this.informers) {
      informer.start();
      this.started.add(key);
    }
  }

  /**
   * Waits until every started informer has synced; resolves each one's outcome by key. One
   * created since the last start() is not waited for: it would never sync (client-go).
   */
  async waitForCacheSync(signal?: AbortSignal): Promise<Map<string, boolean>> {
    const result = new Map<string, boolean>();
    const started = [...this.informers].filter(([key]) => this.started.has(key));
    await Promise.all(
      started.map(async ([key, informer]) => {
        result.set(key, await informer.waitForCacheSync(signal));
      }),
    );
    return result;
  }

  /** Stops every informer; the client is the caller's to close. */
  async shutdown(): Promise<void> {
    this.shuttingDown = true;
    await Promise.all([...this.informers.values()].map((i) => i.stop()));
  }
}

function combine(
  a: TweakListOptions | undefined,
  b: TweakListOptions | undefined,
): TweakListOptions | undefined {
  if (!a) return b;
  if (!b) return a;
  return (params) => b(a(params));
}

/** Informers are shared when they would send the same requests. */
export function informerKey(resource: ResourceRef, namespace: string, params: ListParams): string {
  const gvr = `${resource.group || 'core'}/${resource.version}/${resource.plural}`;
  const ls = params.labelSelector?.toString() ?? '';
  const fs = params.fieldSelector?.toString() ?? '';
  return `${gvr}|ns=${namespace}|labels=${ls}|fields=${fs}`;
}

/**
 * client-go dynamicinformer.NewFilteredDynamicSharedInformerFactory: a factory whose informers
 * are asked for by resource (forResource) or kind (forKind, with `restMapper`).
 */
export function newFilteredDynamicSharedInformerFactory(
  client: RestClient,
  defaultResyncMs: number,
  namespace: string,
  tweakListOptions?: TweakListOptions,
  restMapper?: DeferredDiscoveryRESTMapper,
): SharedInformerFactory {
  return new SharedInformerFactory({
    client,
    defaultResyncMs,
    namespace,
    ...(tweakListOptions ? { tweakListOptions } : {}),
    ...(restMapper ? { restMapper } : {}),
  });
}
