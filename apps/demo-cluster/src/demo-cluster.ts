import {
  EventBroadcaster,
  LeaderElector,
  LeaseLock,
  SharedInformerFactory,
  silentLogger,
  type Clock,
  type Lease,
  type Logger,
  type RestClient,
} from '@listwatch/client';
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { hostname } from 'node:os';
import { CronJobController } from './controllers/cronjob/cronjob-controller.js';
import { DeploymentController } from './controllers/deployment/deployment-controller.js';
import { EndpointSliceController } from './controllers/endpointslice/endpointslice-controller.js';
import { JobController } from './controllers/job/job-controller.js';
import { GarbageCollector } from './controllers/garbagecollector/garbage-collector.js';
import { Kubelet } from './controllers/kubelet.js';
import { NamespaceController } from './controllers/namespace/namespace-controller.js';
import { resources } from './controllers/objects.js';
import { ReplicaSetController } from './controllers/replicaset-controller.js';
import { ensureFooCrd, FooController } from './controllers/samplecontroller/foo-controller.js';
import { Scheduler } from './controllers/scheduler.js';

/** The Lease the controllers are elected on (kube-controller-manager's is kube-system/kube-controller-manager). */
export const CONTROLLERS_LEASE = { namespace: 'kube-system', name: 'listwatch-demo-controllers' };

export interface DemoClusterOptions {
  client: RestClient;
  /**
   * The client a component acts with (`kube-controller-manager` for the shared informers and the
   * controllers' Lease, `kube-scheduler`, `node:<name>` for a kubelet, else a controller's name
   * such as `deployment-controller`, as kube's --use-service-account-credentials). Default: `client`.
   */
  clientFor?: (component: string) => RestClient;
  /** One simulated kubelet per name. */
  nodes: readonly string[];
  /** Who campaigns for the controllers' lease (default `<hostname>_<uuid>`, as client-go's callers do). */
  identity?: string;
  /** client-go's defaults (15 s / 10 s / 2 s) unless given. */
  leaderElection?: { leaseDurationMs?: number; renewDeadlineMs?: number; retryPeriodMs?: number };
  /** Kubelets' lease renewal period. */
  nodeLeaseRenewMs?: number;
  /**
   * How long the simulated containers of pods with `restartPolicy: Never`/`OnFailure` (Jobs' pods)
   * run when their `demo.listwatch.dev/run-seconds` annotation does not say (default 2 s).
   */
  runToCompletionMs?: number;
  /** The CronJob controller's clock (real time unless a test skews it toward a schedule time). */
  cronJobClock?: Clock;
  /** One line per leadership change. */
  report?: (line: string) => void;
  logger?: Logger;
}

/**
 * The cluster half of the demo, built only from @listwatch/client: a kubelet per node, always
 * running, and the control plane — the Deployment and ReplicaSet controllers and the scheduler, sharing one
 * informer factory, the namespace controller, and the garbage collector with its own metadata informers — running only while this process holds the controllers' Lease, so two
 * demo processes against one apiserver never both reconcile. The leader releases the lease on
 * a clean stop and a standby takes over at once; after a crash, once the lease expires.
 */
export class DemoCluster {
  readonly identity: string;
  private readonly options: DemoClusterOptions;
  private readonly logger: Logger;
  private readonly abort = new AbortController();
  private readonly running: Promise<void>[] = [];
  /** The kubelets' event broadcasters, shut down with them. */
  private readonly kubeletEvents: EventBroadcaster[] = [];
  private leading = false;

  constructor(options: DemoClusterOptions) {
    this.options = options;
    this.identity = options.identity ?? `${hostname()}_${randomUUID()}`;
    this.logger = options.logger ?? silentLogger;
  }

  /** Whether this process runs the controllers now. */
  isLeading(): boolean {
    return this.leading;
  }

  private clientFor(component: string): RestClient {
    return this.options.clientFor?.(component) ?? this.options.client;
  }

  /**
   * Installs the sample-controller's Foo CRD, registers the nodes, then runs the kubelets and
   * campaigns for the controllers in the background.
   */
  async start(): Promise<void> {
    await ensureFooCrd(this.options.client);
    const kubelets = this.options.nodes.map((nodeName, index) => {
      const client = this.clientFor(`node:${nodeName}`);
      // The kubelet records core/v1 Events (system:node may write no events.k8s.io ones).
      const events = new EventBroadcaster({ client, apiVersion: 'v1', logger: this.logger });
      this.kubeletEvents.push(events);
      return new Kubelet({
        client,
        nodeName,
        index,
        logger: this.logger,
        recorder: events.newRecorder({
          reportingController: 'kubelet',
          reportingInstance: nodeName,
        }),
        ...(this.options.nodeLeaseRenewMs !== undefined
          ? { leaseRenewMs: this.options.nodeLeaseRenewMs }
          : {}),
        ...(this.options.runToCompletionMs !== undefined
          ? { runToCompletionMs: this.options.runToCompletionMs }
          : {}),
      });
    });
    await Promise.all(kubelets.map((k) => k.register()));
    const signal = this.abort.signal;
    for (const kubelet of kubelets) this.running.push(this.supervise(kubelet.run(signal)));
    this.running.push(this.supervise(this.campaign(signal)));
  }

