import { toApiError } from '@listwatch/api';
import type { KubernetesObject } from '../runtime/kubernetes-object.js';
import { Cond } from '../util/cond.js';
import type { Deltas } from './delta.js';
import type { PopProcessFunc } from './queue.js';

/**
 * What both FIFOs share: when they count as synced (the first replace fully popped), closing,
 * and running the consumer's processing of what was popped.
 */
export abstract class FifoState {
  protected readonly cond = new Cond();
  protected closed = false;
  /** Entries of the first replace not yet popped (set before `populated` on that replace). */
  protected initialPopulationCount = 0;
  private isPopulated = false;
  /** Called once, when the FIFO syncs: waiters need not poll hasSynced. */
  private readonly syncListeners = new Set<() => void>();

  /** Whether the first replace (or any add/update/delete) has happened. */
  protected get populated(): boolean {
    return this.isPopulated;
  }
  protected set populated(value: boolean) {
    this.isPopulated = value;
    // Synced now if nothing of a first replace is left to pop (an empty one, or an add first).
    this.announceSync();
  }

  hasSynced(): boolean {
    return this.isPopulated && this.initialPopulationCount === 0;
  }

  /**
   * Calls `listener` once the FIFO has synced — at once if it has — and returns a function that
   * cancels it. Synced is for good: nothing makes a FIFO unsynced again.
   */
  onSynced(listener: () => void): () => void {
    if (this.hasSynced()) {
      listener();
      return () => {};
    }
    this.syncListeners.add(listener);
    return () => this.syncListeners.delete(listener);
  }

  close(): void {
    this.closed = true;
    this.cond.broadcast();
  }

  isClosed(): boolean {
    return this.closed;
  }

  /** Tells the onSynced listeners, once hasSynced() holds. */
  protected announceSync(): void {
    if (this.syncListeners.size === 0 || !this.hasSynced()) return;
    const listeners = [...this.syncListeners];
    this.syncListeners.clear();
    for (const listener of listeners) listener();
  }

  /** Hands popped deltas to the consumer; anything it throws surfaces as an ApiError. */
  protected deliver<T extends KubernetesObject>(
    process: PopProcessFunc<T>,
    deltas: Deltas<T>,
    isInInitialList: boolean,
    key: string | undefined,
  ): Deltas<T> {
    try {
      process(deltas, isInInitialList, key);
    } catch (err) {
      throw toApiError(err);
    } finally {
      // After processing: a listener sees the last item of the initial list in the store.
      if (isInInitialList) this.announceSync();
    }
    return deltas;
  }
}
