import { ApiError, errorField, metaV1MicroTime, metaV1Time, type Logger } from '@listwatch/api';
import type { Event as CoreV1Event, ObjectReference } from 'kubernetes-types/core/v1.js';
import type { RestClient } from '../../rest/client.js';
import { ConnectionError } from '../../rest/errors.js';
import type { KubernetesObject } from '../../runtime/kubernetes-object.js';
import { coreV1, eventsV1 } from '../../typed/resources.js';
import { defaultClientLogger } from '../../util/default-logger.js';
import { realClock, type Clock } from '../../util/clock.js';
import { sleep } from '../../util/sleep.js';
import { EventCorrelator, type EventCorrelatorOptions } from '../record/events-cache.js';
import { format, hostname } from '../../util/platform.js';

export type EventType = 'Normal' | 'Warning';

export interface EventBroadcasterOptions {
  client: RestClient;
  /**
   * `events.k8s.io/v1` (default; kube's controllers write these since 1.19) or `v1` for servers
   * without the events.k8s.io group. Both are one resource on the server: `kubectl describe`
   * and `kubectl get events` show either.
   */
  apiVersion?: 'events.k8s.io/v1' | 'v1' | undefined;
  /** Writes waiting at most (client-go maxQueuedEvents: 1000); beyond, events are dropped. */
  maxQueuedEvents?: number | undefined;
  /** Attempts per write when the server cannot be reached (client-go maxTriesPerEvent: 12). */
  maxTriesPerEvent?: number | undefined;
  /** Between attempts (client-go defaultSleepDuration: 10 s; the first is randomized). */
  retryDelayMs?: number | undefined;
  /** The EventCorrelator's limits (aggregation, spam filter); upstream's by default. */
  correlator?: Omit<EventCorrelatorOptions, 'clock'> | undefined;
  logger?: Logger | undefined;
  clock?: Clock | undefined;
  random?: (() => number) | undefined;
}

export interface EventRecorderOptions {
  /** Who reports, e.g. `deployment-controller` or `example.com/foo-controller`. */
  reportingController: string;
  /** Which instance of it (default `<reportingController>-<hostname>`). */
  reportingInstance?: string | undefined;
}

/** What the broadcaster did with the events it was given. */
export interface EventBroadcasterStats {
  /** Created or patched on the server. */
  written: number;
  /** Dropped by the spam filter (per source and object token bucket). */
  filtered: number;
  /** Dropped because the queue was full (a slow or unreachable server). */
  dropped: number;
  /** Given up after every attempt failed, or rejected by the server. */
  failed: number;
}

interface PendingWrite {
  key: string;
  event: CoreV1Event;
  /** The event exists on the server: patch its count (series) instead of creating it. */
  update: boolean;
  action: string;
  related: ObjectReference | undefined;
}

/**
 * Records Events for controllers without ever making them wait (client-go tools/events
 * EventBroadcaster, and tools/record's EventCorrelator in front of it): `recorder.event()`
 * correlates the event in memory and queues one write; a single writer sends the queue to the
 * apiserver in order. The queue is bounded (1000): when the server is slow or down, new events
 * are dropped, counted in `stats()` and logged, and the caller goes on at once.
 *
 * A repeated event (same object, type, reason and message) is not created again: the first one
 * becomes a series — events.k8s.io/v1 `series: { count, lastObservedTime }`, or the core/v1
 * `count` and `lastTimestamp` — updated with a PATCH. Repeats that arrive while that event's
 * write is still queued fold into it, so a burst costs one request.
 */
export class EventBroadcaster {
  private readonly options: EventBroadcasterOptions;
  private readonly correlator: EventCorrelator;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly maxQueued: number;
  private readonly queue: PendingWrite[] = [];
  private readonly pending = new Map<string, PendingWrite>();
  private readonly counts: EventBroadcasterStats = {
    written: 0,
    filtered: 0,
    dropped: 0,
    failed: 0,
  };
  private readonly stop = new AbortController();
  private wake: (() => void) | undefined;
  private writer: Promise<void> | undefined;
  private seq = 0;

  constructor(options: EventBroadcasterOptions) {
    this.options = options;
    this.clock = options.clock ?? realClock;
    this.logger = options.logger ?? defaultClientLogger;
    this.maxQueued = options.maxQueuedEvents ?? 1000;
    this.correlator = new EventCorrelator({ ...options.correlator, clock: this.clock });
  }

