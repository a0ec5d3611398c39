import { isApiError } from '@listwatch/api';
import {
  formatMicroTime,
  SharedIndexInformer,
  silentLogger,
  type Lease,
  type Logger,
  type RestClient,
} from '@listwatch/client';
import { exitedStatus, NODE_LEASE_NAMESPACE } from './controllers/kubelet.js';
import { isPodReady, now, resources, type Node, type Pod } from './controllers/objects.js';

// Many cheap simulated nodes in one process (kubemark's hollow nodes, kwok's fake nodes): each a
// Node reported Ready, a Lease in kube-node-lease renewed every 10 s, and a kubelet-style watch
// of its own pods (`spec.nodeName=<node>`, an informer of its own) that reports every pod bound
// to it Running through pods/<name>/status. No container runtime, no log endpoint: the demo's
// Kubelet (controllers/kubelet.ts) is the full one. The density benchmark
// (apps/demo-cluster/bench/density.ts) drives thousands of these; `pnpm demo --nodes N` can too.

/** One request the fleet made, for whoever measures it (the density benchmark). */
export interface FleetRequest {
  verb: 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'GET';
  /** `nodes`, `nodes/status`, `leases`, `pods/status`, `pods`. */
  resource: string;
  ms: number;
  error?: unknown;
}

export interface SimulatedNodesOptions {
  client: RestClient;
  count: number;
  /** Node `i` is named `${namePrefix}${i}` (default `hollow-node-`). */
  namePrefix?: string;
  /** Lease renewal period (default 10 s, the kubelet's: a quarter of its 40 s lease). */
  leaseRenewMs?: number;
  /** Requests in flight while registering (default 32). */
  registerConcurrency?: number;
  /** Called after every request the fleet makes, with its latency. */
  onRequest?(request: FleetRequest): void;
  /** A node's watch delivered one of its pods for the first time (wall clock `at`). */
  onPodDelivered?(pod: Pod, node: string, at: number): void;
  /** A pod's Running status write was answered; `sentAt` when it was sent (wall clock). */
  onPodRunning?(pod: Pod, node: string, sentAt: number, ackAt: number): void;
  /**
   * How long a pod's containers run before they exit, and how, for pods that run to completion
   * (the demo passes the kubelet's `simulatedRun`); undefined: they run until deleted, as
   * kwok's hollow nodes do by default.
   */
  runToCompletion?(pod: Pod): { runMs: number; exitCode: number } | undefined;
  logger?: Logger;
}

/** Wall-clock ms, sub-millisecond, comparable between processes. */
const wallMs = (): number => performance.timeOrigin + performance.now();

/** Runs `work` over `items` with at most `limit` in flight. */
async function pool<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

interface NodeState {
  name: string;
  index: number;
  lease?: Lease;
  uid?: string;
  informer?: SharedIndexInformer<Pod>;
  timer?: ReturnType<typeof setTimeout>;
  /** Pod IPs handed out so far (10.<x>.<y>.<n>). */
  nextIP: number;
}

/** N simulated nodes: register() them, start() their heartbeats and watches, stop(). */
export class SimulatedNodes {
  readonly names: readonly string[];
  private readonly nodes: NodeState[];
  private readonly client: RestClient;
  private readonly leaseRenewMs: number;
  private readonly logger: Logger;
  /** Pods (by uid or key) whose Running status is being written or is written. */
  private readonly reported = new Set<string>();
  private readonly delivered = new Set<string>();
  /** Containers "running" to completion: their exit is due when the timer fires. */
  private readonly exits = new Set<ReturnType<typeof setTimeout>>();
  private stopped = false;

  constructor(private readonly options: SimulatedNodesOptions) {
    this.client = options.client;
    this.leaseRenewMs = options.leaseRenewMs ?? 10_000;
    this.logger = options.logger ?? silentLogger;
    const prefix = options.namePrefix ?? 'hollow-node-';
    this.nodes = Array.from({ length: options.count }, (_, index) => ({
      name: `${prefix}${index}`,
      index,
      nextIP: 2,
    }));
    this.names = this.nodes.map((n) => n.name);
  }

  private async timed<T>(
    verb: FleetRequest['verb'],
    resource: string,
    call: () => Promise<T>,
  ): Promise<T> {
    const t0 = performance.now();
    try {
      const result = await call();
      this.options.onRequest?.({ verb, resource, ms: performance.now() - t0 });
      return result;
    } catch (error) {
      this.options.onRequest?.({ verb, resource, ms: performance.now() - t0, error });
      throw error;
    }
  }

