import { apiVersionOf, type Logger, type ResourceDefinition } from '@listwatch/api';
import {
  Cacher,
  UncachedSource,
  type CacherMetrics,
  type ListWatchSource,
  type Storage,
} from '@listwatch/storage';
import { ConvertingStorage } from './converting-storage.js';
import { strategyOf } from './strategy.js';

export interface WatchCacheSizes {
  /** `--default-watch-cache-size`: undefined adaptive, N fixed, 0 disabled. */
  default?: number;
  /** Per resource (`pods`, `deployments.apps`) overrides, as `--watch-cache-sizes`. */
  perResource?: Readonly<Record<string, number>>;
}

/** One served resource: its definition, what serves its LIST and WATCH, and where it is written. */
export interface ResourceEntry {
  definition: ResourceDefinition;
  source: ListWatchSource;
  /** The server's storage, or a view of it in another group version's form (events.k8s.io). */
  storage: Storage;
}

export function qualifiedResource(
  definition: Pick<ResourceDefinition, 'plural' | 'group'>,
): string {
  return definition.group ? `${definition.plural}.${definition.group}` : definition.plural;
}

/**
 * The resources this server serves, each with its watch cache (or direct storage access when
 * the cache is disabled for it). Adding a resource is adding a definition.
 */
export class ResourceRegistry {
  private readonly entries = new Map<string, ResourceEntry>();

  constructor(
    readonly storage: Storage,
    definitions: readonly ResourceDefinition[],
    options: {
      watchCacheSizes?: WatchCacheSizes;
      logger?: Logger;
      metrics?: CacherMetrics;
      bookmarkIntervalMs?: number;
    } = {},
  ) {
    for (const definition of definitions) {
      const conversion = strategyOf(definition).storage;
      const view = conversion ? new ConvertingStorage(storage, conversion) : storage;
      const size =
        options.watchCacheSizes?.perResource?.[qualifiedResource(definition)] ??
        options.watchCacheSizes?.default;
      const source: ListWatchSource =
        size === 0
          ? new UncachedSource(view, definition)
          : new Cacher({
              storage: view,
              definition,
              ...(size !== undefined ? { watchCacheSize: size } : {}),
              ...(options.logger ? { logger: options.logger } : {}),
              ...(options.metrics ? { metrics: options.metrics } : {}),
              ...(options.bookmarkIntervalMs
                ? { bookmarkIntervalMs: options.bookmarkIntervalMs }
                : {}),
            });
      this.entries.set(`${apiVersionOf(definition)}/${definition.plural}`, {
        definition,
        source,
        storage: view,
      });
    }
  }

  lookup(group: string, version: string, resource: string): ResourceEntry | undefined {
    return this.entries.get(`${group ? `${group}/` : ''}${version}/${resource}`);
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

  async start(): Promise<void> {
    await Promise.all(this.all.map((e) => e.source.start()));
  }

  async stop(): Promise<void> {
    await Promise.all(this.all.map((e) => e.source.stop()));
  }
}
