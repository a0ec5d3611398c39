import { errorField, silentLogger, type Logger } from '@listwatch/api';
import { SharedInformerFactory } from '../cache/informer-factory.js';
import { LeaderElector, type LeaderElectionConfig } from '../leaderelection/leader-election.js';
import {
  controllerRuntimeMetrics,
  workQueueMetricsProvider,
  type MetricsFactory,
  type ReconcileMetrics,
} from '../metrics/metrics.js';
import type { RestClient } from '../rest/client.js';
import type { Clock } from '../util/clock.js';
import type { WorkQueueMetrics } from '../workqueue/metrics.js';

/** Anything the manager runs until its signal aborts: a Controller, or your own loop. */
export interface Runnable {
  run(signal: AbortSignal): Promise<void>;
}

export interface ManagerOptions {
  client: RestClient;
  /** Informers of one namespace only ('' or unset: all). */
  namespace?: string | undefined;
  /**
   * Share an existing factory instead of making one on `client`: the manager starts it but
   * leaves it running when it stops, as the client, it is the caller's to shut down.
   */
  informers?: SharedInformerFactory | undefined;
  /**
   * Run the controllers only while holding this lock (controller-runtime's LeaderElection);
   * the informers run either way, so a new leader starts with warm caches.
   */
  leaderElection?: Omit<LeaderElectionConfig, 'callbacks'> | undefined;
  /** Where controller_runtime_* and workqueue_* go (e.g. prom-client); default nowhere. */
  metrics?: MetricsFactory | undefined;
  logger?: Logger | undefined;
  clock?: Clock | undefined;
}

/**
 * Runs controllers and the informers they share (controller-runtime pkg/manager): start()
 * starts the informers, runs every added controller (under leader election if configured),
 * and on abort shuts down gracefully — the controllers stop taking work and wait for the
 * reconciles in flight, then the informers it made stop. The client, and a factory passed in
 * `informers` (shared with other controllers of the process), are the caller's to close.
 */
export class Manager {
  readonly client: RestClient;
  readonly informers: SharedInformerFactory;
  readonly logger: Logger;
  readonly clock: Clock | undefined;
  readonly reconcileMetrics: ReconcileMetrics | undefined;
  readonly workQueueMetrics: { forQueue(name: string): WorkQueueMetrics } | undefined;
  private readonly runnables: Runnable[] = [];
  private readonly options: ManagerOptions;
  /** Whether the manager made its informers, and so stops them. */
  private readonly ownsInformers: boolean;

  constructor(options: ManagerOptions) {
    this.options = options;
    this.client = options.client;
    this.logger = options.logger ?? silentLogger;
    this.clock = options.clock;
    this.ownsInformers = options.informers === undefined;
    this.informers =
      options.informers ??
      new SharedInformerFactory({
        client: options.client,
        namespace: options.namespace,
        ...(options.logger ? { logger: options.logger } : {}),
        ...(options.clock ? { clock: options.clock } : {}),
      });
    // One set of metric objects per manager: a registry such as prom-client's refuses a name twice.
    this.reconcileMetrics = options.metrics ? controllerRuntimeMetrics(options.metrics) : undefined;
    this.workQueueMetrics = options.metrics ? workQueueMetricsProvider(options.metrics) : undefined;
  }

  add(runnable: Runnable): void {
    this.runnables.push(runnable);
  }

  /** Runs until `signal` aborts; resolves once everything has stopped. */
  async start(signal: AbortSignal): Promise<void> {
    this.informers.start();
    try {
      const election = this.options.leaderElection;
      if (!election) {
        await this.runAll(signal);
        return;
      }
      const elector = new LeaderElector({
        ...election,
        callbacks: { onStartedLeading: (leading) => this.runAll(leading) },
      });
      // Stand for election again after losing it, until stopped.
      while (!signal.aborted) await elector.run(signal);
    } finally {
      if (this.ownsInformers) await this.informers.shutdown();
    }
  }

  private async runAll(signal: AbortSignal): Promise<void> {
    // Informers created since start() (a controller added late) start now.
    this.informers.start();
    await Promise.all(
      this.runnables.map(async (r) => {
        try {
          await r.run(signal);
        } catch (err) {
          this.logger.error('runnable failed', { error: errorField(err) });
        }
      }),
    );
  }
}
