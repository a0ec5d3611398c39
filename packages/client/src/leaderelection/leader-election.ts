import { ApiError, errorField, silentLogger, type Logger } from '@listwatch/api';
import { realClock, type Clock } from '../util/clock.js';
import { sleep } from '../util/sleep.js';
import type { LeaderElectionRecord, ResourceLock } from './resource-lock.js';

export interface LeaderCallbacks {
  /** Runs while leading; `signal` aborts when leadership is lost or the elector stops. */
  onStartedLeading(signal: AbortSignal): void | Promise<void>;
  /**
   * Called as soon as leadership ended — without waiting for onStartedLeading to return, so it
   * can exit the process even if the work ignores its signal. Only after onStartedLeading
   * (client-go calls it in any case).
   */
  onStoppedLeading?(): void;
  /** A different holder was observed (including ourselves). */
  onNewLeader?(identity: string): void;
}

export interface LeaderElectionConfig {
  lock: ResourceLock;
  /**
   * How long non-leaders wait after the last observed change before taking over (15 s). The
   * Lease stores it in whole seconds, and every candidate goes by the holder's stored value.
   */
  leaseDurationMs?: number;
  /** How long the leader keeps retrying a renewal — requests included — before giving up (10 s). */
  renewDeadlineMs?: number;
  /** Between attempts (2 s); acquisition jitters it by up to 1.2×. */
  retryPeriodMs?: number;
  callbacks: LeaderCallbacks;
  /** Clear the lease on a clean stop so a successor need not wait for it to expire. */
  releaseOnCancel?: boolean;
  name?: string;
  clock?: Clock;
  random?: () => number;
  logger?: Logger;
}

const JITTER_FACTOR = 1.2;

/**
 * client-go's leaderelection.LeaderElector. Candidates try to take or renew the lock every
 * retryPeriod; a lease counts as held while its record keeps changing — judged by *our* clock
 * at the time we observed the change, never by the timestamps in it, so clock skew between
 * candidates does not matter. The leader that cannot renew within renewDeadline steps down,
 * before leaseDuration lets anyone else in.
 */
export class LeaderElector {
  private readonly lock: ResourceLock;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly callbacks: LeaderCallbacks;
  private readonly releaseOnCancel: boolean;
  private readonly name: string;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly logger: Logger;
  private observedRecord: LeaderElectionRecord | undefined;
  private observedRaw = '';
  private observedTime = 0;
  private reportedLeader = '';

  constructor(config: LeaderElectionConfig) {
    this.lock = config.lock;
    this.leaseDurationMs = config.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = config.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = config.retryPeriodMs ?? 2_000;
    // Checked as the Lease will store it: 1.5 s there is 1 s, and the guarantee that a leader
    // steps down before the others may take over rests on this inequality.
    if (Math.floor(this.leaseDurationMs / 1000) * 1000 <= this.renewDeadlineMs) {
      throw ApiError.badRequest(
        'leaseDuration must be greater than renewDeadline (the Lease stores whole seconds)',
      );
    }
    if (this.renewDeadlineMs <= JITTER_FACTOR * this.retryPeriodMs) {
      throw ApiError.badRequest('renewDeadline must be greater than retryPeriod*JitterFactor');
    }
    if (this.retryPeriodMs < 1) throw ApiError.badRequest('retryPeriod must be greater than zero');
    this.callbacks = config.callbacks;
    this.releaseOnCancel = config.releaseOnCancel ?? false;
    this.name = config.name ?? this.lock.describe();
    this.clock = config.clock ?? realClock;
    this.random = config.random ?? Math.random;
    this.logger = config.logger ?? silentLogger;
  }

  /** Whether we held the lock when we last looked. */
  isLeader(): boolean {
    return this.observedRecord?.holderIdentity === this.lock.identity;
  }

  /** The holder we last observed ('' if none). */
  getLeader(): string {
    return this.observedRecord?.holderIdentity ?? '';
  }

  /**
   * Campaigns until leading, leads until the lease is lost or `signal` aborts, then returns.
   * Run it again (in a loop) to stand for re-election.
   */
  async run(signal: AbortSignal): Promise<void> {
    if (!(await this.acquire(signal))) return;
    const leading = new AbortController();
    const stop = (): void => leading.abort();
    signal.addEventListener('abort', stop, { once: true });
    const work = (async () => {
      try {
        await this.callbacks.onStartedLeading(leading.signal);
      } catch (err) {
        this.logger.error('onStartedLeading failed', { lock: this.name, error: errorField(err) });
      }
    })();
    try {
      await this.renew(signal);
    } finally {
      leading.abort();
      signal.removeEventListener('abort', stop);
      if (this.releaseOnCancel && signal.aborted) await this.release();
      try {
        this.callbacks.onStoppedLeading?.();
      } catch (err) {
        this.logger.error('onStoppedLeading failed', { lock: this.name, error: errorField(err) });
      }
      // run() itself settles once the work has returned.
      await work;
    }
  }

  /**
   * Gives the lock up if we hold it: a 1 s lease with no holder. Reads the lock first, as
   * client-go's release does (tools/leaderelection/leaderelection.go): a renewal cut off by the
   * stop may still have been written, so the version last seen here can be stale.
   */
  async release(): Promise<boolean> {
    if (!this.isLeader() || !this.observedRecord) return true;
    const deadline = this.deadline();
    try {
      const current = await this.lock.get(deadline.signal);
      if (!current || current.holderIdentity !== this.lock.identity) return true;
      const now = this.clock.now();
      const record: LeaderElectionRecord = {
        holderIdentity: '',
        leaseDurationSeconds: 1,
        acquireTime: now,
        renewTime: now,
        leaderTransitions: current.leaderTransitions,
      };
      await this.lock.update(record, deadline.signal);
      this.setObserved(record);
      return true;
    } catch (err) {
      this.logger.error('failed to release lock', { lock: this.name, error: errorField(err) });
      return false;
    } finally {
      deadline.cancel();
    }
  }

