import { isApiError, objectKey } from '@listwatch/api';
import {
  Controller,
  deletedObject,
  enqueueKeys,
  formatMicroTime,
  realClock,
  SharedInformerFactory,
  silentLogger,
  sleep,
  splitMetaNamespaceKey,
  type EventRecorder,
  type Lease,
  type Lister,
  type Logger,
  type ResourceClient,
  type RestClient,
} from '@listwatch/client';
import { release } from 'node:os';
import { ContainerLogServer } from './container-logs.js';
import { recordEvent } from './controller-options.js';
import {
  cachedObject,
  isPodActive,
  isPodReady,
  now,
  resources,
  type ContainerStatus,
  type Node,
  type Pod,
  type PodCondition,
} from './objects.js';

/** Where node leases live (kube's NamespaceNodeLease). */
export const NODE_LEASE_NAMESPACE = 'kube-node-lease';
/** The kubelet's --node-lease-duration-seconds default. */
const NODE_LEASE_DURATION_SECONDS = 40;
/** The field manager of the pod status this kubelet applies (kube's kubelet is `kubelet`). */
const FIELD_MANAGER = 'kubelet';

/**
 * How long a simulated container of a pod with `restartPolicy: Never` or `OnFailure` runs before
 * it exits (seconds; default `KubeletOptions.runToCompletionMs`), and the exit code it exits with
 * (default 0). No container runs: these stand for what its command would do.
 */
export const RUN_SECONDS_ANNOTATION = 'demo.listwatch.dev/run-seconds';
export const EXIT_CODE_ANNOTATION = 'demo.listwatch.dev/exit-code';

/** How long a pod that runs to completion runs when its annotation does not say. */
export const DEFAULT_RUN_TO_COMPLETION_MS = 2000;

export interface KubeletOptions {
  client: RestClient;
  nodeName: string;
  /** The node's number in the demo: picks its addresses (127.0.0.<2+n>, pods 10.244.<n>.0/24). */
  index: number;
  /** Lease renewal period (default 10 s: a quarter of the lease, as the kubelet renews). */
  leaseRenewMs?: number;
  /**
   * Where the kubelet endpoint (container logs) listens and the address the Node reports, which
   * kube-apiserver dials: default 127.0.0.<2+index> (Linux routes all of 127/8 to loopback),
   * else 127.0.0.1 where that address is not available.
   */
  address?: string;
  /** One simulated log line per container per this many ms (default 2 s). */
  logIntervalMs?: number;
  /**
   * How long the containers of a pod with `restartPolicy: Never` or `OnFailure` run before they
   * exit, unless its `demo.listwatch.dev/run-seconds` annotation says (default 2 s).
   */
  runToCompletionMs?: number;
  logger?: Logger;
  /** Where the pods' Pulled, Created and Started go (the kubelet's core/v1 recorder). */
  recorder?: EventRecorder;
}

/** How long a run-to-completion pod's containers run, and how they exit. */
export function simulatedRun(
  pod: Pod,
  defaultMs: number,
): { runMs: number; exitCode: number } | undefined {
  const policy = pod.spec?.restartPolicy ?? 'Always';
  if (policy === 'Always') return undefined;
  const annotations = pod.metadata.annotations ?? {};
  const seconds = Number(annotations[RUN_SECONDS_ANNOTATION]);
  const exitCode = Number(annotations[EXIT_CODE_ANNOTATION] ?? 0);
  return {
    runMs: Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : defaultMs,
    exitCode: Number.isInteger(exitCode) && exitCode >= 0 && exitCode <= 255 ? exitCode : 1,
  };
}

/**
 * The status once a run-to-completion pod's containers exit: exit code 0 makes the pod
 * Succeeded, another Failed under `Never`, and under `OnFailure` restarts them in place
 * (restartCount + 1), as the kubelet's computePodActions does.
 */
