import type { KubeObject } from '@listwatch/api';
import type {
  Revision,
  Storage,
  StorageEvent,
  StorageListOptions,
  StorageListResult,
  StorageUpdateOptions,
  StorageDeleteOptions,
  StorageWatch,
  StorageWatchOptions,
  TryUpdate,
} from '@listwatch/storage';

// Conversion strategy None between the versions of one CRD (apiextensions-apiserver
// pkg/apiserver/conversion/nop_converter.go): only apiVersion changes. Objects are stored in the
// storage version and read in the version asked for; this is the storage one served version's
// cache and handlers see.

function withApiVersion(object: KubeObject, apiVersion: string): KubeObject {
  return object.apiVersion === apiVersion ? object : { ...object, apiVersion };
}

/**
 * A view of storage in which a CRD's objects are in `servedVersion`, stored in `storageVersion`;
 * `defaults` (the served version's structural defaulting) applies to what is read, as kube
 * defaults objects read from etcd.
 */
export class VersionedStorage implements Storage {
  constructor(
    private readonly storage: Storage,
    private readonly servedVersion: string,
    private readonly storageVersion: string,
    private readonly defaults?: (object: KubeObject) => void,
  ) {}

  get prefix(): string {
    return this.storage.prefix;
  }

  private out = (object: KubeObject): KubeObject => {
    if (!this.defaults) return withApiVersion(object, this.servedVersion);
    // Stored objects may be shared (memory storage): default a copy.
    const copy = structuredClone(object);
    this.defaults(copy);
    return withApiVersion(copy, this.servedVersion);
  };
  private in = (object: KubeObject): KubeObject => withApiVersion(object, this.storageVersion);

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

  async guaranteedUpdate(key: string, tryUpdate: TryUpdate): Promise<KubeObject> {
    const updated = await this.storage.guaranteedUpdate(key, async (current) =>
      this.in(await tryUpdate(this.out(current))),
    );
    return this.out(updated);
  }

  async delete(key: string, options?: StorageDeleteOptions): Promise<KubeObject> {
    return this.out(await this.storage.delete(key, options));
  }

  watch(prefix: string, options?: StorageWatchOptions): StorageWatch {
    const inner = this.storage.watch(prefix, options);
    const out = this.out;
    return {
      requestProgress: () => inner.requestProgress(),
      close: () => inner.close(),
      async *[Symbol.asyncIterator](): AsyncIterator<StorageEvent> {
        for await (const event of inner) {
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

  currentRevision(): Promise<Revision> {
    return this.storage.currentRevision();
  }

  compactRevision(): Revision {
    return this.storage.compactRevision();
  }

  compact(revision: Revision): Promise<void> {
    return this.storage.compact(revision);
  }

  /** The view owns nothing: the server's storage is closed by the server. */
  close(): Promise<void> {
    return Promise.resolve();
  }
}
