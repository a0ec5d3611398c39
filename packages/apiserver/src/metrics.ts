import type { CacherMetrics, WatcherEndReason } from '@listwatch/storage';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** The apiserver's Prometheus metrics, named after kube-apiserver's where one exists. */
export class ApiServerMetrics {
  readonly registry = new Registry();
  readonly requests = new Counter({
    name: 'apiserver_request_total',
    help: 'Requests by verb, resource and HTTP code.',
    labelNames: ['verb', 'resource', 'code'] as const,
    registers: [this.registry],
  });
  readonly requestDuration = new Histogram({
    name: 'apiserver_request_duration_seconds',
    help: 'Request latency by verb and resource (watches: time to open).',
    labelNames: ['verb', 'resource'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  readonly inflight = new Gauge({
    name: 'apiserver_current_inflight_requests',
    help: 'Requests being served, by kind (readOnly, mutating).',
    labelNames: ['request_kind'] as const,
    registers: [this.registry],
  });
  readonly watches = new Gauge({
    name: 'apiserver_longrunning_requests',
    help: 'Open watches by resource and transport.',
    labelNames: ['resource', 'transport'] as const,
    registers: [this.registry],
  });
  readonly watchEventsSent = new Counter({
    name: 'apiserver_watch_events_total',
    help: 'Watch events written to clients, by resource.',
    labelNames: ['resource'] as const,
    registers: [this.registry],
  });
  readonly cacheWatchers = new Gauge({
    name: 'apiserver_watch_cache_watchers',
    help: 'Watchers registered in the watch cache, by resource.',
    labelNames: ['resource'] as const,
    registers: [this.registry],
  });
  readonly cacheDispatched = new Counter({
    name: 'apiserver_watch_cache_events_dispatched_total',
    help: 'Event deliveries offered to watchers by the watch cache.',
    labelNames: ['resource'] as const,
    registers: [this.registry],
  });
  readonly cacheWindow = new Gauge({
    name: 'watch_cache_capacity',
    help: 'Events held in the watch cache window, by resource.',
    labelNames: ['resource'] as const,
    registers: [this.registry],
  });
  readonly cacheWindowAge = new Gauge({
    name: 'apiserver_watch_cache_window_age_seconds',
    help: 'Age of the oldest event in the watch cache window.',
    labelNames: ['resource'] as const,
    registers: [this.registry],
  });
  readonly watcherEnds = new Counter({
    name: 'apiserver_terminated_watchers_total',
    help: 'Watchers ended by the cache, by reason (slow: terminated for not keeping up).',
    labelNames: ['resource', 'reason'] as const,
    registers: [this.registry],
  });
  readonly listLatency = new Histogram({
    name: 'apiserver_watch_cache_list_duration_seconds',
    help: 'LIST latency by source (cache or storage).',
    labelNames: ['resource', 'source'] as const,
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 3, 10],
    registers: [this.registry],
  });
  readonly cacheLists = new Counter({
    name: 'apiserver_cache_list_total',
    help: 'Number of LIST requests served from watch cache',
    labelNames: ['resource', 'index'] as const,
    registers: [this.registry],
  });
  readonly cacheListFetched = new Counter({
    name: 'apiserver_cache_list_fetched_objects_total',
    help: 'Number of objects read from watch cache in the course of serving a LIST request',
    labelNames: ['resource', 'index'] as const,
    registers: [this.registry],
  });
  readonly cacheListReturned = new Counter({
    name: 'apiserver_cache_list_returned_objects_total',
    help: 'Number of objects returned for a LIST request from watch cache',
    labelNames: ['resource'] as const,
    registers: [this.registry],
  });
  readonly cacheListDelegated = new Counter({
    name: 'apiserver_watch_cache_list_delegated_total',
    help: 'LIST requests the watch cache sent to storage, by reason.',
    labelNames: ['resource', 'reason'] as const,
    registers: [this.registry],
  });
  readonly cacheSnapshots = new Gauge({
    name: 'apiserver_watch_cache_snapshots',
    help: 'Store snapshots the watch cache holds for LISTs at past revisions (KEP-4988).',
    labelNames: ['resource'] as const,
    registers: [this.registry],
  });
  readonly cacheSnapshotBytes = new Gauge({
    name: 'apiserver_watch_cache_snapshot_memory_bytes',
    help: 'Estimated memory the watch cache snapshots hold beyond the store.',
    labelNames: ['resource'] as const,
    registers: [this.registry],
  });

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