export function exitedStatus(
  pod: Pod,
  current: NonNullable<Pod['status']>,
  run: { exitCode: number },
): NonNullable<Pod['status']> {
  const t = now();
  const failed = run.exitCode !== 0;
  const restart = failed && pod.spec?.restartPolicy === 'OnFailure';
  const terminated = (c: ContainerStatus) => ({
    exitCode: run.exitCode,
    reason: failed ? 'Error' : 'Completed',
    startedAt: c.state?.running?.startedAt ?? t,
    finishedAt: t,
    ...(c.containerID !== undefined ? { containerID: c.containerID } : {}),
  });
  const containerStatuses = (current.containerStatuses ?? []).map((c): ContainerStatus =>
    restart
      ? {
          ...c,
          restartCount: c.restartCount + 1,
          lastState: { terminated: terminated(c) },
          state: { running: { startedAt: t } },
        }
      : { ...c, ready: false, started: false, state: { terminated: terminated(c) } },
  );
  const conditions = (current.conditions ?? []).map((c) =>
    !restart && (c.type === 'Ready' || c.type === 'ContainersReady')
      ? { ...c, status: 'False' as const, lastTransitionTime: t, reason: 'PodCompleted' }
      : c,
  );
  return {
    ...current,
    phase: restart ? 'Running' : failed ? 'Failed' : 'Succeeded',
    conditions,
    containerStatuses,
  };
}

/**
 * A simulated kubelet: registers its Node as Ready, renews its Lease in kube-node-lease, and
 * "runs" every pod bound to it — watching only its own pods (`spec.nodeName=<node>`, the
 * apiserver's indexed node watch) and reporting each Running with a pod IP and ready containers
 * through the status subresource. A pod deleted from its node gets a deletionTimestamp from the
 * apiserver and stays Terminating until its kubelet has stopped it; this one "stops" it (frees
 * its IP: no container ever ran) and confirms with a zero-grace delete, as the kubelet's status
 * manager does (pkg/kubelet/status/status_manager.go).
 */
export class Kubelet {
  readonly nodeName: string;
  private readonly client: RestClient;
  private readonly nodes: ResourceClient<Node>;
  private readonly pods: ResourceClient<Pod>;
  private readonly leases: ResourceClient<Lease>;
  private readonly index: number;
  private readonly leaseRenewMs: number;
  private readonly logger: Logger;
  /** Pod IPs handed out, by pod key; released when the pod goes. */
  private readonly podIPs = new Map<string, string>();
  private nodeUid = '';
  private readonly address: string | undefined;
  private readonly logIntervalMs: number | undefined;
  private logServer: ContainerLogServer | undefined;
  /** What the log server serves on, once listening. */
  private endpoint = { address: '', port: 0 };
  /** The node's pods, once run() watches them. */
  private lister: Lister<Pod> | undefined;
  private readonly runToCompletionMs: number;
  /** When this kubelet started each run-to-completion pod's containers (ms), by pod key. */
  private readonly started = new Map<string, number>();
  private controller: Controller<string> | undefined;
  private readonly recorder: EventRecorder | undefined;

  constructor(options: KubeletOptions) {
    this.recorder = options.recorder;
    this.client = options.client;
    this.nodeName = options.nodeName;
    this.index = options.index;
    this.leaseRenewMs = options.leaseRenewMs ?? 10_000;
    this.logger = options.logger ?? silentLogger;
    this.address = options.address;
    this.logIntervalMs = options.logIntervalMs;
    this.runToCompletionMs = options.runToCompletionMs ?? DEFAULT_RUN_TO_COMPLETION_MS;
    this.nodes = options.client.resource<Node>(resources.nodes);
    this.pods = options.client.resource<Pod>(resources.pods);
    this.leases = options.client.resource<Lease>(resources.leases).namespace(NODE_LEASE_NAMESPACE);
  }

  /** The node's address: where its kubelet endpoint serves (register() first). */
  get hostIP(): string {
    return this.endpoint.address;
  }

  /** The kubelet endpoint's port (register() first). */
  get port(): number {
    return this.endpoint.port;
  }

