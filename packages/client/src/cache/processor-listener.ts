import { errorField, silentLogger, type KubeObject, type Logger } from '@listwatch/api';
import type { KubernetesObject } from '../runtime/kubernetes-object.js';
import { Deque } from '../util/deque.js';
import { DeletedFinalStateUnknown } from './deleted-final-state-unknown.js';
import { deletionHandlingMetaNamespaceKeyFunc } from './key-func.js';

/**
 * A handler of an informer's notifications. Like ResourceEventHandler, but a method may return
 * a promise: the next notification for this handler waits for it (and only for it).
 */
export interface EventHandler<T extends KubernetesObject = KubeObject> {
  onAdd?(obj: T, isInInitialList: boolean): void | Promise<void>;
  onUpdate?(oldObj: T, newObj: T): void | Promise<void>;
  onDelete?(obj: T | DeletedFinalStateUnknown<T>): void | Promise<void>;
}

export type Notification<T extends KubernetesObject = KubeObject> =
  | { type: 'add'; obj: T; isInInitialList: boolean }
  | { type: 'update'; oldObj: T; newObj: T }
  | { type: 'delete'; obj: T | DeletedFinalStateUnknown<T> };

/** What one handler's buffer looks like now; `lagging` is the one to alert on. */
export interface HandlerMetrics {
  name: string;
  /** Notifications waiting in the buffer. */
  buffered: number;
  bufferSize: number;
  /** Keys waiting to be replayed from the cache after an overflow (or a late registration). */
  pendingKeys: number;
  /** The buffer overflowed and the handler is being caught up from the cache. */
  lagging: boolean;
  /** How many times the buffer overflowed. */
  overflows: number;
  /** Notifications folded into per-key replays instead of being delivered one by one. */
  coalesced: number;
  delivered: number;
  handlerErrors: number;
  hasSynced: boolean;
}

export interface ProcessorListenerOptions<T extends KubernetesObject> {
  name: string;
  /** Notifications buffered before the handler counts as lagging (default 10 000). */
  bufferSize?: number;
  /** This handler's resync period (0: none). */
  resyncPeriodMs?: number;
  /** The informer's cache: the truth a lagging handler is replayed from. */
  cache: { getByKey(key: string): T | undefined; listKeys(): string[] };
  /** Whether the informer has synced (the handler cannot have before it). */
  upstreamSynced: () => boolean;
  logger?: Logger;
}

/** What the handler last saw of a key, before the notifications folded since. */
type Seen<T> = { present: false; initial: boolean } | { present: true; obj: T | undefined };

export const DEFAULT_HANDLER_BUFFER_SIZE = 10_000;

function keyOf<T extends KubernetesObject>(n: Notification<T>): string {
  return deletionHandlingMetaNamespaceKeyFunc(n.type === 'update' ? n.newObj : n.obj);
}

/** The state a notification's handler call assumes the handler already knows. */
function seenBefore<T extends KubernetesObject>(n: Notification<T>): Seen<T> {
  switch (n.type) {
    case 'add':
      return { present: false, initial: n.isInInitialList };
    case 'update':
      return { present: true, obj: n.oldObj };
    case 'delete':
      return { present: true, obj: n.obj instanceof DeletedFinalStateUnknown ? n.obj.obj : n.obj };
  }
}

/**
 * One handler's delivery lane (client-go processorListener), so a slow, stuck or throwing
 * handler never delays or breaks the others.
 *
 * client-go's buffer is unbounded and a stuck handler grows it until the process dies. Here it
 * is bounded, and an overflow never loses correctness:
 * 1. the buffered notifications are dropped, each key remembering only what the handler last
 *    saw of it (the "old" side of its first dropped notification);
 * 2. while such keys are pending, further notifications only update that per-key record —
 *    memory is bounded by the number of keys, not of events;
 * 3. each pending key is replayed by diffing what the handler saw against the informer's cache
 *    at delivery time: add, update (old → current), or delete with a DeletedFinalStateUnknown
 *    tombstone; an object recreated under the same name (new UID) is a delete then an add.
 * The handler thus sees every key converge to the cache's state, in order per key, skipping
 * intermediate states — DeltaFIFO-like coalescing, only while it lags. `lagging`, `overflows`
 * and `coalesced` in the metrics make it visible.
 */
