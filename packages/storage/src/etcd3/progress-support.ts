import type * as Etcd3Module from 'etcd3';
import { loadOptionalPeer } from '../optional-peer.js';

/**
 * Whether an etcd version answers a watch progress request in order with the watch's events.
 * Before 3.4.31 and 3.5.13 it may not: the answer can overtake events still queued for the
 * watcher (etcd#15220), or carry a revision not every watcher on the stream has reached
 * (etcd#17557). kube-apiserver uses progress requests only on fixed versions
 * (k8s.io/apiserver/pkg/storage/feature/feature_support_checker.go), as here.
 */
export function reliableProgressRequests(version: string): boolean {
  const m = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version);
  if (!m) return false;
  const [major, minor, patch] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (major !== 3) return major > 3;
  if (minor < 4) return false;
  if (minor === 4) return patch >= 31;
  if (minor === 5) return patch >= 13;
  return true;
}

/**
 * Asks every member its version (Maintenance.Status), once each, retrying members that do not
 * answer. Progress requests are trusted only when every member runs a fixed version: a watch
 * may move to any of them.
 */
export class ProgressSupport {
  private readonly versions = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private answered: Promise<void> | undefined;

  constructor(
    private readonly endpoints: readonly string[],
    private readonly timeoutMs: number,
  ) {}

  /** True once every member answered with a fixed version. */
  get reliable(): boolean {
    return (
      this.versions.size === this.endpoints.length &&
      [...this.versions.values()].every(reliableProgressRequests)
    );
  }

  /** Resolves with `reliable` once every member answered (or after one round if some did not). */
  check(): Promise<boolean> {
    this.answered ??= this.round();
    return this.answered.then(() => this.reliable);
  }

  private async round(): Promise<void> {
    await Promise.all(
      this.endpoints
        .filter((endpoint) => !this.versions.has(endpoint))
        .map(async (endpoint) => {
          const { Etcd3 } = loadOptionalPeer<typeof Etcd3Module>('etcd3', 'etcd3');
          const client = new Etcd3({ hosts: [endpoint] });
          try {
            const status = await client.maintenance.status({
              deadline: new Date(Date.now() + this.timeoutMs),
            });
            this.versions.set(endpoint, status.version);
          } catch {
            // Down now: asked again on the next round.
          } finally {
            client.close();
          }
        }),
    );
    if (this.versions.size < this.endpoints.length && !this.stopped) {
      this.timer = setTimeout(() => {
        this.answered = this.round();
      }, 10_000);
      this.timer.unref();
    }
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }
}
