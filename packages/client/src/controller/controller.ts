import { errorField, silentLogger, type Logger } from '@listwatch/api';
import type { KubernetesObject } from '../runtime/kubernetes-object.js';
import { DeletedFinalStateUnknown } from '../cache/deleted-final-state-unknown.js';
import { deletionHandlingMetaNamespaceKeyFunc } from '../cache/key-func.js';
import type { EventHandler } from '../cache/processor-listener.js';
import { waitForCacheSync } from '../cache/shared-informer.js';
import { realClock, type Clock } from '../util/clock.js';
import { RateLimitingQueue } from '../workqueue/rate-limiting-queue.js';
import type { RateLimiter } from '../workqueue/rate-limiters.js';
import type { WorkQueueMetrics } from '../workqueue/metrics.js';
import type { ReconcileMetrics, ReconcileOutcome } from '../metrics/metrics.js';
import type { Result } from '../reconcile/reconcile.js';

export interface ControllerOptions<K> {
  name: string;
  /**
   * Brings the world in line with the desired state of `key`, reading from listers. Throwing
   * (or rejecting) requeues the key with backoff; returning forgets its failures, unless the
   * returned Result asks for `requeueAfter` (ms) or `requeue` (with backoff), as
   * controller-runtime's. `signal` aborts when the controller shuts down.
   */
  reconcile: (key: K, signal: AbortSignal) => void | Result | Promise<void | Result>;
  /** Parallel workers (default 1); a key is never reconciled by two at once. */
  workers?: number | undefined;
  /** Caches that must be synced before the first reconcile (informers, handler registrations). */
  cacheSyncs?: { hasSynced(): boolean }[] | undefined;
  /** Give up on a key after this many failed attempts (default: never; backoff caps at 1000 s). */
  maxRetries?: number | undefined;
  rateLimiter?: RateLimiter<K> | undefined;
  /** The work queue's metrics (see workQueueMetricsProvider for Prometheus names). */
  metrics?: WorkQueueMetrics | undefined;
  /** controller_runtime_reconcile_* (see controllerRuntimeMetrics). */
  reconcileMetrics?: ReconcileMetrics | undefined;
  logger?: Logger | undefined;
  clock?: Clock | undefined;
}

/**
 * The sample-controller loop: informers' handlers enqueue keys, N workers take them from a
 * rate-limited work queue and reconcile. The queue guarantees a key is processed by one worker
 * at a time and that repeated changes collapse into one pending item; errors retry with
 * per-key exponential backoff.
 */
export class Controller<K = string> {
  readonly name: string;
  readonly queue: RateLimitingQueue<K>;
  private readonly options: ControllerOptions<K>;
  private readonly logger: Logger;
  private readonly clock: Clock;
  private activeWorkers = 0;

  constructor(options: ControllerOptions<K>) {
    this.options = options;
    this.name = options.name;
    this.logger = options.logger ?? silentLogger;
    this.clock = options.clock ?? realClock;
    this.queue = new RateLimitingQueue<K>({
      name: options.name,
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.metrics ? { metrics: options.metrics } : {}),
      ...(options.rateLimiter ? { rateLimiter: options.rateLimiter } : {}),
    });
  }

  enqueue(key: K): void {
    this.queue.add(key);
  }

  /**
   * Waits for the caches, runs the workers until `signal` aborts, then shuts the queue down and
   * waits for the items being processed (client-go ShutDownWithDrain).
   */
  async run(signal: AbortSignal): Promise<void> {
    this.logger.info('starting controller', { controller: this.name });
    const synced = await waitForCacheSync(signal, ...(this.options.cacheSyncs ?? []));
    if (!synced) {
      this.queue.shutDown();
      return;
    }
    this.logger.info('caches synced; starting workers', {
      controller: this.name,
      workers: this.options.workers ?? 1,
    });
    const count = Math.max(1, this.options.workers ?? 1);
    this.options.reconcileMetrics?.setMaxConcurrentReconciles(this.name, count);
    const workers = Array.from({ length: count }, () => this.worker(signal));
    if (!signal.aborted) {
      await new Promise<void>((resolve) =>
        signal.addEventListener('abort', () => resolve(), { once: true }),
      );
    }
    this.logger.info('shutting down controller', { controller: this.name });
    await this.queue.shutDownWithDrain();
    await Promise.all(workers);
  }

  private async worker(signal: AbortSignal): Promise<void> {
    for (;;) {
      const { item, shutdown } = await this.queue.get();
      if (shutdown) return;
      const metrics = this.options.reconcileMetrics;
      metrics?.setActiveWorkers(this.name, ++this.activeWorkers);
      const started = this.clock.now();
      let outcome: ReconcileOutcome;
      try {
        outcome = this.handleResult(item, await this.options.reconcile(item, signal));
      } catch (err) {
        outcome = 'error';
        this.handleError(item, err);
      } finally {
        this.queue.done(item);
        metrics?.setActiveWorkers(this.name, --this.activeWorkers);
      }
      metrics?.reconciled(this.name, outcome, (this.clock.now() - started) / 1000);
    }
  }

  /** controller-runtime reconcileHandler: requeueAfter wins over requeue. */
  private handleResult(item: K, result: void | Result): ReconcileOutcome {
    if (result && result.requeueAfter !== undefined && result.requeueAfter > 0) {
      // A delayed requeue is not a failure: the backoff starts over.
      this.queue.forget(item);
      this.queue.addAfter(item, result.requeueAfter);
      return 'requeue_after';
    }
    if (result?.requeue) {
      this.queue.addRateLimited(item);
      return 'requeue';
    }
    this.queue.forget(item);
    return 'success';
  }

  private handleError(item: K, err: unknown): void {
    const retries = this.queue.numRequeues(item);
    if (this.options.maxRetries !== undefined && retries >= this.options.maxRetries) {
      this.logger.error('dropping key out of the queue after too many retries', {
        controller: this.name,
        key: String(item),
        retries,
        error: errorField(err),
      });
      this.queue.forget(item);
    } else {
      this.logger.warn('reconcile failed; requeued with backoff', {
        controller: this.name,
        key: String(item),
        retries,
        error: errorField(err),
      });
      this.queue.addRateLimited(item);
    }
  }
}

/**
 * A handler that enqueues the key (`namespace/name`) of every added, updated or deleted object,
 * tombstones included — the usual first line of a controller.
 */
export function enqueueKeys<T extends KubernetesObject>(
  queue: { add(key: string): void },
  options: { skipResyncs?: boolean } = {},
): EventHandler<T> {
  const enqueue = (obj: T | DeletedFinalStateUnknown<T>): void =>
    queue.add(deletionHandlingMetaNamespaceKeyFunc(obj));
  return {
    onAdd: (obj) => enqueue(obj),
    onUpdate: (oldObj, newObj) => {
      if (
        options.skipResyncs &&
        oldObj.metadata?.resourceVersion === newObj.metadata?.resourceVersion
      )
        return;
      enqueue(newObj);
    },
    onDelete: (obj) => enqueue(obj),
  };
}

/** The object a delete notification carries, unwrapping a tombstone (may be undefined). */
export function deletedObject<T extends KubernetesObject>(
  obj: T | DeletedFinalStateUnknown<T>,
): T | undefined {
  return obj instanceof DeletedFinalStateUnknown ? obj.obj : obj;
}