export class ProcessorListener<T extends KubernetesObject = KubeObject> {
  readonly name: string;
  readonly bufferSize: number;
  resyncPeriodMs: number;
  nextResync = 0;
  private readonly buffer = new Deque<Notification<T>>();
  /** Keys to replay from the cache, with what the handler last saw; insertion-ordered. */
  private readonly pending = new Map<string, Seen<T>>();
  private readonly cache: ProcessorListenerOptions<T>['cache'];
  private readonly upstreamSynced: () => boolean;
  private readonly logger: Logger;
  /** Initial-list adds not yet delivered, buffered or pending. */
  private initialBuffered = 0;
  private initialPending = 0;
  private initialInFlight = false;
  private wake: (() => void) | undefined;
  private stopped = false;
  private paused = false;
  private loop: Promise<void> | undefined;
  private overflows = 0;
  private coalesced = 0;
  private delivered = 0;
  private handlerErrors = 0;

  constructor(
    readonly handler: EventHandler<T>,
    options: ProcessorListenerOptions<T>,
  ) {
    this.name = options.name;
    this.bufferSize = Math.max(1, options.bufferSize ?? DEFAULT_HANDLER_BUFFER_SIZE);
    this.resyncPeriodMs = options.resyncPeriodMs ?? 0;
    this.cache = options.cache;
    this.upstreamSynced = options.upstreamSynced;
    this.logger = options.logger ?? silentLogger;
  }

  /** Queues a notification; never blocks and never throws. */
  add(n: Notification<T>): void {
    if (this.stopped) return;
    if (this.pending.size > 0) {
      this.fold(n);
    } else if (this.buffer.length < this.bufferSize) {
      this.buffer.push(n);
      if (n.type === 'add' && n.isInInitialList) this.initialBuffered++;
    } else {
      this.overflow(n);
    }
    this.signal();
  }

  /** A handler registered late: the whole cache, replayed as initial-list adds. */
  replayCache(): void {
    for (const key of this.cache.listKeys()) {
      if (this.pending.has(key)) continue;
      this.pending.set(key, { present: false, initial: true });
      this.initialPending++;
    }
    this.signal();
  }

  /** Synced once the informer is and every initial-list notification was handled. */
  hasSynced(): boolean {
    return (
      this.upstreamSynced() &&
      this.initialBuffered === 0 &&
      this.initialPending === 0 &&
      !this.initialInFlight
    );
  }

  shouldResync(now: number): boolean {
    return this.resyncPeriodMs > 0 && now >= this.nextResync;
  }

  determineNextResync(now: number): void {
    this.nextResync = now + this.resyncPeriodMs;
  }

  metrics(): HandlerMetrics {
    return {
      name: this.name,
      buffered: this.buffer.length,
      bufferSize: this.bufferSize,
      pendingKeys: this.pending.size,
      lagging: this.pending.size > 0,
      overflows: this.overflows,
      coalesced: this.coalesced,
      delivered: this.delivered,
      handlerErrors: this.handlerErrors,
      hasSynced: this.hasSynced(),
    };
  }

  /** Starts the delivery loop, or resumes it after pause(). */
  run(): Promise<void> {
    this.paused = false;
    this.loop ??= this.deliverLoop();
    return this.loop;
  }

  /**
   * Stops delivering once the call in progress returns, keeping what is buffered and pending:
   * run() delivers it (the informer's cache already holds those changes, so a restarted informer
   * would not send them again). run() must wait until it has resolved.
   */
  async pause(): Promise<void> {
    const loop = this.loop;
    if (!loop) return;
    this.paused = true;
    this.signal();
    await loop;
    if (this.loop === loop) this.loop = undefined;
  }

