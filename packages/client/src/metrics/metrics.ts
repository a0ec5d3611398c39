import type { WorkQueueMetrics } from '../workqueue/metrics.js';

/**
 * The client keeps no metrics registry of its own: controllers report through this interface,
 * whose shapes are prom-client's, so wiring Prometheus is three lines —
 * `{ counter: (o) => new Counter(o), gauge: (o) => new Gauge(o), histogram: (o) => new Histogram(o) }`
 * — and any other library fits behind a small adapter.
 */
export interface MetricsFactory {
  counter(options: MetricOptions): CounterMetric;
  gauge(options: MetricOptions): GaugeMetric;
  histogram(options: MetricOptions & { buckets?: number[] }): HistogramMetric;
}

export interface MetricOptions {
  name: string;
  help: string;
  labelNames: string[];
}

export type MetricLabels = Record<string, string>;

export interface CounterMetric {
  inc(labels: MetricLabels, value?: number): void;
}
export interface GaugeMetric {
  set(labels: MetricLabels, value: number): void;
}
export interface HistogramMetric {
  observe(labels: MetricLabels, value: number): void;
}

/** controller-runtime's reconcile-time buckets (pkg/internal/controller/metrics). */
const RECONCILE_TIME_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9,
  1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];

/** client-go workqueue's latency buckets: 1 ns to 10 s, factor 10 (in seconds). */
const WORKQUEUE_BUCKETS = [1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10];

/** How a reconcile ended, the `result` label of controller_runtime_reconcile_total. */
export type ReconcileOutcome = 'success' | 'error' | 'requeue' | 'requeue_after';

/** What a reconcile controller reports, one instance for every controller of a process. */
export interface ReconcileMetrics {
  reconciled(controller: string, outcome: ReconcileOutcome, seconds: number): void;
  setActiveWorkers(controller: string, workers: number): void;
  setMaxConcurrentReconciles(controller: string, max: number): void;
}

/**
 * controller-runtime's controller metrics, by its names (pkg/internal/controller/metrics):
 * controller_runtime_reconcile_total{controller,result}, controller_runtime_reconcile_errors_total,
 * controller_runtime_reconcile_time_seconds, controller_runtime_active_workers,
 * controller_runtime_max_concurrent_reconciles.
 */
export function controllerRuntimeMetrics(factory: MetricsFactory): ReconcileMetrics {
  const total = factory.counter({
    name: 'controller_runtime_reconcile_total',
    help: 'Total number of reconciliations per controller',
    labelNames: ['controller', 'result'],
  });
  const errors = factory.counter({
    name: 'controller_runtime_reconcile_errors_total',
    help: 'Total number of reconciliation errors per controller',
    labelNames: ['controller'],
  });
  const time = factory.histogram({
    name: 'controller_runtime_reconcile_time_seconds',
    help: 'Length of time per reconciliation per controller',
    labelNames: ['controller'],
    buckets: RECONCILE_TIME_BUCKETS,
  });
  const active = factory.gauge({
    name: 'controller_runtime_active_workers',
    help: 'Number of currently used workers per controller',
    labelNames: ['controller'],
  });
  const max = factory.gauge({
    name: 'controller_runtime_max_concurrent_reconciles',
    help: 'Maximum number of concurrent reconciles per controller',
    labelNames: ['controller'],
  });
  return {
    reconciled(controller, outcome, seconds) {
      total.inc({ controller, result: outcome });
      if (outcome === 'error') errors.inc({ controller });
      time.observe({ controller }, seconds);
    },
    setActiveWorkers: (controller, workers) => active.set({ controller }, workers),
    setMaxConcurrentReconciles: (controller, n) => max.set({ controller }, n),
  };
}

