import type { Clock, ClockTimer } from './clock.js';

interface PendingTimer {
  at: number;
  seq: number;
  fn: () => void;
}

/**
 * A Clock that only moves when told to (k8s.io/utils/clock/testing.FakeClock). Timers fire
 * synchronously inside `step`/`setTime`, in due order, each seeing `now()` equal to its due time.
 */
export class FakeClock implements Clock {
  private time: number;
  private seq = 0;
  private readonly timers = new Set<PendingTimer>();

  constructor(start = 0) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  setTimer(fn: () => void, ms: number): ClockTimer {
    const timer: PendingTimer = { at: this.time + Math.max(0, ms), seq: this.seq++, fn };
    this.timers.add(timer);
    return { cancel: () => void this.timers.delete(timer) };
  }

  /** Advances time by `ms`, firing every timer that falls due on the way. */
  step(ms: number): void {
    this.setTime(this.time + ms);
  }

  /** Moves time to `to` (never backwards for timers), firing every timer due by then. */
  setTime(to: number): void {
    for (;;) {
      const next = this.earliest();
      if (next === undefined || next.at > to) break;
      this.timers.delete(next);
      this.time = Math.max(this.time, next.at);
      next.fn();
    }
    this.time = Math.max(this.time, to);
  }

  /** Whether any timer is pending: lets tests wait until a component has armed its timer. */
  hasWaiters(): boolean {
    return this.timers.size > 0;
  }

  /** The number of pending timers. */
  waiters(): number {
    return this.timers.size;
  }

  private earliest(): PendingTimer | undefined {
    let best: PendingTimer | undefined;
    for (const t of this.timers) {
      if (!best || t.at < best.at || (t.at === best.at && t.seq < best.seq)) best = t;
    }
    return best;
  }
}
