import {
  ApiError,
  findBuiltinResource,
  parseFieldSelector,
  parseLabelSelector,
  type KubeList,
  type KubeObject,
  type ResourceDefinition,
} from '@listwatch/api';
import { Cacher, MemoryStorage, SelectionPredicate, type CacheWatcher } from '@listwatch/storage';
import type { ListerWatcher } from '../cache/lister-watcher.js';
import type { ListParams } from '../rest/list-params.js';
import type { WatchStream, WatchStreamEvent } from '../rest/watch-stream.js';

export interface CacheClusterOptions {
  /** Watch cache window (`--default-watch-cache-size`); small makes old RVs fall out fast. */
  watchCacheSize?: number;
  bookmarkIntervalMs?: number;
  tickIntervalMs?: number;
  progressNotifyIntervalMs?: number;
}

export function definition(plural: string): ResourceDefinition {
  const def = findBuiltinResource(plural);
  if (!def) throw new Error(`no built-in resource ${plural}`);
  return def;
}

function predicateOf(params: ListParams): SelectionPredicate {
  const label = params.labelSelector
    ? parseLabelSelector(params.labelSelector.toString())
    : undefined;
  const field = params.fieldSelector
    ? parseFieldSelector(params.fieldSelector.toString())
    : undefined;
  return new SelectionPredicate(label, field);
}

/**
 * The watch cache of kube-apiserver (storage's Cacher over MemoryStorage), in process: the same
 * list and watch semantics the apiserver serves, without HTTP. Tests drive writes through
 * `create`/`update`/`remove` and read through `listerWatcher`.
 */
export class CacheCluster {
  readonly storage: MemoryStorage;
  private readonly cachers = new Map<string, Cacher>();
  /** Every LIST and WATCH the listerWatchers received, for assertions on what a client sent. */
  readonly requests: { verb: 'list' | 'watch'; resource: string; params: ListParams }[] = [];

  constructor(private readonly options: CacheClusterOptions = {}) {
    // Frequent progress notifications let the cache (and its bookmarks) advance while idle.
    this.storage = new MemoryStorage({
      compactionInterval: 0,
      progressNotifyInterval: options.progressNotifyIntervalMs ?? 100,
    });
  }

  async cacher(plural: string): Promise<Cacher> {
    let cacher = this.cachers.get(plural);
    if (!cacher) {
      cacher = new Cacher({
        storage: this.storage,
        definition: definition(plural),
        ...(this.options.watchCacheSize !== undefined
          ? { watchCacheSize: this.options.watchCacheSize }
          : {}),
        bookmarkIntervalMs: this.options.bookmarkIntervalMs ?? 60_000,
        tickIntervalMs: this.options.tickIntervalMs ?? 50,
      });
      this.cachers.set(plural, cacher);
    }
    await cacher.start();
    return cacher;
  }

  private key(plural: string, namespace: string | undefined, name: string): string {
    const def = definition(plural);
    return `${this.storage.prefix}/${def.plural}/${def.namespaced ? `${namespace ?? ''}/` : ''}${name}`;
  }

  async create<T extends KubeObject>(plural: string, obj: T): Promise<T> {
    const { namespace, name } = obj.metadata;
    return (await this.storage.create(this.key(plural, namespace, name ?? ''), obj)) as T;
  }

  async update<T extends KubeObject>(plural: string, obj: T): Promise<T> {
    const { namespace, name } = obj.metadata;
    return (await this.storage.update(this.key(plural, namespace, name ?? ''), obj)) as T;
  }

  async remove(plural: string, namespace: string | undefined, name: string): Promise<KubeObject> {
    return this.storage.delete(this.key(plural, namespace, name));
  }

  async currentRevision(): Promise<number> {
    return this.storage.currentRevision();
  }

  /** A ListerWatcher over the cacher, scoped to `namespace` ('' or undefined: all). */
  listerWatcher<T extends KubeObject = KubeObject>(
    plural: string,
    namespace?: string,
  ): ListerWatcher<T> {
    const def = definition(plural);
    return {
      list: async (params) => {
        this.requests.push({ verb: 'list', resource: plural, params });
        const cacher = await this.cacher(plural);
        const result = await cacher.list({
          ...(namespace ? { namespace } : {}),
          predicate: predicateOf(params),
          ...(params.resourceVersion !== undefined
            ? { resourceVersion: params.resourceVersion }
            : {}),
          ...(params.resourceVersionMatch
            ? { resourceVersionMatch: params.resourceVersionMatch }
            : {}),
          ...(params.limit ? { limit: params.limit } : {}),
          ...(params.continue ? { continue: params.continue } : {}),
        });
        const list: KubeList<T> = {
          apiVersion: def.group ? `${def.group}/${def.version}` : def.version,
          kind: def.listKind,
          metadata: {
            resourceVersion: result.resourceVersion,
            ...(result.continue ? { continue: result.continue } : {}),
            ...(result.remainingItemCount !== undefined
              ? { remainingItemCount: result.remainingItemCount }
              : {}),
          },
          items: result.items as T[],
        };
        return list;
      },
      watch: async (params) => {
        this.requests.push({ verb: 'watch', resource: plural, params });
        const cacher = await this.cacher(plural);
        const watcher = await cacher.watch({
          ...(namespace ? { namespace } : {}),
          predicate: predicateOf(params),
          ...(params.resourceVersion !== undefined
            ? { resourceVersion: params.resourceVersion }
            : {}),
          ...(params.sendInitialEvents !== undefined
            ? { sendInitialEvents: params.sendInitialEvents }
            : {}),
          allowWatchBookmarks: params.allowWatchBookmarks ?? false,
          ...(params.timeoutSeconds !== undefined
            ? { timeoutMs: params.timeoutSeconds * 1000 }
            : {}),
        });
        return cacheWatchStream<T>(watcher);
      },
    };
  }

  async close(): Promise<void> {
    await Promise.all([...this.cachers.values()].map((c) => c.stop()));
    await this.storage.close();
  }
}

/** A CacheWatcher as a WatchStream: ERROR events become thrown ApiErrors, as over HTTP. */
export function cacheWatchStream<T extends KubeObject>(watcher: CacheWatcher): WatchStream<T> {
  return {
    close: () => watcher.end('closed'),
    async *[Symbol.asyncIterator]() {
      for await (const { encoded } of watcher) {
        const event = encoded.event;
        if (event.type === 'ERROR') throw ApiError.fromStatus({ ...event.object, metadata: {} });
        yield event as WatchStreamEvent<T>;
      }
    },
  };
}
