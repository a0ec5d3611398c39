import { StorageError } from '../storage-error.js';
import type {
  Revision,
  Storage,
  StorageDeleteOptions,
  StorageEvent,
  StorageListOptions,
  StorageListResult,
  StorageUpdateOptions,
  StorageWatch,
  StorageWatchOptions,
  TryUpdate,
} from '../storage.js';
import type { KubeObject } from '@listwatch/api';

/**
 * A real backend with fault switches: `breakWatches()` makes every open watch fail as a lost etcd
 * connection or a compaction would; `failLists` makes lists fail. For testing re-initialization.
 */
export class FaultInjectingStorage implements Storage {
  private readonly breakers = new Set<(err: Error) => void>();
  watchesOpened = 0;
  /** While set, every list fails as if storage were unreachable. */
  failLists = false;

  constructor(private readonly inner: Storage) {}

  get prefix(): string {
    return this.inner.prefix;
  }

  breakWatches(error: Error = StorageError.expired('', 0)): void {
    for (const fail of [...this.breakers]) fail(error);
  }

  get(key: string): Promise<KubeObject | undefined> {
    return this.inner.get(key);
  }
  list(prefix: string, options?: StorageListOptions): Promise<StorageListResult> {
    if (this.failLists)
      return Promise.reject(StorageError.unreachable(prefix, new Error('injected fault')));
    return this.inner.list(prefix, options);
  }
  count(prefix: string): Promise<number> {
    return this.inner.count(prefix);
  }
  create(key: string, object: KubeObject): Promise<KubeObject> {
    return this.inner.create(key, object);
  }
  update(key: string, object: KubeObject, options?: StorageUpdateOptions): Promise<KubeObject> {
    return this.inner.update(key, object, options);
  }
  guaranteedUpdate(key: string, tryUpdate: TryUpdate): Promise<KubeObject> {
    return this.inner.guaranteedUpdate(key, tryUpdate);
  }
  delete(key: string, options?: StorageDeleteOptions): Promise<KubeObject> {
    return this.inner.delete(key, options);
  }
  currentRevision(): Promise<Revision> {
    return this.inner.currentRevision();
  }
  compact(revision: Revision): Promise<void> {
    return this.inner.compact(revision);
  }
  close(): Promise<void> {
    return this.inner.close();
  }

  watch(prefix: string, options?: StorageWatchOptions): StorageWatch {
    this.watchesOpened++;
    const inner = this.inner.watch(prefix, options);
    let fail: ((err: Error) => void) | undefined;
    const failed = new Promise<never>((_, reject) => {
      fail = reject;
    });
    failed.catch(() => undefined);
    const breakers = this.breakers;
    breakers.add(fail!);
    const iterator = inner[Symbol.asyncIterator]();
    return {
      requestProgress: () => inner.requestProgress(),
      close: () => {
        breakers.delete(fail!);
        inner.close();
      },
      async *[Symbol.asyncIterator](): AsyncGenerator<StorageEvent> {
        try {
          for (;;) {
            const next = await Promise.race([iterator.next(), failed]);
            if (next.done) return;
            yield next.value;
          }
        } finally {
          breakers.delete(fail!);
          inner.close();
        }
      },
    };
  }
}