  /** A recorder for one controller (client-go NewRecorder). */
  newRecorder(options: EventRecorderOptions): EventRecorder {
    return new EventRecorder(this, {
      reportingController: options.reportingController,
      reportingInstance:
        options.reportingInstance ?? `${options.reportingController}-${hostname()}`,
    });
  }

  stats(): EventBroadcasterStats {
    return { ...this.counts };
  }

  /** Writes waiting to be sent. */
  queued(): number {
    return this.queue.length;
  }

  /**
   * Stops: events recorded from now on are dropped, the write in flight is abandoned and the
   * queue discarded (client-go Shutdown). Resolves once the writer has stopped.
   */
  async shutdown(): Promise<void> {
    this.stop.abort();
    this.wake?.();
    await this.writer;
    this.queue.length = 0;
    this.pending.clear();
  }

  /** @internal The recorder's entry: never blocks, never throws. */
  record(event: CoreV1Event, action: string, related: ObjectReference | undefined): void {
    if (this.stop.signal.aborted) return;
    const result = this.correlator.correlate(event);
    if (result.skip) {
      this.counts.filtered++;
      return;
    }
    const key = `${result.event.metadata.namespace ?? ''}/${result.event.metadata.name ?? ''}`;
    const queued = this.pending.get(key);
    if (queued) {
      // Not sent yet: the newest count, message and times ride on the write already queued.
      queued.event = { ...result.event, metadata: queued.event.metadata };
      return;
    }
    if (this.queue.length >= this.maxQueued) {
      this.counts.dropped++;
      if (this.counts.dropped === 1 || this.counts.dropped % 1000 === 0)
        this.logger.warn('event queue full, dropping events', {
          dropped: this.counts.dropped,
          maxQueuedEvents: this.maxQueued,
          reason: event.reason,
          object: `${event.involvedObject.kind ?? ''}/${event.involvedObject.name ?? ''}`,
        });
      return;
    }
    const write: PendingWrite = {
      key,
      event: result.event,
      update: result.update,
      action,
      related,
    };
    this.queue.push(write);
    this.pending.set(key, write);
    this.writer ??= this.writeLoop();
    this.wake?.();
  }

  /** @internal A unique event name: `<object>.<hex time>` as client-go's. */
  eventName(objectName: string): string {
    const nanos =
      BigInt(Math.floor(this.clock.now())) * 1_000_000n + BigInt(this.seq++ % 1_000_000);
    return `${objectName}.${nanos.toString(16)}`;
  }

  /** @internal */
  now(): number {
    return this.clock.now();
  }

  private async writeLoop(): Promise<void> {
    const signal = this.stop.signal;
    while (!signal.aborted) {
      const write = this.queue.shift();
      if (!write) {
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = undefined;
        continue;
      }
      this.pending.delete(write.key);
      await this.writeWithRetries(write, signal);
    }
  }

  /** client-go recordToSink: retry what never reached the server, not what it refused. */
  private async writeWithRetries(write: PendingWrite, signal: AbortSignal): Promise<void> {
    const tries = this.options.maxTriesPerEvent ?? 12;
    const delay = this.options.retryDelayMs ?? 10_000;
    const random = this.options.random ?? Math.random;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.send(write, signal);
        this.counts.written++;
        return;
      } catch (err) {
        if (signal.aborted) return;
        const answered = !(err instanceof ConnectionError);
        if (answered || attempt >= tries) {
          this.counts.failed++;
          this.logger.warn(
            answered ? 'server rejected event' : 'unable to write event, giving up',
            {
              reason: write.event.reason,
              object: `${write.event.involvedObject.kind ?? ''}/${write.event.involvedObject.name ?? ''}`,
              attempts: attempt,
              error: errorField(err),
            },
          );
          return;
        }
        // Randomize the first sleep so that clients restarted together do not write in step.
        await sleep(this.clock, attempt === 1 ? random() * delay : delay, signal);
      }
    }
  }

  private async send(write: PendingWrite, signal: AbortSignal): Promise<void> {
    const e = write.event;
    const ns = e.metadata.namespace ?? 'default';
    const name = e.metadata.name ?? '';
    const v1 = (this.options.apiVersion ?? 'events.k8s.io/v1') === 'v1';
    const opts = { signal };
    if (v1) {
      const events = this.options.client.resource(coreV1.events).namespace(ns);
      if (write.update) {
        try {
          await events.patch(
            name,
            { count: e.count, lastTimestamp: e.lastTimestamp, message: e.message },
            'merge',
            opts,
          );
          return;
        } catch (err) {
          if (!(err instanceof ApiError && err.code === 404)) throw err;
          // Gone (expired): create it again, as client-go does.
        }
      }
      await events.create({ ...e, metadata: { name, namespace: ns } }, opts);
      return;
    }
    const events = this.options.client.resource(eventsV1.events).namespace(ns);
    const lastObservedTime = metaV1MicroTime(this.clock.now());
    if (write.update) {
      try {
        await events.patch(
          name,
          { series: { count: e.count ?? 2, lastObservedTime } },
          'merge',
          opts,
        );
        return;
      } catch (err) {
        if (!(err instanceof ApiError && err.code === 404)) throw err;
      }
    }
    await events.create(
      {
        apiVersion: 'events.k8s.io/v1',
        kind: 'Event',
        metadata: { name, namespace: ns },
        eventTime: e.eventTime ?? metaV1MicroTime(this.clock.now()),
        ...(write.update ? { series: { count: e.count ?? 2, lastObservedTime } } : {}),
        reportingController: e.reportingComponent ?? '',
        reportingInstance: e.reportingInstance ?? '',
        action: write.action,
        reason: e.reason ?? '',
        regarding: e.involvedObject,
        ...(write.related ? { related: write.related } : {}),
        note: e.message ?? '',
        type: e.type ?? 'Normal',
      },
      opts,
    );
  }
}

