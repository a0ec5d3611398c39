import { toApiError, type KubeObject } from '@listwatch/api';
import { Cond } from '../cond.js';
import type { Deltas } from './delta.js';
import type { PopProcessFunc } from './queue.js';

/**
 * What both FIFOs share: when they count as synced (the first replace fully popped), closing,
 * and running the consumer's processing of what was popped.
 */
export abstract class FifoState {
  protected readonly cond = new Cond();
  /** Whether the first replace (or any add/update/delete) has happened. */
  protected populated = false;
  /** Entries of the first replace not yet popped. */
  protected initialPopulationCount = 0;
  protected closed = false;

  hasSynced(): boolean {
    return this.populated && this.initialPopulationCount === 0;
  }

  close(): void {
    this.closed = true;
    this.cond.broadcast();
  }

  isClosed(): boolean {
    return this.closed;
  }

  /** Hands popped deltas to the consumer; anything it throws surfaces as an ApiError. */
  protected deliver<T extends KubeObject>(
    process: PopProcessFunc<T>,
    deltas: Deltas<T>,
    isInInitialList: boolean,
  ): Deltas<T> {
    try {
      process(deltas, isInInitialList);
    } catch (err) {
      throw toApiError(err);
    }
    return deltas;
  }
}