  /** Stops the controllers (releasing the lease) and the kubelets; resolves when all are down. */
  async stop(): Promise<void> {
    this.abort.abort();
    await Promise.all(this.running);
    await Promise.all(this.kubeletEvents.map((events) => events.shutdown()));
  }

  private async supervise(task: Promise<void>): Promise<void> {
    try {
      await task;
    } catch (err) {
      this.logger.error('demo component failed', {
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }

  /** Stands for election again each time leadership is lost, until stopped. */
  private async campaign(signal: AbortSignal): Promise<void> {
    const report = this.options.report ?? (() => undefined);
    const lock = new LeaseLock(
      this.clientFor('kube-controller-manager').resource<Lease>(resources.leases),
      CONTROLLERS_LEASE.namespace,
      CONTROLLERS_LEASE.name,
      this.identity,
    );
    const elector = new LeaderElector({
      lock,
      releaseOnCancel: true,
      logger: this.logger,
      ...this.options.leaderElection,
      callbacks: {
        onStartedLeading: (leading) => this.lead(leading),
        onStoppedLeading: () => {
          this.leading = false;
          if (!signal.aborted) report('controllers: lost the lease; standing by');
        },
        onNewLeader: (identity) => {
          if (identity !== this.identity) report(`controllers: standing by, ${identity} leads`);
        },
      },
    });
    while (!signal.aborted) await elector.run(signal);
  }

  /** The control plane for one term of leadership: fresh informers, shut down at its end. */
  private async lead(signal: AbortSignal): Promise<void> {
    this.leading = true;
    this.options.report?.(`controllers: leading as ${this.identity}`);
    const logger = this.logger;
    // Every controller waits on this term's signal for each of its caches: more than Node's
    // default of 10 listeners, none of them leaked.
    setMaxListeners(64, signal);
    const client = (component: string) => this.clientFor(component);
    // kube-controller-manager's record.EventBroadcaster: each controller writes its Events as
    // itself (--use-service-account-credentials), through a bounded queue that never blocks it.
    const broadcasters: EventBroadcaster[] = [];
    const recorder = (component: string, as = client(component)) => {
      const events = new EventBroadcaster({ client: as, logger });
      broadcasters.push(events);
      return events.newRecorder({ reportingController: component });
    };
    // kube-controller-manager's shared informers list and watch as itself; each controller
    // writes as its own identity. The scheduler is a process of its own in kube: own informers.
    const factory = new SharedInformerFactory({
      client: client('kube-controller-manager'),
      logger,
    });
    const schedulerClient = client('kube-scheduler');
    const schedulerFactory =
      schedulerClient === this.options.client
        ? factory
        : new SharedInformerFactory({ client: schedulerClient, logger });
    const replicaSets = new ReplicaSetController({
      client: client('replicaset-controller'),
      recorder: recorder('replicaset-controller'),
      factory,
      logger,
    });
    const scheduler = new Scheduler({
      client: schedulerClient,
      factory: schedulerFactory,
      logger,
      recorder: recorder('default-scheduler', schedulerClient),
    });
    const deployments = new DeploymentController({
      client: client('deployment-controller'),
      recorder: recorder('deployment-controller'),
      factory,
      logger,
    });
    const garbageCollector = new GarbageCollector({
      client: client('generic-garbage-collector'),
      logger,
    });
    const namespaces = new NamespaceController({
      client: client('namespace-controller'),
      recorder: recorder('namespace-controller'),
      factory,
      logger,
    });
    const foos = new FooController({
      client: client('sample-controller'),
      recorder: recorder('sample-controller'),
      factory,
      logger,
    });
    const jobs = new JobController({
      client: client('job-controller'),
      recorder: recorder('job-controller'),
      factory,
      logger,
    });
    const cronJobs = new CronJobController({
      client: client('cronjob-controller'),
      recorder: recorder('cronjob-controller'),
      factory,
      logger,
      ...(this.options.cronJobClock ? { clock: this.options.cronJobClock } : {}),
    });
    const endpointSlices = new EndpointSliceController({
      client: client('endpointslice-controller'),
      recorder: recorder('endpointslice-controller'),
      factory,
      logger,
    });
    factory.start();
    if (schedulerFactory !== factory) schedulerFactory.start();
    try {
      await Promise.all([
        replicaSets.run(signal),
        deployments.run(signal),
        scheduler.run(signal),
        garbageCollector.run(signal),
        namespaces.run(signal),
        foos.run(signal),
        jobs.run(signal),
        cronJobs.run(signal),
        endpointSlices.run(signal),
      ]);
    } finally {
      await factory.shutdown();
      if (schedulerFactory !== factory) await schedulerFactory.shutdown();
      await Promise.all(broadcasters.map((events) => events.shutdown()));
    }
  }
}
