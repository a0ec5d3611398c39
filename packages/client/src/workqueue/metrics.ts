import type { Clock } from '../util/clock.js';

/**
 * Where a work queue reports what controller dashboards watch (client-go
 * util/workqueue/metrics.go): depth, adds, time waiting in the queue, time being processed,
 * work in flight and retries. Durations are in seconds, as in Prometheus. Wire it to any
 * metrics library; the default reports nothing.
 */
export interface WorkQueueMetrics {
  /** Items waiting to be processed. */
  setDepth(depth: number): void;
  /** An item became dirty (an add that was not a no-op). */
  incAdds(): void;
  /** How long an item waited between its add and its get. */
  observeQueueLatency(seconds: number): void;
  /** How long an item was processed, from get to done. */
  observeWorkDuration(seconds: number): void;
  /** Sum of the ages of the items being processed: grows if a worker is stuck. */
  setUnfinishedWorkSeconds(seconds: number): void;
  /** Age of the longest-running item being processed. */
  setLongestRunningProcessorSeconds(seconds: number): void;
  /** An item was re-queued with a delay (addAfter / addRateLimited). */
  incRetries(): void;
}

function noop(): void {}

/** Reports nothing; queues skip the bookkeeping entirely when given this. */
export const noopWorkQueueMetrics: WorkQueueMetrics = {
  setDepth: noop,
  incAdds: noop,
  observeQueueLatency: noop,
  observeWorkDuration: noop,
  setUnfinishedWorkSeconds: noop,
  setLongestRunningProcessorSeconds: noop,
  incRetries: noop,
};

/** Keeps every value in memory: for tests and debugging, not for long-running processes. */
export class InMemoryWorkQueueMetrics implements WorkQueueMetrics {
  depth = 0;
  adds = 0;
  retries = 0;
  readonly queueLatencies: number[] = [];
  readonly workDurations: number[] = [];
  unfinishedWorkSeconds = 0;
  longestRunningProcessorSeconds = 0;

  setDepth(depth: number): void {
    this.depth = depth;
  }
  incAdds(): void {
    this.adds++;
  }
  observeQueueLatency(seconds: number): void {
    this.queueLatencies.push(seconds);
  }
  observeWorkDuration(seconds: number): void {
    this.workDurations.push(seconds);
  }
  setUnfinishedWorkSeconds(seconds: number): void {
    this.unfinishedWorkSeconds = seconds;
  }
  setLongestRunningProcessorSeconds(seconds: number): void {
    this.longestRunningProcessorSeconds = seconds;
  }
  incRetries(): void {
    this.retries++;
  }
}

/**
 * Turns queue events into metric values (client-go defaultQueueMetrics): remembers when each
 * item was added and when its processing started. Internal to the work queues.
 */
export class QueueMetricsRecorder<T> {
  readonly enabled: boolean;
  private depth = 0;
  private readonly addTimes = new Map<T, number>();
  private readonly processingStartTimes = new Map<T, number>();

  constructor(
    private readonly metrics: WorkQueueMetrics,
    private readonly clock: Clock,
  ) {
    this.enabled = metrics !== noopWorkQueueMetrics;
  }

  add(item: T): void {
    if (!this.enabled) return;
    this.metrics.incAdds();
    this.metrics.setDepth(++this.depth);
    if (!this.addTimes.has(item)) this.addTimes.set(item, this.clock.now());
  }

  get(item: T): void {
    if (!this.enabled) return;
    this.metrics.setDepth(--this.depth);
    const now = this.clock.now();
    this.processingStartTimes.set(item, now);
    const added = this.addTimes.get(item);
    if (added !== undefined) {
      this.metrics.observeQueueLatency((now - added) / 1000);
      this.addTimes.delete(item);
    }
  }

  done(item: T): void {
    if (!this.enabled) return;
    const started = this.processingStartTimes.get(item);
    if (started !== undefined) {
      this.metrics.observeWorkDuration((this.clock.now() - started) / 1000);
      this.processingStartTimes.delete(item);
    }
  }

  updateUnfinishedWork(): void {
    if (!this.enabled) return;
    const now = this.clock.now();
    let total = 0;
    let oldest = 0;
    for (const started of this.processingStartTimes.values()) {
      const age = (now - started) / 1000;
      total += age;
      if (age > oldest) oldest = age;
    }
    this.metrics.setUnfinishedWorkSeconds(total);
    this.metrics.setLongestRunningProcessorSeconds(oldest);
  }

  retry(): void {
    if (this.enabled) this.metrics.incRetries();
  }
}
