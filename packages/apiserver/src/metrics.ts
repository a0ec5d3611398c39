import type { CacherMetrics, WatcherEndReason } from '@listwatch/storage';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** The apiserver's Prometheus metrics, named after kube-apiserver's where one exists. */
export class ApiServerMetrics {
  readonly registry = new Registry();
  readonly requests = this.counter(
    'apiserver_request_total',
    'Requests by verb, resource and HTTP code.',
    ['verb', 'resource', 'code'],
  );
  readonly requestDuration = this.histogram(
    'apiserver_request_duration_seconds',
    'Request latency by verb and resource (a watch: until it ends, as kube-apiserver).',
    ['verb', 'resource'],
    [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  );
  readonly inflight = this.gauge(
    'apiserver_current_inflight_requests',
    'Requests being served, by kind (readOnly, mutating).',
    ['request_kind'],
  );
  readonly watches = this.gauge(
    'apiserver_longrunning_requests',
    'Open watches by resource and transport.',
    ['resource', 'transport'],
  );
  readonly watchEventsSent = this.counter(
    'apiserver_watch_events_total',
    'Watch events written to clients, by resource.',
    ['resource'],
  );
  readonly cacheWatchers = this.gauge(
    'apiserver_watch_cache_watchers',
    'Watchers registered in the watch cache, by resource.',
    ['resource'],
  );
  readonly cacheDispatched = this.counter(
    'apiserver_watch_cache_events_dispatched_total',
    'Event deliveries offered to watchers by the watch cache.',
    ['resource'],
  );
  readonly cacheWindow = this.gauge(
    'watch_cache_capacity',
    'Events held in the watch cache window, by resource.',
    ['resource'],
  );
  readonly cacheWindowAge = this.gauge(
    'apiserver_watch_cache_window_age_seconds',
    'Age of the oldest event in the watch cache window.',
    ['resource'],
  );
  readonly watcherEnds = this.counter(
    'apiserver_terminated_watchers_total',
    'Watchers ended by the cache, by reason (slow: terminated for not keeping up).',
    ['resource', 'reason'],
  );
  readonly listLatency = this.histogram(
    'apiserver_watch_cache_list_duration_seconds',
    'LIST latency by source (cache or storage).',
    ['resource', 'source'],
    [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 3, 10],
  );
  readonly cacheLists = this.counter(
    'apiserver_cache_list_total',
    'Number of LIST requests served from watch cache',
    ['resource', 'index'],
  );
  readonly cacheListFetched = this.counter(
    'apiserver_cache_list_fetched_objects_total',
    'Number of objects read from watch cache in the course of serving a LIST request',
    ['resource', 'index'],
  );
  readonly cacheListReturned = this.counter(
    'apiserver_cache_list_returned_objects_total',
    'Number of objects returned for a LIST request from watch cache',
    ['resource'],
  );
  readonly cacheListDelegated = this.counter(
    'apiserver_watch_cache_list_delegated_total',
    'LIST requests the watch cache sent to storage, by reason.',
    ['resource', 'reason'],
  );
  readonly cacheSnapshots = this.gauge(
    'apiserver_watch_cache_snapshots',
    'Store snapshots the watch cache holds for LISTs at past revisions (KEP-4988).',
    ['resource'],
  );
  readonly cacheSnapshotBytes = this.gauge(
    'apiserver_watch_cache_snapshot_memory_bytes',
    'Estimated memory the watch cache snapshots hold beyond the store.',
    ['resource'],
  );

  private counter<L extends string>(name: string, help: string, labelNames: readonly L[]) {
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }

  private gauge<L extends string>(name: string, help: string, labelNames: readonly L[]) {
    return new Gauge({ name, help, labelNames, registers: [this.registry] });
  }

  private histogram<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    buckets: number[],
  ) {
    return new Histogram({ name, help, labelNames, buckets, registers: [this.registry] });
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
