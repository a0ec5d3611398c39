/**
 * A condition variable for a single-threaded event loop: `wait()` parks an async caller until
 * `signal()` (one waiter) or `broadcast()` (all). Callers re-check their condition in a loop,
 * exactly as with sync.Cond, because another caller may run between the wake-up and the resume.
 */
export class Cond {
  private waiters: Array<() => void> = [];

  wait(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  signal(): void {
    this.waiters.shift()?.();
  }

  broadcast(): void {
    // Queues broadcast on every item; most of the time nobody waits.
    if (this.waiters.length === 0) return;
    const waiting = this.waiters;
    this.waiters = [];
    for (const wake of waiting) wake();
  }
}
