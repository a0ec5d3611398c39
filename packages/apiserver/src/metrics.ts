import type { CacherMetrics, WatcherEndReason } from '@listwatch/storage';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

type Kind = 'counter' | 'gauge' | 'histogram';
interface MetricSpec<K extends Kind, L extends string> {
  kind: K;
  name: string;
  help: string;
  labelNames: readonly L[];
  buckets?: number[];
}
const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
  ({ kind: 'counter', name, help, labelNames }) satisfies MetricSpec<'counter', L>;
const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
  ({ kind: 'gauge', name, help, labelNames }) satisfies MetricSpec<'gauge', L>;
const histogram = <L extends string>(
  name: string,
  help: string,
  labelNames: readonly L[],
  buckets: number[],
) => ({ kind: 'histogram', name, help, labelNames, buckets }) satisfies MetricSpec<'histogram', L>;

/**
 * The apiserver's Prometheus metrics, one row each: field, kind, name (kube-apiserver's where one
 * exists), help, label names and a histogram's buckets.
 */
// prettier-ignore
const METRICS = {
  requests:           counter('apiserver_request_total', 'Requests by verb, resource and HTTP code.', ['verb', 'resource', 'code']),
  requestDuration:    histogram('apiserver_request_duration_seconds', 'Request latency by verb and resource (a watch: until it ends, as kube-apiserver).', ['verb', 'resource'], [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]),
  inflight:           gauge('apiserver_current_inflight_requests', 'Requests being served, by kind (readOnly, mutating).', ['request_kind']),
  watches:            gauge('apiserver_longrunning_requests', 'Open watches by resource and transport.', ['resource', 'transport']),
  watchEventsSent:    counter('apiserver_watch_events_total', 'Watch events written to clients, by resource.', ['resource']),
  cacheWatchers:      gauge('apiserver_watch_cache_watchers', 'Watchers registered in the watch cache, by resource.', ['resource']),
  cacheDispatched:    counter('apiserver_watch_cache_events_dispatched_total', 'Event deliveries offered to watchers by the watch cache.', ['resource']),
  cacheWindow:        gauge('watch_cache_capacity', 'Events held in the watch cache window, by resource.', ['resource']),
  cacheWindowAge:     gauge('apiserver_watch_cache_window_age_seconds', 'Age of the oldest event in the watch cache window.', ['resource']),
  watcherEnds:        counter('apiserver_terminated_watchers_total', 'Watchers ended by the cache, by reason (slow: terminated for not keeping up).', ['resource', 'reason']),
  listLatency:        histogram('apiserver_watch_cache_list_duration_seconds', 'LIST latency by source (cache or storage).', ['resource', 'source'], [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 3, 10]),
  cacheLists:         counter('apiserver_cache_list_total', 'Number of LIST requests served from watch cache', ['resource', 'index']),
  cacheListFetched:   counter('apiserver_cache_list_fetched_objects_total', 'Number of objects read from watch cache in the course of serving a LIST request', ['resource', 'index']),
  cacheListReturned:  counter('apiserver_cache_list_returned_objects_total', 'Number of objects returned for a LIST request from watch cache', ['resource']),
  cacheListDelegated: counter('apiserver_watch_cache_list_delegated_total', 'LIST requests the watch cache sent to storage, by reason.', ['resource', 'reason']),
  cacheSnapshots:     gauge('apiserver_watch_cache_snapshots', 'Store snapshots the watch cache holds for LISTs at past revisions (KEP-4988).', ['resource']),
  cacheSnapshotBytes: gauge('apiserver_watch_cache_snapshot_memory_bytes', 'Estimated memory the watch cache snapshots hold beyond the store.', ['resource']),
};

type MetricOf<S> =
  S extends MetricSpec<'counter', infer L>
    ? Counter<L>
    : S extends MetricSpec<'gauge', infer L>
      ? Gauge<L>
      : S extends MetricSpec<'histogram', infer L>
        ? Histogram<L>
        : never;
type Metrics = { readonly [F in keyof typeof METRICS]: MetricOf<(typeof METRICS)[F]> };

/** Every metric of METRICS, made and registered, as the fields of an object. */
const RegisteredMetrics = class {
  constructor(registry: Registry) {
    const registers = [registry];
    for (const [field, { kind, ...spec }] of Object.entries(METRICS) as [
      string,
      MetricSpec<Kind, string>,
    ][]) {
      const metric =
        kind === 'counter'
          ? new Counter({ ...spec, registers })
          : kind === 'gauge'
            ? new Gauge({ ...spec, registers })
            : new Histogram({ ...spec, registers });
      Object.defineProperty(this, field, { value: metric, enumerable: true });
    }
  }
} as new (registry: Registry) => Metrics;

/** The apiserver's metrics, registered in its own registry (what `/metrics` serves). */
export class ApiServerMetrics extends RegisteredMetrics {
  readonly registry: Registry;

  constructor() {
    const registry = new Registry();
    super(registry);
    this.registry = registry;
  }

  /** The hooks the watch caches report through. */
  get cacher(): CacherMetrics {
    return {
      watchers: (resource, count) => this.cacheWatchers.set({ resource }, count),
      eventsDispatched: (resource, n) => this.cacheDispatched.inc({ resource }, n),
      window: (resource, size, _capacity, ageMs) => {
        this.cacheWindow.set({ resource }, size);
        this.cacheWindowAge.set({ resource }, ageMs / 1000);
      },
      watcherEnded: (resource, reason: WatcherEndReason) =>
        this.watcherEnds.inc({ resource, reason }),
      list: (resource, source, ms) => this.listLatency.observe({ resource, source }, ms / 1000),
      cacheList: (resource, index, fetched, returned) => {
        this.cacheLists.inc({ resource, index });
        this.cacheListFetched.inc({ resource, index }, fetched);
        this.cacheListReturned.inc({ resource }, returned);
      },
      listDelegated: (resource, reason) => this.cacheListDelegated.inc({ resource, reason }),
      snapshots: (resource, count, bytes) => {
        this.cacheSnapshots.set({ resource }, count);
        this.cacheSnapshotBytes.set({ resource }, bytes);
      },
    };
  }
}
