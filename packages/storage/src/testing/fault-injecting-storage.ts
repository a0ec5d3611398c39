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
 * connection or a compaction would; `failLists` makes lists fail. For testing re-initialization,
 * and, by counting gets, range reads (lists) and revision checks, which reads a cache answered.
 */
export class FaultInjectingStorage implements Storage {
  private readonly breakers = new Set<(err: Error) => void>();
  watchesOpened = 0;
  /** Keys read with get(), in order: shows which reads reached storage. */
  readonly gets: string[] = [];
  /** Range reads (list()), in order: shows which LISTs reached storage. */
  readonly lists: { prefix: string; options: StorageListOptions | undefined }[] = [];
  /** currentRevision() calls: the progress checks of consistent reads. */
  revisionChecks = 0;
  /** While set, every list fails as if storage were unreachable. */
  failLists = false;

  private held: { released: Promise<void>; release: () => void } | undefined;

  constructor(private readonly inner: Storage) {}

  /** While set, open watches hold back their events (a watch cache falling behind); unset delivers them. */
  get holdWatches(): boolean {
    return this.held !== undefined;
  }
  set holdWatches(hold: boolean) {
    if (hold && !this.held) {
      let release: () => void = () => undefined;
      const released = new Promise<void>((resolve) => (release = resolve));
      this.held = { released, release };
    } else if (!hold && this.held) {
      this.held.release();
      this.held = undefined;
    }
  }

  get prefix(): string {
    return this.inner.prefix;
  }

  breakWatches(error: Error = StorageError.expired('', 0)): void {
    for (const fail of [...this.breakers]) fail(error);
  }

  get(key: string): Promise<KubeObject | undefined> {
    this.gets.push(key);
    return this.inner.get(key);
  }
  list(prefix: string, options?: StorageListOptions): Promise<StorageListResult> {
    this.lists.push({ prefix, options });
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
  guaranteedUpdate(
    key: string,
    tryUpdate: TryUpdate,
    cachedExisting?: KubeObject,
  ): Promise<KubeObject> {
    return this.inner.guaranteedUpdate(key, tryUpdate, cachedExisting);
  }
  delete(key: string, options?: StorageDeleteOptions): Promise<KubeObject> {
    return this.inner.delete(key, options);
  }
  supportsProgressRequests(): Promise<boolean> {
    return this.inner.supportsProgressRequests?.() ?? Promise.resolve(true);
  }

  currentRevision(): Promise<Revision> {
    this.revisionChecks++;
    return this.inner.currentRevision();
  }
  compactRevision(): Revision {
    return this.inner.compactRevision();
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
    const held = (): Promise<void> | undefined => this.held?.released;
    let closed = false;
    let onClose: () => void = () => undefined;
    const closing = new Promise<void>((resolve) => (onClose = resolve));
    breakers.add(fail!);
    const iterator = inner[Symbol.asyncIterator]();
    return {
      requestProgress: () => inner.requestProgress(),
      close: () => {
        closed = true;
        onClose();
        breakers.delete(fail!);
        inner.close();
      },
      async *[Symbol.asyncIterator](): AsyncGenerator<StorageEvent> {
        try {
          for (;;) {
            const next = await Promise.race([iterator.next(), failed]);
            if (next.done) return;
            for (let wait = held(); wait; wait = held()) {
              await Promise.race([wait, failed, closing]);
              if (closed) return;
            }
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