  private async acquire(signal: AbortSignal): Promise<boolean> {
    this.logger.info('attempting to acquire leader lease', {
      lock: this.name,
      identity: this.lock.identity,
    });
    while (!signal.aborted) {
      const acquired = await this.tryAcquireOrRenew(signal);
      this.maybeReportTransition();
      if (acquired) {
        this.logger.info('successfully acquired lease', {
          lock: this.name,
          identity: this.lock.identity,
        });
        return true;
      }
      await sleep(this.clock, this.retryPeriodMs * (1 + JITTER_FACTOR * this.random()), signal);
    }
    return false;
  }

  /**
   * Renews every retryPeriod; returns when a renewal could not succeed within renewDeadline.
   * The deadline aborts the requests in flight too (client-go runs each round under a context
   * with that timeout): a leader whose apiserver stops answering must step down before its
   * lease can run out for the others.
   */
  private async renew(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const round = this.deadline(signal);
      let renewed = false;
      try {
        while (!round.signal.aborted) {
          renewed = await this.tryAcquireOrRenew(round.signal);
          if (renewed) break;
          await sleep(this.clock, this.retryPeriodMs, round.signal);
        }
      } finally {
        round.cancel();
      }
      if (signal.aborted) return;
      this.maybeReportTransition();
      if (!renewed) {
        this.logger.warn('failed to renew lease; stepping down', {
          lock: this.name,
          identity: this.lock.identity,
        });
        return;
      }
      await sleep(this.clock, this.retryPeriodMs, signal);
    }
  }

  /** A signal that aborts after renewDeadline on the elector's clock, or when `parent` does. */
  private deadline(parent?: AbortSignal): { signal: AbortSignal; cancel(): void } {
    const controller = new AbortController();
    const onAbort = (): void => controller.abort(parent?.reason);
    parent?.addEventListener('abort', onAbort, { once: true });
    const timer = this.clock.setTimer(() => controller.abort(), this.renewDeadlineMs);
    return {
      signal: controller.signal,
      cancel: () => {
        timer.cancel();
        parent?.removeEventListener('abort', onAbort);
      },
    };
  }

  /** By the duration in the observed record: the holder's, whatever ours is (client-go). */
  private isLeaseValid(now: number): boolean {
    const seconds = this.observedRecord?.leaseDurationSeconds ?? 0;
    return this.observedTime + seconds * 1000 > now;
  }

  private setObserved(record: LeaderElectionRecord): void {
    this.observedRecord = record;
    this.observedTime = this.clock.now();
  }

  /** client-go tryAcquireOrRenew, step by step. */
  private async tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    const now = this.clock.now();
    const record: LeaderElectionRecord = {
      holderIdentity: this.lock.identity,
      leaseDurationSeconds: Math.floor(this.leaseDurationMs / 1000),
      acquireTime: now,
      renewTime: now,
      leaderTransitions: 0,
    };
    // 1. Fast path: the leader updates the lease it wrote last time, assuming nobody touched it.
    if (this.isLeader() && this.isLeaseValid(now) && this.observedRecord) {
      record.acquireTime = this.observedRecord.acquireTime;
      record.leaderTransitions = this.observedRecord.leaderTransitions;
      try {
        await this.lock.update(record, signal);
        this.setObserved(record);
        return true;
      } catch (err) {
        this.logger.info('optimistic lease update failed; re-reading', {
          lock: this.name,
          error: errorField(err),
        });
      }
    }
    // 2. Read (or create) the record.
    let current: LeaderElectionRecord | undefined;
    try {
      current = await this.lock.get(signal);
    } catch (err) {
      this.logger.warn('error retrieving lease', { lock: this.name, error: errorField(err) });
      return false;
    }
    if (current === undefined) {
      try {
        await this.lock.create(record, signal);
      } catch (err) {
        this.logger.warn('error creating lease', { lock: this.name, error: errorField(err) });
        return false;
      }
      this.setObserved(record);
      return true;
    }
    // 3. A changed record restarts the lease clock, on our clock.
    const raw = JSON.stringify(current);
    if (raw !== this.observedRaw) {
      this.observedRaw = raw;
      this.setObserved(current);
    }
    if (current.holderIdentity !== '' && this.isLeaseValid(now) && !this.isLeader()) {
      return false;
    }
    // 4. Take it over or renew it.
    if (this.isLeader()) {
      record.acquireTime = current.acquireTime;
      record.leaderTransitions = current.leaderTransitions;
    } else {
      record.leaderTransitions = current.leaderTransitions + 1;
    }
    try {
      await this.lock.update(record, signal);
    } catch (err) {
      this.logger.info('failed to update lease', { lock: this.name, error: errorField(err) });
      return false;
    }
    this.setObserved(record);
    return true;
  }

  private maybeReportTransition(): void {
    const holder = this.observedRecord?.holderIdentity ?? '';
    if (holder === this.reportedLeader) return;
    this.reportedLeader = holder;
    if (holder === '') return;
    this.logger.info('new leader observed', { lock: this.name, leader: holder });
    try {
      this.callbacks.onNewLeader?.(holder);
    } catch (err) {
      this.logger.error('onNewLeader failed', { lock: this.name, error: errorField(err) });
    }
  }
}
