import type { KubeObject } from '@listwatch/api';
import type {
  Storage,
  StorageDeleteOptions,
  StorageEvent,
  StorageListOptions,
  StorageListResult,
  StorageUpdateOptions,
  StorageWatch,
  StorageWatchOptions,
  TryUpdate,
} from '@listwatch/storage';

/**
 * How a resource served at one group version is kept in the form of another (kube's storage
 * version and the conversions of its scheme): events.k8s.io/v1 Events are stored as core/v1
 * Events, under the same key, so both APIs see the same objects; a CRD's served versions are
 * stored in its storage version (apiextensions/nop-converter.ts).
 */
export interface StorageConversion {
  /** The served object as stored. */
  toStored(object: KubeObject): KubeObject;
  /** The stored object as served. */
  fromStored(object: KubeObject): KubeObject;
}

/**
 * A view of a storage through a conversion: what goes in is converted to the stored form, what
 * comes out (reads, write results, watch events) to the served one. Closing the view leaves the
 * storage open; it belongs to the server.
 */
export class ConvertingStorage implements Storage {
  constructor(
    private readonly storage: Storage,
    private readonly conversion: StorageConversion,
  ) {}

  get prefix(): string {
    return this.storage.prefix;
  }

  private out = (object: KubeObject): KubeObject => this.conversion.fromStored(object);
  private in = (object: KubeObject): KubeObject => this.conversion.toStored(object);

  async get(key: string): Promise<KubeObject | undefined> {
    const object = await this.storage.get(key);
    return object && this.out(object);
  }

  async list(prefix: string, options?: StorageListOptions): Promise<StorageListResult> {
    const result = await this.storage.list(prefix, options);
    return { ...result, items: result.items.map(this.out) };
  }

  count(prefix: string): Promise<number> {
    return this.storage.count(prefix);
  }

  async create(key: string, object: KubeObject): Promise<KubeObject> {
    return this.out(await this.storage.create(key, this.in(object)));
  }

  async update(
    key: string,
    object: KubeObject,
    options?: StorageUpdateOptions,
  ): Promise<KubeObject> {
    return this.out(await this.storage.update(key, this.in(object), options));
  }

  async guaranteedUpdate(
    key: string,
    tryUpdate: TryUpdate,
    cachedExisting?: KubeObject,
  ): Promise<KubeObject> {
    const updated = await this.storage.guaranteedUpdate(
      key,
      async (current) => this.in(await tryUpdate(this.out(current))),
      cachedExisting && this.in(cachedExisting),
    );
    return this.out(updated);
  }

  async delete(key: string, options?: StorageDeleteOptions): Promise<KubeObject> {
    return this.out(await this.storage.delete(key, options));
  }

  watch(prefix: string, options?: StorageWatchOptions): StorageWatch {
    const watch = this.storage.watch(prefix, options);
    const out = this.out;
    return {
      requestProgress: () => watch.requestProgress(),
      close: () => watch.close(),
      async *[Symbol.asyncIterator](): AsyncIterator<StorageEvent> {
        for await (const event of watch) {
          if (event.type === 'PROGRESS') yield event;
          else
            yield {
              ...event,
              object: out(event.object),
              ...(event.prevObject ? { prevObject: out(event.prevObject) } : {}),
            };
        }
      },
    };
  }

  supportsProgressRequests(): Promise<boolean> {
    return this.storage.supportsProgressRequests?.() ?? Promise.resolve(true);
  }

  currentRevision(): ReturnType<Storage['currentRevision']> {
    return this.storage.currentRevision();
  }

  compactRevision(): ReturnType<Storage['compactRevision']> {
    return this.storage.compactRevision();
  }

  compact(revision: number): Promise<void> {
    return this.storage.compact(revision);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
