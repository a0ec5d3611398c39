import { qualifiedResource, type Logger, type ResourceDefinition } from '@listwatch/api';
import {
  Cacher,
  UncachedSource,
  type CacherMetrics,
  type ListWatchSource,
  type Storage,
} from '@listwatch/storage';
import type { ServiceAccountTokens } from '../authentication/service-account-options.js';
import { ConvertingStorage } from './generic/converting-storage.js';
import { Store } from './generic/store.js';
import { storesNothing, type ServedResource } from './rest/resource-strategy.js';

export interface WatchCacheSizes {
  /** `--default-watch-cache-size`: undefined adaptive, N fixed, 0 disabled. */
  default?: number;
  /** Per resource (`pods`, `deployments.apps`) overrides, as `--watch-cache-sizes`. */
  perResource?: Readonly<Record<string, number>>;
}

/** One served resource: its definition, what serves its LIST and WATCH, and where it is written. */
export interface ResourceEntry {
  definition: ResourceDefinition;
  /** Every verb of the resource goes through its Store (registry/generic/store.ts). */
  store: Store;
  source: ListWatchSource;
  /**
   * The server's storage, or a view of it: another group version's form (events.k8s.io), a CRD
   * version's.
   */
  storage: Storage;
}

/**
 * The resources this server serves, each with its watch cache (or direct storage access when
 * the cache is disabled for it). Adding a resource is adding a definition.
 */
export interface ResourceRegistryOptions {
  watchCacheSizes?: WatchCacheSizes;
  logger?: Logger;
  metrics?: CacherMetrics;
  bookmarkIntervalMs?: number;
}

function keyOf(group: string, version: string, resource: string): string {
  return `${group ? `${group}/` : ''}${version}/${resource}`;
}

/**
 * The resources this server serves, each with its watch cache (or direct storage access when
 * the cache is disabled for it). Adding a resource is adding a definition and its strategy: the built-ins at
 * construction, custom resources at runtime (`add`, `remove`), which listeners hear of.
 */
export class ResourceRegistry {
  private readonly entries = new Map<string, ResourceEntry>();
  private readonly listeners = new Set<() => void>();
  private started = false;
  /** Set once the server can sign service-account tokens: serviceaccounts/token is served. */
  serviceAccountTokens: ServiceAccountTokens | undefined;

  constructor(
    readonly storage: Storage,
    resources: readonly ServedResource[],
    private readonly options: ResourceRegistryOptions = {},
  ) {
    for (const resource of resources) {
      const { group, version, plural } = resource.definition;
      this.entries.set(keyOf(group, version, plural), this.entryOf(resource));
    }
  }

  /** The Store of one resource, made with the strategy it was given (kube's NewREST). */
  private entryOf({ definition, strategy }: ServedResource, own?: Storage): ResourceEntry {
    const { options } = this;
    const conversion = strategy.storage;
    const storage =
      own ?? (conversion ? new ConvertingStorage(this.storage, conversion) : this.storage);
    const size =
      options.watchCacheSizes?.perResource?.[qualifiedResource(definition)] ??
      options.watchCacheSizes?.default;
    // A resource that stores nothing (the reviews) has no cache: no verb of it reads storage.
    const source: ListWatchSource =
      size === 0 || storesNothing(strategy)
        ? new UncachedSource(storage, definition)
        : new Cacher({
            storage,
            definition,
            ...(size !== undefined ? { watchCacheSize: size } : {}),
            ...(options.logger ? { logger: options.logger } : {}),
            ...(options.metrics ? { metrics: options.metrics } : {}),
            ...(options.bookmarkIntervalMs
              ? { bookmarkIntervalMs: options.bookmarkIntervalMs }
              : {}),
          });
    const store = new Store({ definition, strategy, storage, source, registry: this });
    return { definition, store, source, storage };
  }

  lookup(group: string, version: string, resource: string): ResourceEntry | undefined {
    return this.entries.get(keyOf(group, version, resource));
  }

  get all(): ResourceEntry[] {
    return [...this.entries.values()];
  }

  get definitions(): ResourceDefinition[] {
    return this.all.map((e) => e.definition);
  }

  get ready(): boolean {
    return this.all.every((e) => e.source.isReady);
  }

  /** Calls `listener` after each `add` or `remove` (discovery and OpenAPI rebuild on it). */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Serves a resource from now on with its strategy, replacing (and stopping) the entry of the
   * same group/version/resource; its cache starts if the registry has. `storage` is a view of the
   * server's storage the resource is read and written through, if not the server's own.
   */
  async add(resource: ServedResource, storage?: Storage): Promise<ResourceEntry> {
    const { group, version, plural } = resource.definition;
    const key = keyOf(group, version, plural);
    const previous = this.entries.get(key);
    const entry = this.entryOf(resource, storage);
    if (this.started) await entry.source.start();
    this.entries.set(key, entry);
    this.changed();
    if (previous) await previous.source.stop();
    return entry;
  }

  /** Stops serving a resource: its watches end, as at shutdown, and its cache is dropped. */
  async remove(group: string, version: string, resource: string): Promise<void> {
    const key = keyOf(group, version, resource);
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.changed();
    await entry.source.stop();
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }

  async start(): Promise<void> {
    this.started = true;
    await this.warnWithoutProgressRequests();
    await Promise.all(this.all.map((e) => e.source.start()));
  }

  /**
   * Once, at start: what the watch caches do without reliable watch progress requests (kube's
   * RequestWatchProgress, feature_support_checker.go). Readiness never waits for them.
   */
  private async warnWithoutProgressRequests(): Promise<void> {
    if (!this.storage.supportsProgressRequests || (await this.storage.supportsProgressRequests()))
      return;
    this.options.logger?.warn(
      'etcd does not answer watch progress requests reliably (every member needs etcd 3.4.31+ or 3.5.13+): consistent LISTs are read from etcd instead of the watch cache, and a watch cache (re)initializes at the current revision without replaying history, so a watch from an older resourceVersion may get 410 Gone and relist',
    );
  }

  async stop(): Promise<void> {
    this.started = false;
    await Promise.all(this.all.map((e) => e.source.stop()));
  }
}
