import type { WatcherEndReason } from './cache-watcher.js';

/** Hooks the apiserver wires to Prometheus; every one is optional. */
export interface CacherMetrics {
  watchers?(resource: string, count: number): void;
  eventsDispatched?(resource: string, deliveries: number): void;
  window?(resource: string, size: number, capacity: number, ageMs: number): void;
  watcherEnded?(resource: string, reason: WatcherEndReason): void;
  list?(resource: string, source: 'cache' | 'storage', ms: number): void;
  reinitialized?(resource: string): void;
}
