/** A timer handed out by a Clock; cancelling an already-fired timer is a no-op. */
export interface ClockTimer {
  cancel(): void;
}

/**
 * Time as the client sees it (k8s.io/utils/clock). Everything that waits — delaying queues, rate
 * limiters, metrics tickers — takes a Clock so tests can drive time with a FakeClock instead of
 * sleeping.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /**
   * Runs `fn` once after `ms`. `unref` timers do not keep the process alive (used for
   * housekeeping such as metrics tickers).
   */
  setTimer(fn: () => void, ms: number, options?: { unref?: boolean }): ClockTimer;
}

/**
 * Node's timers, with a monotonic `now` (epoch-based, but never stepped back by NTP) so computed
 * delays agree with when timers fire.
 */
export const realClock: Clock = {
  now: () => performance.timeOrigin + performance.now(),
  setTimer(fn, ms, options) {
    const handle = setTimeout(fn, Math.max(0, ms));
    if (options?.unref) handle.unref();
    return { cancel: () => clearTimeout(handle) };
  },
};
