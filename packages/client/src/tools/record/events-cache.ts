import type { Event as CoreV1Event } from 'kubernetes-types/core/v1.js';
import type { Clock } from '../../util/clock.js';
import { metaV1Time } from '@listwatch/api';

// client-go tools/record/events_cache.go: the constants are upstream's.
const MAX_LRU_CACHE_ENTRIES = 4096;
/** A similar event (same source, object, type, reason; another message) 10 times in 10 min… */
const DEFAULT_AGGREGATE_MAX_EVENTS = 10;
const DEFAULT_AGGREGATE_INTERVAL_MS = 600_000;
/** …and 25 events per source and object, refilled at 1 every 5 minutes. */
const DEFAULT_SPAM_BURST = 25;
const DEFAULT_SPAM_QPS = 1 / 300;

export const AGGREGATE_MESSAGE_PREFIX = '(combined from similar events): ';

export interface EventCorrelatorOptions {
  clock: Clock;
  /** Entries of each cache (default 4096), least recently used dropped first. */
  lruCacheSize?: number | undefined;
  spamBurst?: number | undefined;
  /** Tokens per second (default 1/300). */
  spamQPS?: number | undefined;
  aggregateMaxEvents?: number | undefined;
  aggregateIntervalMs?: number | undefined;
}

/** What correlate() decided for an event. */
export type CorrelateResult =
  | { skip: true }
  | {
      skip: false;
      /** The event to write: a new one (count 1) or the earlier one counted up. */
      event: CoreV1Event;
      /** The event exists on the server already (count > 1): patch it, don't create it. */
      update: boolean;
    };

/** groupcache/lru as a Map: insertion order is recency order. */
class Lru<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly size: number) {}
  get(key: string): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }
  set(key: string, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.size) this.map.delete(this.map.keys().next().value!);
  }
}

function sourceObjectKey(e: CoreV1Event): string[] {
  const o = e.involvedObject;
  return [
    e.source?.component ?? '',
    e.source?.host ?? '',
    o.kind ?? '',
    o.namespace ?? '',
    o.name ?? '',
    o.uid ?? '',
    o.apiVersion ?? '',
  ];
}

/** getEventKey: source, object (with fieldPath), type, reason and message. */
export function eventKey(e: CoreV1Event): string {
  const o = e.involvedObject;
  return [
    e.source?.component ?? '',
    e.source?.host ?? '',
    o.kind ?? '',
    o.namespace ?? '',
    o.name ?? '',
    o.fieldPath ?? '',
    o.uid ?? '',
    o.apiVersion ?? '',
    e.type ?? '',
    e.reason ?? '',
    e.message ?? '',
  ].join('\u0000');
}

/** client-go flowcontrol's token bucket: `burst` tokens, refilled at `qps`. */
class TokenBucket {
  private tokens: number;
  private last: number;
  constructor(
    private readonly qps: number,
    private readonly burst: number,
    private readonly clock: Clock,
  ) {
    this.tokens = burst;
    this.last = clock.now();
  }
  tryAccept(): boolean {
    const now = this.clock.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
    if (this.tokens < 1) return false;
    this.tokens--;
    return true;
  }
}

/**
 * client-go's EventCorrelator: keeps a controller from flooding the apiserver with events.
 *
 * - Aggregation (EventAggregator): once 10 events that differ only by message are seen from one
 *   source about one object within 10 minutes, later ones become a single event whose message
 *   is "(combined from similar events): <latest message>", counted up as they come.
 * - De-duplication (eventLogger): an event seen before (same source, object, type, reason,
 *   message) is the earlier event with its count up by one and a new lastTimestamp: a patch.
 * - Spam filter (EventSourceObjectSpamFilter): a token bucket per source and object, burst 25,
 *   refilled one token every 5 minutes; an event without a token is dropped.
 */
export class EventCorrelator {
  private readonly clock: Clock;
  private readonly spam: Lru<TokenBucket>;
  private readonly aggregates: Lru<{ localKeys: Set<string>; last: number }>;
  private readonly observed: Lru<{ count: number; firstTimestamp: string; name: string }>;
  private readonly burst: number;
  private readonly qps: number;
  private readonly maxEvents: number;
  private readonly intervalMs: number;

  constructor(options: EventCorrelatorOptions) {
    this.clock = options.clock;
    const size = options.lruCacheSize ?? MAX_LRU_CACHE_ENTRIES;
    this.spam = new Lru(size);
    this.aggregates = new Lru(size);
    this.observed = new Lru(size);
    this.burst = options.spamBurst ?? DEFAULT_SPAM_BURST;
    this.qps = options.spamQPS ?? DEFAULT_SPAM_QPS;
    this.maxEvents = options.aggregateMaxEvents ?? DEFAULT_AGGREGATE_MAX_EVENTS;
    this.intervalMs = options.aggregateIntervalMs ?? DEFAULT_AGGREGATE_INTERVAL_MS;
  }

  /** EventCorrelate: aggregate, then count, then filter (upstream's order). */
  correlate(newEvent: CoreV1Event): CorrelateResult {
    const { event: aggregated, key } = this.aggregate(newEvent);
    const { event, update } = this.observe(aggregated, key);
    if (this.filter(event)) return { skip: true };
    return { skip: false, event, update };
  }

  private aggregate(e: CoreV1Event): { event: CoreV1Event; key: string } {
    const now = this.clock.now();
    const aggregateKey = [
      ...sourceObjectKey(e),
      e.type ?? '',
      e.reason ?? '',
      e.reportingComponent ?? '',
      e.reportingInstance ?? '',
    ].join('\u0000');
    let record = this.aggregates.get(aggregateKey);
    if (!record || now - record.last > this.intervalMs)
      record = { localKeys: new Set(), last: now };
    record.localKeys.add(e.message ?? '');
    record.last = now;
    this.aggregates.set(aggregateKey, record);
    if (record.localKeys.size < this.maxEvents) return { event: e, key: eventKey(e) };
    // Do not grow the set any larger than max (PopAny).
    const first = record.localKeys.values().next().value;
    if (first !== undefined) record.localKeys.delete(first);
    const time = metaV1Time(now);
    return {
      event: {
        ...e,
        count: 1,
        firstTimestamp: time,
        lastTimestamp: time,
        message: AGGREGATE_MESSAGE_PREFIX + (e.message ?? ''),
      },
      key: aggregateKey,
    };
  }

  private observe(e: CoreV1Event, key: string): { event: CoreV1Event; update: boolean } {
    const last = this.observed.get(key);
    const event: CoreV1Event = last
      ? {
          ...e,
          metadata: { ...e.metadata, name: last.name },
          firstTimestamp: last.firstTimestamp,
          count: last.count + 1,
        }
      : e;
    this.observed.set(key, {
      count: event.count ?? 1,
      firstTimestamp: event.firstTimestamp ?? '',
      name: event.metadata.name ?? '',
    });
    return { event, update: last !== undefined };
  }

  private filter(e: CoreV1Event): boolean {
    const key = sourceObjectKey(e).join('\u0000');
    let bucket = this.spam.get(key);
    if (!bucket) bucket = new TokenBucket(this.qps, this.burst, this.clock);
    this.spam.set(key, bucket);
    return !bucket.tryAccept();
  }
}