  /** Creates every Node (reported Ready) and its Lease; ones left by an earlier run are reused. */
  async register(): Promise<void> {
    const nodes = this.client.resource<Node>(resources.nodes);
    const leases = this.client.resource<Lease>(resources.leases).namespace(NODE_LEASE_NAMESPACE);
    await pool(this.nodes, this.options.registerConcurrency ?? 32, async (state) => {
      let node: Node;
      try {
        node = await this.timed('POST', 'nodes', () => nodes.create(this.nodeObject(state)));
      } catch (err) {
        if (!isApiError(err) || err.code !== 409) throw err;
        node = await nodes.get(state.name);
      }
      // Status on create is kept by kube's node strategy; a server that drops it gets a patch.
      if (!node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'))
        node = await this.timed('PATCH', 'nodes/status', () =>
          nodes.patch(state.name, { status: this.nodeObject(state).status }, 'merge', {
            subresource: 'status',
          }),
        );
      state.uid = node.metadata.uid ?? '';
      try {
        state.lease = await this.timed('POST', 'leases', () =>
          leases.create(this.leaseObject(state)),
        );
      } catch (err) {
        if (!isApiError(err) || err.code !== 409) throw err;
        state.lease = await leases.get(state.name);
      }
    });
  }

  /**
   * Starts each node's heartbeat (first renewals spread over one period, as kubelets start at
   * different times) and its pod watch.
   */
  start(): void {
    for (const state of this.nodes) {
      state.timer = setTimeout(() => this.heartbeat(state), Math.random() * this.leaseRenewMs);
      state.timer.unref?.();
      const informer = new SharedIndexInformer<Pod>({
        listerWatcher: this.client
          .resource<Pod>(resources.pods)
          .namespace('')
          .listerWatcher((params) => ({ ...params, fieldSelector: `spec.nodeName=${state.name}` })),
        resource: { group: '', resource: 'pods' },
        logger: this.logger,
      });
      informer.addEventHandler({
        onAdd: (pod) => this.onPod(state, pod),
        onUpdate: (_old, pod) => this.onPod(state, pod),
      });
      state.informer = informer;
      informer.start();
    }
  }

  /** Resolves once every node's watch has listed its pods. */
  async waitForSync(): Promise<void> {
    for (const state of this.nodes) await state.informer?.waitForCacheSync();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const state of this.nodes) clearTimeout(state.timer);
    for (const timer of this.exits) clearTimeout(timer);
    this.exits.clear();
    for (const state of this.nodes) await state.informer?.stop();
  }

  private heartbeat(state: NodeState): void {
    if (this.stopped) return;
    void this.renewLease(state)
      .catch((err: unknown) =>
        this.logger.warn('lease renewal failed', {
          node: state.name,
          error: err instanceof Error ? err.message : String(err),
        }),
      )
      .finally(() => {
        if (this.stopped) return;
        state.timer = setTimeout(() => this.heartbeat(state), this.leaseRenewMs);
        state.timer.unref?.();
      });
  }

  /**
   * The kubelet's nodelease controller: an update of the Lease it holds with a new renewTime
   * (one write); on a conflict it reads the Lease again and retries once.
   */
  private async renewLease(state: NodeState): Promise<void> {
    const leases = this.client.resource<Lease>(resources.leases).namespace(NODE_LEASE_NAMESPACE);
    const renew = (lease: Lease): Lease => ({
      ...lease,
      spec: { ...lease.spec, renewTime: formatMicroTime(Date.now()) },
    });
    const base = state.lease ?? this.leaseObject(state);
    try {
      state.lease = await this.timed('PUT', 'leases', () => leases.update(renew(base)));
    } catch (err) {
      if (!isApiError(err) || (err.code !== 409 && err.code !== 404)) throw err;
      const current = await leases.get(state.name).catch(() => undefined);
      state.lease = current
        ? await this.timed('PUT', 'leases', () => leases.update(renew(current)))
        : await this.timed('POST', 'leases', () => leases.create(this.leaseObject(state)));
    }
  }

  private onPod(state: NodeState, pod: Pod): void {
    const key = pod.metadata.uid ?? `${pod.metadata.namespace}/${pod.metadata.name}`;
    if (!this.delivered.has(key)) {
      this.delivered.add(key);
      this.options.onPodDelivered?.(pod, state.name, wallMs());
    }
    if (pod.metadata.deletionTimestamp) {
      void this.confirmDeletion(pod);
      return;
    }
    if (this.reported.has(key) || (pod.status?.phase === 'Running' && isPodReady(pod))) return;
    this.reported.add(key);
    void this.reportRunning(state, pod, 0).catch((err: unknown) => {
      this.reported.delete(key);
      this.logger.warn('pod status write failed', {
        pod: `${pod.metadata.namespace}/${pod.metadata.name}`,
        error: err instanceof Error ? err.message : String(err),
      });
    });
  }

