import type { WatcherEndReason } from './cache-watcher.js';

/**
 * Why a LIST went to storage rather than the watch cache: the cache was (re)initializing, a
 * consistent read could not be proven fresh in time (or not at all: storage cannot answer
 * progress requests reliably), or an exact read or continuation named a
 * revision storage compacted, the cache has not seen yet, or the window no longer covers.
 */
export type ListDelegationReason =
  | 'not_ready'
  | 'consistent_read_timeout'
  | 'consistent_read_unsupported'
  | 'revision_compacted'
  | 'revision_ahead_of_cache'
  | 'revision_not_in_cache';

/** Hooks the apiserver wires to Prometheus; every one is optional. */
export interface CacherMetrics {
  watchers?(resource: string, count: number): void;
  eventsDispatched?(resource: string, deliveries: number): void;
  window?(resource: string, size: number, capacity: number, ageMs: number): void;
  watcherEnded?(resource: string, reason: WatcherEndReason): void;
  list?(resource: string, source: 'cache' | 'storage', ms: number): void;
  /**
   * A LIST served by the cache (apiserver_cache_list_total, ..._fetched_objects_total and
   * ..._returned_objects_total); `index` is the index that chose the candidates, '' for none.
   */
  cacheList?(resource: string, index: string, fetched: number, returned: number): void;
  /** A LIST sent to storage, and why. */
  listDelegated?(resource: string, reason: ListDelegationReason): void;
  /** Snapshots the window holds and the bytes they hold beyond the store (an estimate). */
  snapshots?(resource: string, count: number, bytes: number): void;
  reinitialized?(resource: string): void;
}