  /** Starts the container log endpoint on the node's address (see KubeletOptions.address). */
  private async serveLogs(): Promise<void> {
    if (this.logServer) return;
    const lookup = (namespace: string, name: string) => {
      try {
        return this.lister?.namespace(namespace).get(name);
      } catch {
        return undefined;
      }
    };
    const options = (host: string) => ({
      host,
      ...(this.logIntervalMs !== undefined ? { intervalMs: this.logIntervalMs } : {}),
    });
    const preferred = this.address ?? `127.0.0.${this.index + 2}`;
    let server = new ContainerLogServer(lookup, options(preferred));
    try {
      this.endpoint = await server.listen();
    } catch (err) {
      if (this.address !== undefined || (err as NodeJS.ErrnoException).code !== 'EADDRNOTAVAIL')
        throw err;
      server = new ContainerLogServer(lookup, options('127.0.0.1'));
      this.endpoint = await server.listen();
    }
    this.logServer = server;
  }

  /** Stops the kubelet endpoint (run() does when it ends). */
  async close(): Promise<void> {
    await this.logServer?.close();
    this.logServer = undefined;
  }

  get podCIDR(): string {
    return `10.244.${this.index}.0/24`;
  }

  /** Creates the Node (or finds it from an earlier run) and reports it Ready. */
  async register(): Promise<void> {
    await this.serveLogs();
    try {
      await this.nodes.create({
        apiVersion: 'v1',
        kind: 'Node',
        metadata: {
          name: this.nodeName,
          labels: {
            'kubernetes.io/hostname': this.nodeName,
            'kubernetes.io/os': 'linux',
            'kubernetes.io/arch': process.arch === 'x64' ? 'amd64' : process.arch,
          },
        },
        spec: { podCIDR: this.podCIDR },
      });
    } catch (err) {
      if (!isApiError(err) || err.code !== 409) throw err;
    }
    const t = now();
    const condition = (
      type: string,
      status: 'True' | 'False',
      reason: string,
      message: string,
    ) => ({
      type,
      status,
      reason,
      message,
      lastHeartbeatTime: t,
      lastTransitionTime: t,
    });
    const node = await this.nodes.patch(
      this.nodeName,
      {
        status: {
          conditions: [
            condition(
              'MemoryPressure',
              'False',
              'KubeletHasSufficientMemory',
              'kubelet has sufficient memory available',
            ),
            condition(
              'DiskPressure',
              'False',
              'KubeletHasNoDiskPressure',
              'kubelet has no disk pressure',
            ),
            condition(
              'PIDPressure',
              'False',
              'KubeletHasSufficientPID',
              'kubelet has sufficient PID available',
            ),
            condition('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'),
          ],
          // Only the address the kubelet endpoint serves on: kube-apiserver dials the first of
          // Hostname, InternalDNS, InternalIP… a Node has, and a simulated node's name resolves
          // to nothing.
          addresses: [{ type: 'InternalIP', address: this.hostIP }],
          daemonEndpoints: { kubeletEndpoint: { Port: this.port } },
          capacity: { cpu: '4', memory: '8Gi', pods: '110' },
          allocatable: { cpu: '4', memory: '8Gi', pods: '110' },
          nodeInfo: {
            kubeletVersion: 'v1.32.0-listwatch',
            containerRuntimeVersion: 'listwatch://0.0.0',
            osImage: 'listwatch demo node',
            kernelVersion: release(),
            operatingSystem: 'linux',
            architecture: process.arch === 'x64' ? 'amd64' : process.arch,
          },
        },
      },
      'merge',
      { subresource: 'status' },
    );
    this.nodeUid = node.metadata.uid ?? '';
    await this.renewLease();
  }

