import { realClock, type Clock } from './clock.js';
import { sleep } from './sleep.js';

export interface BackoffOptions {
  /** The first delay's base (client-go reflector: 800 ms). */
  initialMs?: number;
  /** The base never grows past this (client-go: 30 s). */
  maxMs?: number;
  /** Growth per step (client-go: 2). */
  factor?: number;
  /**
   * Each delay is base·(1 + jitter·random) — with client-go's 1.0, in [base, 2·base): spreads
   * reconnecting clients so a restarted apiserver is not hit by all of them at once.
   */
  jitter?: number;
  /** After this long without a backoff the base goes back to `initialMs` (client-go: 2 min). */
  resetMs?: number;
  clock?: Clock;
  /** A source of [0, 1) numbers; injectable for tests. */
  random?: () => number;
}

/** The reflector's parameters (client-go tools/cache/reflector.go NewReflectorWithOptions). */
export const REFLECTOR_BACKOFF: Required<Omit<BackoffOptions, 'clock' | 'random'>> = {
  initialMs: 800,
  maxMs: 30_000,
  factor: 2,
  jitter: 1,
  resetMs: 120_000,
};

/**
 * Exponential backoff with jitter and reset (apimachinery wait.NewExponentialBackoffManager).
 * With the reflector's parameters a dead apiserver sees one attempt per [30, 60) s per client
 * after a few minutes; two quiet minutes mean the server is healthy again and the next failure
 * starts over at 800 ms.
 */
export class Backoff {
  readonly initialMs: number;
  readonly maxMs: number;
  readonly factor: number;
  readonly jitter: number;
  readonly resetMs: number;
  private readonly clock: Clock;
  private readonly random: () => number;
  private base: number;
  private lastStart: number | undefined;

  constructor(options: BackoffOptions = {}) {
    this.initialMs = options.initialMs ?? REFLECTOR_BACKOFF.initialMs;
    this.maxMs = options.maxMs ?? REFLECTOR_BACKOFF.maxMs;
    this.factor = options.factor ?? REFLECTOR_BACKOFF.factor;
    this.jitter = options.jitter ?? REFLECTOR_BACKOFF.jitter;
    this.resetMs = options.resetMs ?? REFLECTOR_BACKOFF.resetMs;
    this.clock = options.clock ?? realClock;
    this.random = options.random ?? Math.random;
    this.base = this.initialMs;
  }

  /** The next delay in ms; advances the base (client-go Backoff.Step after the reset check). */
  next(): number {
    const now = this.clock.now();
    if (this.lastStart !== undefined && now - this.lastStart > this.resetMs) {
      this.base = this.initialMs;
    }
    this.lastStart = now;
    const base = Math.min(this.base, this.maxMs);
    this.base = Math.min(base * this.factor, this.maxMs);
    return this.jitter > 0 ? base * (1 + this.jitter * this.random()) : base;
  }

  /** Waits the next delay; resolves early when `signal` aborts. */
  async wait(signal?: AbortSignal): Promise<void> {
    await sleep(this.clock, this.next(), signal);
  }

  /** Starts over at `initialMs`. */
  reset(): void {
    this.base = this.initialMs;
    this.lastStart = undefined;
  }
}
