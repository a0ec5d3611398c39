import type { Revision, Storage } from './storage.js';

/** kube-apiserver's default `--etcd-compaction-interval`. */
export const DEFAULT_COMPACTION_INTERVAL = 5 * 60_000;

export interface CompactorOptions {
  /** Milliseconds between rounds; 0 disables the compactor. */
  interval: number;
  /** A failed round is reported here and retried next round (default: a process warning). */
  onError?: (error: unknown) => void;
  /** Compactors sharing one store agree through this on who compacts each round. */
  coordinator?: CompactionCoordinator;
  /** Called after each compaction this compactor made. */
  onCompacted?: (revision: Revision) => void;
}

/** What a claim of a round answers (k8s.io/apiserver pkg/storage/etcd3/compact.go compact()). */
export interface CompactionClaim {
  /** The round count every compactor sharing the store now agrees on. */
  round: number;
  /** The store's current revision: what the next round compacts to. */
  revision: Revision;
  /** Whether this compactor won the round, and so compacts. */
  won: boolean;
}

/**
 * Shared rounds: a compactor claims round `round` (the count it last saw) and records `revision`;
 * the claim succeeds for exactly one of the compactors that saw the same count, so N apiservers
 * on one etcd compact once per interval, as kube-apiserver's do through `compact_rev_key`.
 */
export interface CompactionCoordinator {
  claim(round: number, revision: Revision): Promise<CompactionClaim>;
}

/**
 * Periodically drops old history, the way kube-apiserver compacts etcd
 * (k8s.io/apiserver/pkg/storage/etcd3/compact.go): each round compacts to the revision seen one
 * round earlier, so watchers and paginated lists always keep between one and two intervals of
 * history. Nothing is compacted on the first round.
 */
export class Compactor {
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private lastSeen: Revision = 0;
  private round = 0;
  private compacted: Revision = 0;

  constructor(
    private readonly storage: Pick<Storage, 'currentRevision' | 'compact'>,
    private readonly options: CompactorOptions,
  ) {}

  /** The revision of the last compaction this compactor made (0: none yet). */
  get compactedRevision(): Revision {
    return this.compacted;
  }

  start(): this {
    if (this.options.interval > 0 && !this.running) {
      this.running = true;
      this.schedule();
    }
    return this;
  }

  stop(): void {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /**
   * One round: claim it, and if won compact to the revision seen last round; either way
   * remember the current one. Alone, every round is won.
   */
  async tick(): Promise<Revision | undefined> {
    const target = this.lastSeen;
    const claim = this.options.coordinator
      ? await this.options.coordinator.claim(this.round, target)
      : { round: this.round + 1, revision: await this.storage.currentRevision(), won: true };
    this.round = claim.round;
    this.lastSeen = claim.revision;
    if (!claim.won || target === 0 || target <= this.compacted) return undefined;
    await this.storage.compact(target);
    this.compacted = target;
    this.options.onCompacted?.(target);
    return target;
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.tick()
        .catch((err: unknown) => {
          const report =
            this.options.onError ??
            ((e: unknown) =>
              process.emitWarning(
                `storage compaction failed: ${e instanceof Error ? e.message : String(e)}`,
              ));
          report(err);
        })
        .finally(() => {
          if (this.running) this.schedule();
        });
    }, this.options.interval);
    // A compactor alone must not keep the process alive.
    this.timer.unref();
  }
}