  /** Runs the node's pods and renews its lease until `signal` aborts; register() first. */
  async run(signal: AbortSignal): Promise<void> {
    const factory = new SharedInformerFactory({
      client: this.client,
      tweakListOptions: (params) => ({
        ...params,
        fieldSelector: `spec.nodeName=${this.nodeName}`,
      }),
      logger: this.logger,
    });
    const informer = factory.informerFor<Pod>(resources.pods);
    const lister = informer.lister();
    this.lister = lister;
    const enqueue = { add: (key: string) => controller.enqueue(key) };
    const registration = informer.addEventHandler({
      ...enqueueKeys<Pod>(enqueue, { skipResyncs: true }),
      onDelete: (obj) => {
        const pod = deletedObject(obj);
        if (pod) {
          this.podIPs.delete(objectKey(pod.metadata));
          this.started.delete(objectKey(pod.metadata));
        }
      },
    });
    // One worker: pod IPs are handed out one pod at a time.
    const controller: Controller<string> = new Controller<string>({
      name: `kubelet-${this.nodeName}`,
      workers: 1,
      logger: this.logger,
      cacheSyncs: [registration],
      reconcile: (key) => this.syncPod(lister, key),
    });
    this.controller = controller;
    factory.start();
    try {
      await Promise.all([controller.run(signal), this.leaseLoop(signal)]);
    } finally {
      await this.close();
      await factory.shutdown();
    }
  }

  private async leaseLoop(signal: AbortSignal): Promise<void> {
    while (await sleep(realClock, this.leaseRenewMs, signal)) {
      try {
        await this.renewLease(signal);
      } catch (err) {
        if (signal.aborted) return;
        this.logger.warn('failed to renew the node lease', {
          node: this.nodeName,
          error: err instanceof Error ? err.message : String(err),
        });
      }
    }
  }

  /** The heartbeat: the Lease's renewTime, created on first use (kubelet's nodelease controller). */
  private async renewLease(signal?: AbortSignal): Promise<void> {
    const spec = {
      holderIdentity: this.nodeName,
      leaseDurationSeconds: NODE_LEASE_DURATION_SECONDS,
      renewTime: formatMicroTime(Date.now()),
    };
    try {
      await this.leases.patch(this.nodeName, { spec }, 'merge', signal ? { signal } : {});
    } catch (err) {
      if (!isApiError(err) || err.code !== 404) throw err;
      await this.leases.create({
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: {
          name: this.nodeName,
          namespace: NODE_LEASE_NAMESPACE,
          // Owned by the Node, so the lease goes with it.
          ...(this.nodeUid
            ? {
                ownerReferences: [
                  { apiVersion: 'v1', kind: 'Node', name: this.nodeName, uid: this.nodeUid },
                ],
              }
            : {}),
        },
        spec,
      });
    }
  }