/** The reference an event names its object by (client-go reference.GetReference). */
export function objectReference(obj: KubernetesObject): ObjectReference {
  const m = obj.metadata ?? {};
  return {
    ...(obj.apiVersion ? { apiVersion: obj.apiVersion } : {}),
    ...(obj.kind ? { kind: obj.kind } : {}),
    ...(m.namespace ? { namespace: m.namespace } : {}),
    ...(m.name ? { name: m.name } : {}),
    ...(m.uid ? { uid: m.uid } : {}),
    ...(m.resourceVersion ? { resourceVersion: m.resourceVersion } : {}),
  };
}

/**
 * Records events about objects (client-go record.EventRecorder and events.EventRecorder):
 * `recorder.event(deployment, 'Normal', 'ScalingReplicaSet', 'Scaled up replica set web-7d4 to 3')`.
 * Returns at once; see EventBroadcaster.
 */
export class EventRecorder {
  constructor(
    private readonly broadcaster: EventBroadcaster,
    readonly reporting: { reportingController: string; reportingInstance: string },
  ) {}

  /** An event about `obj`: `type` Normal or Warning, `reason` UpperCamelCase, `message` for humans. */
  event(obj: KubernetesObject, type: EventType, reason: string, message: string): void {
    this.record(obj, type, reason, message, undefined, undefined);
  }

  /** `event` with a printf-style message (Go's Eventf; `%s`, `%d`, `%v` as node:util's format). */
  eventf(
    obj: KubernetesObject,
    type: EventType,
    reason: string,
    messageFmt: string,
    ...args: unknown[]
  ): void {
    this.record(obj, type, reason, format(messageFmt, ...args), undefined, undefined);
  }

  /**
   * events.k8s.io/v1's richer form (events.EventRecorder.Eventf): `action` is what was done
   * (default: the reason), `related` a second object involved (the ReplicaSet scaled, say).
   */
  eventWithAction(
    regarding: KubernetesObject,
    related: KubernetesObject | undefined,
    type: EventType,
    reason: string,
    action: string,
    note: string,
  ): void {
    this.record(regarding, type, reason, note, action, related);
  }

  private record(
    obj: KubernetesObject,
    type: EventType,
    reason: string,
    message: string,
    action: string | undefined,
    related: KubernetesObject | undefined,
  ): void {
    if (type !== 'Normal' && type !== 'Warning')
      throw new Error(`unsupported event type: ${String(type)}`);
    const b = this.broadcaster;
    const ref = objectReference(obj);
    const now = b.now();
    const event: CoreV1Event = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: {
        name: b.eventName(ref.name ?? 'unknown'),
        // A cluster-scoped object's events live in "default" (client-go makeEvent).
        namespace: ref.namespace || 'default',
      },
      involvedObject: ref,
      reason,
      message: message.length > 1024 ? `${message.slice(0, 1021)}...` : message,
      type,
      source: { component: this.reporting.reportingController },
      firstTimestamp: metaV1Time(now),
      lastTimestamp: metaV1Time(now),
      eventTime: metaV1MicroTime(now),
      count: 1,
      reportingComponent: this.reporting.reportingController,
      reportingInstance: this.reporting.reportingInstance,
      action: action ?? reason,
    };
    b.record(event, action ?? reason, related ? objectReference(related) : undefined);
  }
}
