import type { IOptions } from 'etcd3';
import { isTransient } from './etcd3-errors.js';

type FaultHandling = NonNullable<IOptions['faultHandling']>;
type HostPolicy = ReturnType<NonNullable<FaultHandling['host']>>;
type GlobalPolicy = NonNullable<FaultHandling['global']>;

/** The etcd3 client's calls ignore the policies' signal: one that never aborts serves all. */
const NEVER_ABORTED = new AbortController().signal;

/** Thrown instead of calling a member that failed a moment ago while another one may answer. */
export class HostDownError extends Error {
  constructor(host: string) {
    super(`etcd member ${host} failed recently; trying another`);
    this.name = 'HostDownError';
  }
}

/**
 * Which etcd members failed recently, as the etcd3 client's fault-handling hooks. The client asks
 * a random member; a member that just failed is skipped for `cooldown` ms while another is
 * usable, so `--etcd-servers` with one dead member keeps working. The last usable member is
 * never skipped: when everything is down, calls fail fast and our own retry decides.
 * Retries themselves happen in Etcd3Storage, which knows whether a request is safe to repeat.
 */
export class HostHealth {
  private readonly downUntil = new Map<string, number>();

  constructor(
    private readonly hosts: readonly string[],
    private readonly cooldown = 1_000,
  ) {}

  options(): FaultHandling {
    return {
      host: (host: string) => this.policy(host),
      global: passThrough as unknown as GlobalPolicy,
    };
  }

  /** Whether a call may go to `host` now (see policy()). */
  usable(host: string): boolean {
    const now = Date.now();
    return !this.isDown(host, now) || !this.hosts.some((h) => h !== host && !this.isDown(h, now));
  }

  /** A call to `host` was answered: it is up. */
  succeeded(host: string): void {
    if (this.downUntil.size > 0) this.downUntil.delete(host);
  }

  /** A call to `host` failed with `err`: a transient failure takes it out for the cooldown. */
  failed(host: string, err: unknown): void {
    if (isTransient(err)) this.downUntil.set(host, Date.now() + this.cooldown);
  }

  private isDown(host: string, now: number): boolean {
    return (this.downUntil.get(host) ?? 0) > now;
  }

  private policy(host: string): HostPolicy {
    const execute = async <T>(
      fn: (context: { signal: AbortSignal }) => PromiseLike<T> | T,
    ): Promise<T> => {
      const now = Date.now();
      if (this.isDown(host, now) && this.hosts.some((h) => h !== host && !this.isDown(h, now))) {
        throw new HostDownError(host);
      }
      try {
        const result = await fn({ signal: NEVER_ABORTED });
        this.succeeded(host);
        return result;
      } catch (err) {
        this.failed(host, err);
        throw err;
      }
    };
    return { execute } as unknown as HostPolicy;
  }
}

const passThrough = {
  execute: <T>(fn: (context: { signal: AbortSignal }) => PromiseLike<T> | T): Promise<T> =>
    Promise.resolve().then(() => fn({ signal: NEVER_ABORTED })),
};