  private async syncPod(lister: Lister<Pod>, key: string): Promise<void> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    const pod = cachedObject(lister, namespace, name);
    if (!pod) return; // deleted: nothing ran, nothing to stop
    if (pod.metadata.deletionTimestamp) return this.terminatePod(pod, key);
    if (!isPodActive(pod)) return;
    const run = simulatedRun(pod, this.runToCompletionMs);
    if (pod.status?.phase === 'Running' && isPodReady(pod)) {
      if (run) await this.runToCompletion(pod, key, run);
      return;
    }
    const t = now();
    const podIP = pod.status?.podIP ?? this.allocatePodIP(lister, key);
    const condition = (type: string): PodCondition => ({
      type,
      status: 'True',
      lastProbeTime: null,
      lastTransitionTime: t,
    });
    const containerStatuses: ContainerStatus[] = (pod.spec?.containers ?? []).map((c) => ({
      name: c.name,
      ...(c.image !== undefined ? { image: c.image } : {}),
      imageID: '',
      containerID: `listwatch://${(pod.metadata.uid ?? '').slice(0, 8)}-${c.name}`,
      ready: true,
      started: true,
      restartCount: 0,
      state: { running: { startedAt: t } },
    }));
    // Server-side apply of what this kubelet reports, as its own field manager: the pod's uid
    // guards against a pod recreated under the same name (409), a deleted pod is a 404.
    const status: Pod['status'] = {
      phase: 'Running',
      hostIP: this.hostIP,
      podIP,
      podIPs: [{ ip: podIP }],
      startTime: pod.status?.startTime ?? t,
      conditions: [
        'PodReadyToStartContainers',
        'Initialized',
        'Ready',
        'ContainersReady',
        'PodScheduled',
      ].map(condition),
      containerStatuses,
    };
    try {
      await this.pods.namespace(namespace).applyStatus(
        {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name, ...(pod.metadata.uid ? { uid: pod.metadata.uid } : {}) },
          status,
        },
        { fieldManager: FIELD_MANAGER, force: true },
      );
    } catch (err) {
      if (isApiError(err) && (err.code === 404 || err.code === 409)) return;
      throw err;
    }
    // What a kubelet reports as it starts each container (kuberuntime_container.go; kwok's too).
    for (const c of pod.spec?.containers ?? []) {
      const image = c.image ?? '';
      const event = (reason: string, message: string) =>
        recordEvent(this.recorder, resources.pods, pod, 'Normal', reason, message);
      event('Pulled', `Container image "${image}" already present on machine`);
      event('Created', `Created container: ${c.name}`);
      event('Started', `Started container ${c.name}`);
    }
    if (run) {
      this.started.set(key, Date.now());
      this.controller?.queue.addAfter(key, run.runMs);
    }
  }

  /**
   * A pod whose containers exit (restartPolicy Never or OnFailure): once they have run their
   * simulated time, exit code 0 makes the pod Succeeded, another Failed under `Never`, and under
   * `OnFailure` restarts the container in place (restartCount + 1), as the kubelet's
   * computePodActions does.
   */
  private async runToCompletion(
    pod: Pod,
    key: string,
    run: { runMs: number; exitCode: number },
  ): Promise<void> {
    // After a kubelet restart, the pod's own start time (whole seconds) is what is known.
    const since = Date.parse(pod.status?.startTime ?? '');
    const startedAt = this.started.get(key) ?? (Number.isNaN(since) ? Date.now() : since);
    this.started.set(key, startedAt);
    const remaining = startedAt + run.runMs - Date.now();
    if (remaining > 0) {
      this.controller?.queue.addAfter(key, remaining);
      return;
    }
    const status = exitedStatus(pod, pod.status ?? {}, run);
    const restart = status.phase === 'Running';
    try {
      await this.pods.namespace(pod.metadata.namespace ?? '').applyStatus(
        {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: {
            name: pod.metadata.name ?? '',
            ...(pod.metadata.uid ? { uid: pod.metadata.uid } : {}),
          },
          status,
        },
        { fieldManager: FIELD_MANAGER, force: true },
      );
    } catch (err) {
      if (isApiError(err) && (err.code === 404 || err.code === 409)) return;
      throw err;
    }
    if (restart) {
      this.started.set(key, Date.now());
      this.controller?.queue.addAfter(key, run.runMs);
    } else {
      // A finished pod's sandbox is gone: its address is free again (its status keeps it).
      this.started.delete(key);
      this.podIPs.delete(key);
    }
  }

  /**
   * Stops a pod being deleted and confirms it gone: a delete with grace period 0 for this pod
   * (its uid, not a namesake created since). Already gone is done.
   */
  private async terminatePod(pod: Pod, key: string): Promise<void> {
    this.podIPs.delete(key);
    try {
      await this.pods.namespace(pod.metadata.namespace ?? '').delete(pod.metadata.name ?? '', {
        gracePeriodSeconds: 0,
        ...(pod.metadata.uid ? { preconditions: { uid: pod.metadata.uid } } : {}),
      });
    } catch (err) {
      // 404: deleted meanwhile; 409: a namesake with another uid, not ours to delete.
      if (!isApiError(err) || (err.code !== 404 && err.code !== 409)) throw err;
    }
  }

  /** The lowest free address of the node's pod CIDR. */
  private allocatePodIP(lister: Lister<Pod>, key: string): string {
    const existing = this.podIPs.get(key);
    if (existing) return existing;
    const used = new Set(this.podIPs.values());
    for (const pod of lister.list())
      if (pod.status?.podIP && isPodActive(pod)) used.add(pod.status.podIP);
    const prefix = `10.244.${this.index}`;
    for (let host = 2; host < 255; host++) {
      const ip = `${prefix}.${host}`;
      if (!used.has(ip)) {
        this.podIPs.set(key, ip);
        return ip;
      }
    }
    // A /24 holds 253 pods; the node advertises 110, so this is only reached by hand-made pods.
    return `${prefix}.254`;
  }
}