  /**
   * Stops delivering: the notification being handled finishes, the rest are dropped (as in
   * client-go, where closing the listener abandons its pending notifications).
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.buffer.clear();
    this.pending.clear();
    this.signal();
    await this.loop;
  }

  private overflow(n: Notification<T>): void {
    this.overflows++;
    this.logger.warn(
      'event handler is lagging; its buffer overflowed and it will be caught up from the cache',
      {
        handler: this.name,
        bufferSize: this.bufferSize,
      },
    );
    for (const queued of this.buffer) this.fold(queued);
    this.buffer.clear();
    this.initialBuffered = 0;
    this.fold(n);
  }

  /** Records a notification the handler will not see one by one. */
  private fold(n: Notification<T>): void {
    this.coalesced++;
    const key = keyOf(n);
    const seen = this.pending.get(key);
    if (seen === undefined) {
      const before = seenBefore(n);
      this.pending.set(key, before);
      if (!before.present && before.initial) this.initialPending++;
      return;
    }
    // Never seen and now gone: nothing to tell the handler; forget the key.
    if (!seen.present && n.type === 'delete') {
      if (seen.initial) this.initialPending--;
      this.pending.delete(key);
    }
  }

  private signal(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private async deliverLoop(): Promise<void> {
    for (;;) {
      if (this.stopped || this.paused) return;
      const next = this.buffer.shift();
      if (next !== undefined) {
        const initial = next.type === 'add' && next.isInInitialList;
        if (initial) {
          this.initialBuffered--;
          this.initialInFlight = true;
        }
        await this.deliver(next);
        this.initialInFlight = false;
        continue;
      }
      const first = this.pending.entries().next();
      if (!first.done) {
        const [key, seen] = first.value;
        this.pending.delete(key);
        const initial = !seen.present && seen.initial;
        for (const n of this.replay(key, seen)) {
          if (this.stopped) return;
          await this.deliver(n);
        }
        if (initial) this.initialPending--;
        if (this.pending.size === 0 && this.overflows > 0) {
          this.logger.info('event handler caught up', { handler: this.name });
        }
        continue;
      }
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  /** What the handler must be told to go from `seen` to the cache's current state of `key`. */
  private replay(key: string, seen: Seen<T>): Notification<T>[] {
    const current = this.cache.getByKey(key);
    if (!seen.present) {
      return current === undefined
        ? []
        : [{ type: 'add', obj: current, isInInitialList: seen.initial }];
    }
    const old = seen.obj;
    if (current === undefined) {
      return [{ type: 'delete', obj: new DeletedFinalStateUnknown(key, old) }];
    }
    if (old === undefined) return [{ type: 'add', obj: current, isInInitialList: false }];
    if (old === current) return [];
    const oldUid = old.metadata?.uid;
    const uid = current.metadata?.uid;
    if (oldUid !== undefined && uid !== undefined && oldUid !== uid) {
      return [
        { type: 'delete', obj: new DeletedFinalStateUnknown(key, old) },
        { type: 'add', obj: current, isInInitialList: false },
      ];
    }
    return [{ type: 'update', oldObj: old, newObj: current }];
  }

  private async deliver(n: Notification<T>): Promise<void> {
    try {
      let result: void | Promise<void>;
      switch (n.type) {
        case 'add':
          result = this.handler.onAdd?.(n.obj, n.isInInitialList);
          break;
        case 'update':
          result = this.handler.onUpdate?.(n.oldObj, n.newObj);
          break;
        case 'delete':
          result = this.handler.onDelete?.(n.obj);
          break;
      }
      if (result !== undefined) await result;
      this.delivered++;
    } catch (err) {
      this.handlerErrors++;
      let key = '?';
      try {
        key = keyOf(n);
      } catch {
        // keep '?'
      }
      this.logger.error('event handler failed', {
        handler: this.name,
        event: n.type,
        key,
        error: errorField(err),
      });
    }
  }
}
