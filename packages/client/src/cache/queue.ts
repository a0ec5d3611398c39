import { ApiError, type KubeObject } from '@listwatch/api';
import type { KubernetesObject } from '../runtime/kubernetes-object.js';
import type { DeletedFinalStateUnknown } from './deleted-final-state-unknown.js';
import type { Deltas } from './delta.js';

/**
 * Handles the deltas of one pop. It runs synchronously inside `pop`, before any other queue
 * call can interleave — the equivalent of client-go calling it under the queue's lock — so it
 * can update the knownObjects store without racing a concurrent replace.
 */
export type PopProcessFunc<T extends KubernetesObject = KubeObject> = (
  deltas: Deltas<T>,
  isInInitialList: boolean,
  /**
   * The deltas' key, when the queue computed it with its key function from the objects as
   * delivered (no transform in between): a consumer whose store keys objects the same way can
   * use it rather than compute it again.
   */
  key?: string,
) => void;

/**
 * The queue between a reflector (producer) and an informer (consumer) (client-go cache.Queue).
 * DeltaFIFO and RealFIFO both implement it, so an informer can take either.
 */
export interface Queue<T extends KubernetesObject = KubeObject> {
  add(obj: T): void;
  update(obj: T): void;
  delete(obj: T | DeletedFinalStateUnknown<T>): void;
  /**
   * A relist: queues `Replaced` for every listed object and a DeletedFinalStateUnknown
   * tombstone for every known or queued key that is not in the list.
   */
  replace(list: readonly T[], resourceVersion: string): void;
  /** Queues `Sync` for every known object that has no pending change. */
  resync(): void;
  /**
   * Waits for the next item, removes it and hands it to `process`; resolves with what was
   * processed. Rejects with FIFOClosedError once the queue is closed and empty, or with
   * `process`'s error (the item is not re-queued, as in client-go since 1.29).
   */
  pop(process: PopProcessFunc<T>): Promise<Deltas<T>>;
  /** How many pops would not wait: queued keys (DeltaFIFO) or notifications (RealFIFO). */
  len(): number;
  /** True once the items of the first replace have all been popped, or if an add came first. */
  hasSynced(): boolean;
  /** Calls `listener` once hasSynced() holds (at once if it does); returns a cancel function. */
  onSynced(listener: () => void): () => void;
  /** Wakes every waiting pop; items still queued can be popped, then pop rejects. */
  close(): void;
  isClosed(): boolean;
}

/** Popping from a closed, empty queue (client-go ErrFIFOClosed). */
export class FIFOClosedError extends ApiError {
  constructor() {
    super({
      code: 503,
      reason: 'ServiceUnavailable',
      message: 'DeltaFIFO: manipulating with closed queue',
    });
    this.name = 'FIFOClosedError';
  }
}

export function isFIFOClosedError(value: unknown): value is FIFOClosedError {
  return value instanceof FIFOClosedError;
}

/** Called with every incoming object before it is queued, e.g. to strip managedFields. */
export type TransformFunc<T extends KubernetesObject = KubeObject> = (obj: T) => T;
