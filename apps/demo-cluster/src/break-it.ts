import type { Storage } from '@listwatch/storage';
import type { ReplicaBalancer, Replica } from './apiserver-replicas.js';

// The dashboard's "break it" panel: faults a learner can cause in the running demo to watch the
// informers recover (reflector.go): a watch cut resumes from its resourceVersion; one whose
// resourceVersion is no longer served (compacted, and not in the watch cache) gets 410 Gone and
// relists. The same faults the chaos suite injects (chaos/chaos.ts), one click each.

export type BreakItActionId = 'kill-replica' | 'restart-replica' | 'cut-watches' | 'compact';

export interface BreakItAction {
  id: BreakItActionId;
  label: string;
  /** False when this run of the demo cannot do it (the note says what it needs). */
  available: boolean;
  note: string;
}

export interface BreakItResult {
  message: string;
  /** The page cuts its own watches (there is no balancer in this run to cut them). */
  cutPage?: boolean;
}

export interface BreakItOptions {
  /** `--apiservers N`: the replicas (kept in place by their supervisor) and their balancer. */
  replicas?: { replicas: readonly Replica[]; balancer: ReplicaBalancer };
  /** The apiserver's storage when it runs in the demo process. */
  storage?: Storage;
  /** etcd's client URLs when the replicas store in etcd (compaction through its JSON gateway). */
  etcdServers?: readonly string[];
}

/** The break-it panel's actions on this run of the demo. */
export class BreakIt {
  private next = 0;

  constructor(private readonly options: BreakItOptions) {}

  actions(): BreakItAction[] {
    const replicated = this.options.replicas !== undefined;
    const needsReplicas = 'needs pnpm demo --apiservers N (apiserver processes on etcd)';
    return [
      {
        id: 'kill-replica',
        label: 'kill a replica',
        available: replicated,
        note: replicated
          ? 'SIGKILL one apiserver replica: its watches drop, clients reconnect through the balancer to another and resume; the demo restarts it'
          : needsReplicas,
      },
      {
        id: 'restart-replica',
        label: 'restart a replica',
        available: replicated,
        note: replicated
          ? 'SIGTERM one apiserver replica (graceful: its watches end cleanly); the demo starts it again'
          : needsReplicas,
      },
      {
        id: 'cut-watches',
        label: 'cut every watch',
        available: true,
        note: replicated
          ? "drop every connection at the balancer, the controllers' and this page's: each watch resumes from its resourceVersion"
          : "drop this page's watches (the apiserver runs in the demo process: with --apiservers every connection is cut): each resumes from its resourceVersion",
      },
      {
        id: 'compact',
        label: 'compact storage',
        available:
          this.options.storage !== undefined || (this.options.etcdServers?.length ?? 0) > 0,
        note: 'compact storage history to the current revision: a watch resuming from before it, outside the watch cache, gets 410 Gone and relists',
      },
    ];
  }

  async run(id: string): Promise<BreakItResult> {
    const action = this.actions().find((a) => a.id === id);
    if (!action) throw new RangeError(`no action ${id}`);
    if (!action.available) return { message: `${action.label}: ${action.note}` };
    const replicated = this.options.replicas;
    switch (action.id) {
      case 'kill-replica':
      case 'restart-replica': {
        const replicas = replicated!.replicas;
        const victim = replicas[this.next++ % replicas.length]!;
        const signal = action.id === 'kill-replica' ? 'SIGKILL' : 'SIGTERM';
        try {
          process.kill(victim.pid, signal);
        } catch {
          return {
            message: `apiserver replica ${victim.index} is down already; the demo restarts it`,
          };
        }
        return {
          message: `${signal} apiserver replica ${victim.index} (pid ${victim.pid}); the demo restarts it`,
        };
      }
      case 'cut-watches':
        if (!replicated) return { message: "cut this page's watches", cutPage: true };
        replicated.balancer.dropConnections();
        return { message: 'cut every client connection at the balancer' };
      case 'compact': {
        const revision = await this.compact();
        return { message: `compacted storage at revision ${revision}` };
      }
    }
  }

  /** Compacts to the current revision; returns it. */
  private async compact(): Promise<number> {
    const storage = this.options.storage;
    if (storage) {
      const revision = await storage.currentRevision();
      await storage.compact(revision);
      return Number(revision);
    }
    // etcd's gRPC gateway (v3 JSON API): the current revision from any read, then Compact.
    const endpoint = this.options.etcdServers![0]!.replace(/\/$/, '');
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${endpoint}${path}`, {
        method: 'POST',
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(5000),
      });
      if (!res.ok) throw new Error(`etcd ${path}: ${res.status} ${await res.text()}`);
      return (await res.json()) as { header?: { revision?: string } };
    };
    const range = await post('/v3/kv/range', { key: Buffer.from('/').toString('base64') });
    const revision = Number(range.header?.revision ?? 0);
    try {
      await post('/v3/kv/compaction', { revision: String(revision) });
    } catch (err) {
      // Nothing written since the last compaction: compacted already.
      if (!/compacted/.test(String(err))) throw err;
    }
    return revision;
  }
}