  /** What a kubelet writes once the pod's containers run: phase Running, Ready, a pod IP. */
  private async reportRunning(state: NodeState, pod: Pod, attempt: number): Promise<void> {
    const pods = this.client.resource<Pod>(resources.pods).namespace(pod.metadata.namespace ?? '');
    const t = now();
    const n = state.nextIP++;
    const podIP = `10.${64 + (state.index >> 8)}.${state.index & 255}.${n % 254 || 254}`;
    const condition = (type: string) => ({
      type,
      status: 'True' as const,
      lastProbeTime: null,
      lastTransitionTime: t,
    });
    const status: Pod['status'] = {
      phase: 'Running',
      hostIP: `10.0.${state.index >> 8}.${state.index & 255}`,
      podIP,
      podIPs: [{ ip: podIP }],
      startTime: t,
      conditions: ['Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map(condition),
      containerStatuses: (pod.spec?.containers ?? []).map((c) => ({
        name: c.name,
        ...(c.image !== undefined ? { image: c.image } : {}),
        imageID: '',
        containerID: `hollow://${(pod.metadata.uid ?? '').slice(0, 8)}-${c.name}`,
        ready: true,
        started: true,
        restartCount: 0,
        state: { running: { startedAt: t } },
      })),
    };
    const sentAt = wallMs();
    try {
      await this.timed('PATCH', 'pods/status', () =>
        pods.patch(pod.metadata.name ?? '', { status }, 'merge', { subresource: 'status' }),
      );
    } catch (err) {
      if (isApiError(err) && err.code === 404) return; // deleted meanwhile
      if (this.stopped || attempt >= 5) throw err;
      await new Promise((r) => setTimeout(r, 200 * 2 ** attempt));
      return this.reportRunning(state, pod, attempt + 1);
    }
    this.options.onPodRunning?.(pod, state.name, sentAt, wallMs());
    const run = this.options.runToCompletion?.(pod);
    if (run) this.exitAfter(pod, status, run);
  }

  /**
   * The containers exit once they have run: exit code 0 makes the pod Succeeded, another Failed
   * under `Never`, and under `OnFailure` restarts them in place (restartCount + 1), as the
   * kubelet's computePodActions does (the full kubelet, controllers/kubelet.ts, does the same).
   */
  private exitAfter(
    pod: Pod,
    running: NonNullable<Pod['status']>,
    run: { runMs: number; exitCode: number },
  ): void {
    const timer = setTimeout(() => {
      this.exits.delete(timer);
      if (this.stopped) return;
      const status = exitedStatus(pod, running, run);
      const restart = status.phase === 'Running';
      const pods = this.client
        .resource<Pod>(resources.pods)
        .namespace(pod.metadata.namespace ?? '');
      void this.timed('PATCH', 'pods/status', () =>
        pods.patch(pod.metadata.name ?? '', { status }, 'merge', { subresource: 'status' }),
      ).then(
        () => {
          if (restart) this.exitAfter(pod, status, run);
        },
        (err: unknown) => {
          if (isApiError(err) && (err.code === 404 || err.code === 409)) return;
          this.logger.warn('pod status write failed', {
            pod: `${pod.metadata.namespace}/${pod.metadata.name}`,
            error: err instanceof Error ? err.message : String(err),
          });
        },
      );
    }, run.runMs);
    this.exits.add(timer);
  }

  /** A pod being deleted: nothing ran, so the kubelet confirms at once (grace period 0). */
  private async confirmDeletion(pod: Pod): Promise<void> {
    try {
      await this.timed('DELETE', 'pods', () =>
        this.client
          .resource<Pod>(resources.pods)
          .namespace(pod.metadata.namespace ?? '')
          .delete(pod.metadata.name ?? '', {
            gracePeriodSeconds: 0,
            ...(pod.metadata.uid ? { preconditions: { uid: pod.metadata.uid } } : {}),
          }),
      );
    } catch (err) {
      if (!isApiError(err) || (err.code !== 404 && err.code !== 409)) throw err;
    }
  }

  private nodeObject(state: NodeState): Node {
    const t = now();
    const condition = (type: string, status: 'True' | 'False', reason: string) => ({
      type,
      status,
      reason,
      message: reason,
      lastHeartbeatTime: t,
      lastTransitionTime: t,
    });
    const arch = process.arch === 'x64' ? 'amd64' : process.arch;
    return {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: state.name,
        labels: {
          'kubernetes.io/hostname': state.name,
          'kubernetes.io/os': 'linux',
          'kubernetes.io/arch': arch,
          type: 'hollow-node',
        },
      },
      spec: { podCIDR: `10.${64 + (state.index >> 8)}.${state.index & 255}.0/24` },
      status: {
        conditions: [
          condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory'),
          condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure'),
          condition('PIDPressure', 'False', 'KubeletHasSufficientPID'),
          condition('Ready', 'True', 'KubeletReady'),
        ],
        addresses: [
          { type: 'InternalIP', address: `10.0.${state.index >> 8}.${state.index & 255}` },
        ],
        capacity: { cpu: '4', memory: '8Gi', pods: '110' },
        allocatable: { cpu: '4', memory: '8Gi', pods: '110' },
        nodeInfo: {
          kubeletVersion: 'v1.32.0-hollow',
          containerRuntimeVersion: 'hollow://0.0.0',
          osImage: 'listwatch simulated node',
          operatingSystem: 'linux',
          architecture: arch,
        },
      },
    };
  }

  private leaseObject(state: NodeState): Lease {
    return {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {
        name: state.name,
        namespace: NODE_LEASE_NAMESPACE,
        // Owned by its Node, so the Lease goes with it.
        ...(state.uid
          ? {
              ownerReferences: [
                { apiVersion: 'v1', kind: 'Node', name: state.name, uid: state.uid },
              ],
            }
          : {}),
      },
      spec: {
        holderIdentity: state.name,
        leaseDurationSeconds: 40,
        renewTime: formatMicroTime(Date.now()),
      },
    };
  }
}
