import type { StorageEvent, StorageWatch } from './storage.js';
import { StorageError } from './storage-error.js';

export interface WatchChannelHooks {
  /** The consumer closed the watch (or stopped iterating): release what feeds it. */
  onClose?: () => void;
  onProgressRequest?: () => void;
  /** The consumer took the last queued event: a producer holding events back may push again. */
  onDrain?: () => void;
}

/**
 * The consumer side of one storage watch: an ordered queue that a backend pushes into and one
 * `for await` loop drains; a backend bounds it by holding events back (see `queued`, `onDrain`). After `fail()` the queued events still come out first, then
 * the error is thrown once: a consumer never loses the events that preceded a failure.
 */
export class WatchChannel implements StorageWatch {
  private queue: StorageEvent[] = [];
  private head = 0;
  private waiter:
    | { resolve: (r: IteratorResult<StorageEvent>) => void; reject: (e: unknown) => void }
    | undefined;
  private failure: StorageError | undefined;
  /** No more events will be pushed (failed or closed). */
  private sealed = false;
  /** The consumer closed it: nothing more is delivered. */
  private closed = false;

  constructor(private readonly hooks: WatchChannelHooks = {}) {}

  /** Whether pushing is still useful. */
  get open(): boolean {
    return !this.sealed;
  }

  /** Events pushed and not yet taken by the consumer. */
  get queued(): number {
    return this.queue.length - this.head;
  }

  push(event: StorageEvent): void {
    if (this.sealed) return;
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = undefined;
      waiter.resolve({ done: false, value: event });
    } else {
      this.queue.push(event);
    }
  }

  /** Ends the watch with an error, after the events already queued. */
  fail(error: StorageError): void {
    if (this.sealed) return;
    this.sealed = true;
    this.failure = error;
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = undefined;
      this.failure = undefined;
      waiter.reject(error);
    }
  }

  requestProgress(): void {
    if (!this.sealed) this.hooks.onProgressRequest?.();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.sealed = true;
    this.queue = [];
    this.head = 0;
    this.failure = undefined;
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.resolve({ done: true, value: undefined });
    this.hooks.onClose?.();
  }

  private next(): Promise<IteratorResult<StorageEvent>> {
    if (this.head < this.queue.length) {
      const value = this.queue[this.head++]!;
      if (this.head > 1024 && this.head * 2 > this.queue.length) {
        this.queue = this.queue.slice(this.head);
        this.head = 0;
      }
      if (this.head === this.queue.length && this.hooks.onDrain && !this.sealed) {
        const onDrain = this.hooks.onDrain;
        queueMicrotask(() => {
          if (!this.sealed) onDrain();
        });
      }
      return Promise.resolve({ done: false, value });
    }
    if (this.failure) {
      const failure = this.failure;
      this.failure = undefined;
      return Promise.reject(failure);
    }
    if (this.sealed) return Promise.resolve({ done: true, value: undefined });
    if (this.waiter)
      return Promise.reject(
        StorageError.internal('', new Error('a storage watch supports one reader at a time')),
      );
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
    });
  }

  [Symbol.asyncIterator](): AsyncIterator<StorageEvent> {
    return {
      next: () => this.next(),
      return: () => {
        this.close();
        return Promise.resolve({ done: true, value: undefined });
      },
    };
  }
}