/**
 * client-go's work queue metrics by their Prometheus names (workqueue_depth{name},
 * workqueue_adds_total, workqueue_queue_duration_seconds, workqueue_work_duration_seconds,
 * workqueue_unfinished_work_seconds, workqueue_longest_running_processor_seconds,
 * workqueue_retries_total), as controller-runtime registers them: `forQueue(name)` is the
 * `metrics` option of one queue.
 */
export function workQueueMetricsProvider(factory: MetricsFactory): {
  forQueue(name: string): WorkQueueMetrics;
} {
  const labelNames = ['name'];
  const depth = factory.gauge({
    name: 'workqueue_depth',
    help: 'Current depth of workqueue',
    labelNames,
  });
  const adds = factory.counter({
    name: 'workqueue_adds_total',
    help: 'Total number of adds handled by workqueue',
    labelNames,
  });
  const queued = factory.histogram({
    name: 'workqueue_queue_duration_seconds',
    help: 'How long in seconds an item stays in workqueue before being requested',
    labelNames,
    buckets: WORKQUEUE_BUCKETS,
  });
  const work = factory.histogram({
    name: 'workqueue_work_duration_seconds',
    help: 'How long in seconds processing an item from workqueue takes',
    labelNames,
    buckets: WORKQUEUE_BUCKETS,
  });
  const unfinished = factory.gauge({
    name: 'workqueue_unfinished_work_seconds',
    help: "How many seconds of work has been done that is in progress and hasn't been observed by work_duration",
    labelNames,
  });
  const longest = factory.gauge({
    name: 'workqueue_longest_running_processor_seconds',
    help: 'How many seconds has the longest running processor for workqueue been running',
    labelNames,
  });
  const retries = factory.counter({
    name: 'workqueue_retries_total',
    help: 'Total number of retries handled by workqueue',
    labelNames,
  });
  return {
    forQueue(name) {
      const l = { name };
      return {
        setDepth: (v) => depth.set(l, v),
        incAdds: () => adds.inc(l),
        observeQueueLatency: (s) => queued.observe(l, s),
        observeWorkDuration: (s) => work.observe(l, s),
        setUnfinishedWorkSeconds: (s) => unfinished.set(l, s),
        setLongestRunningProcessorSeconds: (s) => longest.set(l, s),
        incRetries: () => retries.inc(l),
      };
    },
  };
}

/**
 * Keeps every series in memory (counters and gauges their value, histograms their count and
 * sum): for tests and debugging. `value('controller_runtime_reconcile_total', { controller:
 * 'foo', result: 'success' })`.
 */
export class InMemoryMetrics implements MetricsFactory {
  private readonly series = new Map<string, { value: number; count: number }>();

  counter(options: MetricOptions): CounterMetric {
    return { inc: (labels, value = 1) => (this.entry(options.name, labels).value += value) };
  }
  gauge(options: MetricOptions): GaugeMetric {
    return { set: (labels, value) => (this.entry(options.name, labels).value = value) };
  }
  histogram(options: MetricOptions): HistogramMetric {
    return {
      observe: (labels, value) => {
        const e = this.entry(options.name, labels);
        e.value += value;
        e.count++;
      },
    };
  }

  /** A counter's or gauge's value, a histogram's sum; 0 for a series never written. */
  value(name: string, labels: MetricLabels): number {
    return this.series.get(seriesKey(name, labels))?.value ?? 0;
  }
  /** How many observations a histogram series has. */
  count(name: string, labels: MetricLabels): number {
    return this.series.get(seriesKey(name, labels))?.count ?? 0;
  }

  private entry(name: string, labels: MetricLabels): { value: number; count: number } {
    const key = seriesKey(name, labels);
    let e = this.series.get(key);
    if (!e) this.series.set(key, (e = { value: 0, count: 0 }));
    return e;
  }
}

function seriesKey(name: string, labels: MetricLabels): string {
  const pairs = Object.keys(labels)
    .sort()
    .map((k) => `${k}=${JSON.stringify(labels[k])}`);
  return `${name}{${pairs.join(',')}}`;
}
