import {
  errorField,
  groupResourceString,
  toApiError,
  type ApiError,
  type GroupResource,
  type KubeObject,
  type Logger,
} from '@listwatch/api';
import type { KubernetesObject } from '../runtime/kubernetes-object.js';
import type { BackoffOptions } from '../util/backoff.js';
import { realClock, type Clock } from '../util/clock.js';
import { defaultClientLogger } from '../util/default-logger.js';
import { sleep } from '../util/sleep.js';
import type { DeletedFinalStateUnknown } from './deleted-final-state-unknown.js';
import { DeltaFIFO } from './delta-fifo.js';
import {
  metaNamespaceIndexFunc,
  NamespaceIndex,
  newIndexer,
  type Indexer,
  type Indexers,
} from './indexer.js';
import { Lister } from './lister.js';
import type { ListerWatcher } from './lister-watcher.js';
import { processDeltas } from './process-deltas.js';
import {
  DEFAULT_HANDLER_BUFFER_SIZE,
  ProcessorListener,
  type EventHandler,
  type HandlerMetrics,
  type Notification,
} from './processor-listener.js';
import { isFIFOClosedError, type PopProcessFunc, type TransformFunc } from './queue.js';
import { RealFIFO } from './real-fifo.js';
import { Reflector } from './reflector.js';
import type { ReflectorObserver } from './reflector-observer.js';
import type { ResourceEventHandler } from './resource-event-handler.js';

/** client-go minimumResyncPeriod. */
export const MINIMUM_RESYNC_PERIOD_MS = 1000;

export interface SharedInformerOptions<T extends KubernetesObject = KubeObject> {
  listerWatcher: ListerWatcher<T>;
  /** Names the resource in logs and in the lister's NotFound errors. */
  resource: GroupResource;
  /** The default resync period of handlers that do not set one (0: none). */
  resyncPeriodMs?: number | undefined;
  /** Extra indexes; the namespace index is always there. */
  indexers?: Indexers<T> | undefined;
  /** Applied to every object before it is stored (e.g. drop managedFields to save memory). */
  transform?: TransformFunc<T> | undefined;
  /** `real` (default): every notification in order. `delta`: client-go's coalescing DeltaFIFO. */
  fifo?: 'real' | 'delta' | undefined;
  /** Per-handler buffer, see ProcessorListener (default 10 000). */
  handlerBufferSize?: number | undefined;
  useWatchList?: boolean | undefined;
  /** Reflector tuning: backoff, page size, watch timeout. */
  reflector?:
    { backoff?: BackoffOptions; pageSize?: number; minWatchTimeoutMs?: number } | undefined;
  /** Default: warnings and errors on stderr (`defaultClientLogger`); `silentLogger` for none. */
  logger?: Logger | undefined;
  clock?: Clock | undefined;
}

export interface HandlerOptions {
  /** 0: no resync for this handler; below 1 s is raised to 1 s. */
  resyncPeriodMs?: number | undefined;
  bufferSize?: number | undefined;
  /** Shown in metrics and logs. */
  name?: string | undefined;
}

/** What addEventHandler returns (client-go ResourceEventHandlerRegistration). */
export interface HandlerRegistration {
  readonly name: string;
  /** True once the informer synced and this handler was given the whole initial list. */
  hasSynced(): boolean;
  metrics(): HandlerMetrics;
}

export interface InformerMetrics {
  resource: string;
  hasSynced: boolean;
  lastSyncResourceVersion: string;
  items: number;
  /** Notifications (RealFIFO) or keys (DeltaFIFO) between the reflector and the handlers. */
  queued: number;
  handlers: HandlerMetrics[];
}

/**
 * One reflector and one cache per resource, shared by any number of handlers (client-go
 * SharedIndexInformer): the reflector feeds a FIFO, a single loop pops it into the indexer and
 * hands each notification to every handler's own bounded lane (ProcessorListener).
 */
export class SharedIndexInformer<T extends KubernetesObject = KubeObject> {
  readonly resource: GroupResource;
  private readonly indexer: Indexer<T>;
  private readonly options: SharedInformerOptions<T>;
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly listeners = new Set<ProcessorListener<T>>();
  /** Listeners whose resync is due: Sync notifications go only to them. */
  private syncingListeners = new Set<ProcessorListener<T>>();
  private transform: TransformFunc<T> | undefined;
  private resyncCheckPeriodMs: number;
  private readonly defaultResyncMs: number;
  private fifo: Fifo<T> | undefined;
  private reflector: Reflector<T> | undefined;
  private watchErrorHandler: ((err: ApiError) => void) | undefined;
  private watchStartHandler: ((rv: string) => void) | undefined;
  private reflectorObserver: ReflectorObserver<T> | undefined;
  /** Between start() and stop(). */
  private started = false;
  /** Between stop() and the next start(). */
  private stopped = false;
  /** start() was called once: the cache may hold objects. */
  private everStarted = false;
  /** A FIFO synced once: later relists are not the initial list. */
  private everSynced = false;
  /** What start() set going, until stop(). */
  private current: Run<T> | undefined;
  /** The stop in progress, which a restart waits for: one reflector and one pop loop at a time. */
  private stopping: Promise<void> | undefined;
  private handlerSeq = 0;
  /** Woken when the FIFO syncs (waitForCacheSync): a waiter need not poll for it. */
  private readonly syncWaiters = new Set<() => void>();

  constructor(options: SharedInformerOptions<T>) {
    this.options = options;
    this.resource = options.resource;
    this.logger = options.logger ?? defaultClientLogger;
    this.clock = options.clock ?? realClock;
    this.transform = options.transform;
    this.defaultResyncMs = options.resyncPeriodMs ?? 0;
    this.resyncCheckPeriodMs = this.defaultResyncMs;
    this.indexer = newIndexer<T>({ [NamespaceIndex]: metaNamespaceIndexFunc, ...options.indexers });
  }

  get name(): string {
    return groupResourceString(this.resource);
  }

  /**
   * Adds a handler. Before start it gets the initial list as it arrives; after start it first
   * gets the cache's current content as initial-list adds. Either way its hasSynced() tells when
   * it has seen the initial state.
   */
  addEventHandler(
    handler: EventHandler<T> | ResourceEventHandler<T>,
    options: HandlerOptions = {},
  ): HandlerRegistration {
    let resync = options.resyncPeriodMs ?? this.defaultResyncMs;
    if (resync > 0 && resync < MINIMUM_RESYNC_PERIOD_MS) {
      this.logger.warn('resync period too small, raised', {
        informer: this.name,
        requestedMs: resync,
        usedMs: MINIMUM_RESYNC_PERIOD_MS,
      });
      resync = MINIMUM_RESYNC_PERIOD_MS;
    }
    if (resync > 0) {
      if (this.started) {
        // The reflector's resync timer is fixed once running: a faster handler can't be served.
        if (resync < this.resyncCheckPeriodMs) {
          this.logger.warn(
            "resync period is smaller than the running informer's resync check period; raised",
            {
              informer: this.name,
              requestedMs: resync,
              usedMs: this.resyncCheckPeriodMs,
            },
          );
          resync = this.resyncCheckPeriodMs;
        }
      } else if (this.resyncCheckPeriodMs === 0 || resync < this.resyncCheckPeriodMs) {
        this.resyncCheckPeriodMs = resync;
      }
    }
    const listener = new ProcessorListener<T>(handler, {
      name: options.name ?? `${this.name}#${++this.handlerSeq}`,
      bufferSize:
        options.bufferSize ?? this.options.handlerBufferSize ?? DEFAULT_HANDLER_BUFFER_SIZE,
      resyncPeriodMs: resync,
      cache: this.indexer,
      upstreamSynced: () => this.hasSynced(),
      logger: this.logger,
    });
    listener.determineNextResync(this.clock.now());
    this.listeners.add(listener);
    // Once started, the cache has (or is getting) objects a relist would not add again.
    if (this.everStarted) listener.replayCache();
    if (this.current?.launched) void listener.run();
    return {
      name: listener.name,
      hasSynced: () => listener.hasSynced(),
      metrics: () => listener.metrics(),
      [LISTENER]: listener,
    } as HandlerRegistration;
  }

  /** Stops delivering to a handler; resolves once its current call has returned. */
  async removeEventHandler(registration: HandlerRegistration): Promise<void> {
    const listener = (registration as unknown as Record<symbol, ProcessorListener<T> | undefined>)[
      LISTENER
    ];
    if (!listener || !this.listeners.delete(listener)) return;
    this.syncingListeners.delete(listener);
    await listener.stop();
  }

  /** Before start: see Reflector's watchErrorHandler. */
  setWatchErrorHandler(handler: (err: ApiError) => void): void {
    this.watchErrorHandler = handler;
  }

  /** Before start: called whenever a watch is (re)established. */
  setWatchStartHandler(handler: (resourceVersion: string) => void): void {
    this.watchStartHandler = handler;
  }

  /**
   * Lets a UI see the reflector at work: its phases (watch-list, watching, resuming, relisting,
   * backoff…), each watch event with bookmarks and the initial-events-end one, 410s and the
   * last synced resourceVersion (see ReflectorObserver). Set before start to see the initial
   * list; set later, it sees what happens from then on, across restarts; undefined removes it.
   */
  setReflectorObserver(observer: ReflectorObserver<T> | undefined): void {
    this.reflectorObserver = observer;
    this.reflector?.setObserver(observer);
  }

  /** Before start: see SharedInformerOptions.transform. */
  setTransform(transform: TransformFunc<T>): void {
    if (this.everStarted)
      throw toApiError(new Error('the transform cannot change after the informer started'));
    this.transform = transform;
  }

  /** Adds indexes, indexing what is already cached. */
  addIndexers(indexers: Indexers<T>): void {
    this.indexer.addIndexers(indexers);
  }

  getIndexer(): Indexer<T> {
    return this.indexer;
  }

  lister(): Lister<T> {
    return new Lister<T>(this.indexer, this.resource);
  }

  hasSynced(): boolean {
    return this.fifo?.hasSynced() ?? false;
  }

  /** True between stop() and the next start(). */
  isStopped(): boolean {
    return this.stopped;
  }

  lastSyncResourceVersion(): string {
    return this.reflector?.lastSyncResourceVersion() ?? '';
  }

  /** Resolves true once synced, false if `signal` aborts or the informer stops first. */
  async waitForCacheSync(signal?: AbortSignal): Promise<boolean> {
    return waitUntil(
      () => this.hasSynced(),
      () => this.stopped,
      this.clock,
      signal,
      100,
      (wake) => {
        this.syncWaiters.add(wake);
        return () => this.syncWaiters.delete(wake);
      },
    );
  }

  /**
   * Starts the reflector and the handlers; a second call is a no-op. Unlike client-go's, an
   * informer starts again after stop() (client-node's informers do): cache, indexes and handlers
   * carry over, and it relists at the last synced resourceVersion into a new FIFO that diffs the
   * list against the cache, so handlers hear what changed meanwhile — deletions as
   * DeletedFinalStateUnknown tombstones — and then watch on. A stop still in progress is waited
   * for first.
   */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.stopped = false;
    this.everStarted = true;
    const fifoOptions = {
      knownObjects: this.indexer,
      ...(this.transform ? { transformer: this.transform } : {}),
    };
    const fifo: Fifo<T> =
      this.options.fifo === 'delta' ? new DeltaFIFO<T>(fifoOptions) : new RealFIFO<T>(fifoOptions);
    // Set now, not at launch: hasSynced() must not answer for the previous run's FIFO.
    this.fifo = fifo;
    fifo.onSynced(() => {
      this.everSynced = true;
      this.wakeSyncWaiters();
    });
    const run: Run<T> = {
      abort: new AbortController(),
      fifo,
      initialList: !this.everSynced,
      launched: false,
      done: undefined,
    };
    this.current = run;
    if (this.stopping) void this.stopping.then(() => this.launch(run));
    else this.launch(run);
  }

  private launch(run: Run<T>): void {
    // Stopped before the previous stop let it go.
    if (run.abort.signal.aborted) return;
    const r = this.options.reflector ?? {};
    const resumeFrom = this.reflector?.lastSyncResourceVersion();
    const reflector = new Reflector<T>({
      name: this.name,
      listerWatcher: this.options.listerWatcher,
      store: run.fifo,
      resyncPeriodMs: this.resyncCheckPeriodMs,
      shouldResync: () => this.shouldResync(),
      ...(this.options.useWatchList !== undefined
        ? { useWatchList: this.options.useWatchList }
        : {}),
      ...(r.backoff ? { backoff: r.backoff } : {}),
      ...(r.pageSize !== undefined ? { pageSize: r.pageSize } : {}),
      ...(r.minWatchTimeoutMs !== undefined ? { minWatchTimeoutMs: r.minWatchTimeoutMs } : {}),
      ...(resumeFrom ? { lastSyncResourceVersion: resumeFrom } : {}),
      clock: this.clock,
      logger: this.logger,
      ...(this.watchErrorHandler ? { watchErrorHandler: this.watchErrorHandler } : {}),
      ...(this.watchStartHandler ? { onWatchStart: this.watchStartHandler } : {}),
      observer: this.reflectorObserver,
    });
    this.reflector = reflector;
    run.launched = true;
    for (const listener of this.listeners) void listener.run();
    const reflecting = reflector.run(run.abort.signal);
    const processing = this.processLoop(run);
    run.done = Promise.all([reflecting, processing]).then(() => undefined);
  }

  /**
   * Stops: the reflector (closing its watch), the FIFO (what it still holds is dropped; a
   * restart's relist brings it back) and every handler — each finishes the call it is in, and
   * what it has not been handed yet waits for a restart. A second call, or one before start(),
   * only waits for a stop in progress.
   */
  async stop(): Promise<void> {
    const run = this.current;
    this.stopped = true;
    this.wakeSyncWaiters();
    if (!this.started || !run) {
      await this.stopping;
      return;
    }
    this.started = false;
    this.current = undefined;
    const previous = this.stopping;
    const stopping = (async (): Promise<void> => {
      run.abort.abort();
      run.fifo.close();
      // A launch waiting for the previous stop sees the abort and does not happen.
      await previous;
      await run.done;
      await Promise.all([...this.listeners].map((l) => l.pause()));
    })();
    this.stopping = stopping;
    await stopping;
    if (this.stopping === stopping) this.stopping = undefined;
  }

  /** Runs until `signal` aborts, then stops. */
  async run(signal: AbortSignal): Promise<void> {
    this.start();
    if (!signal.aborted)
      await new Promise<void>((resolve) =>
        signal.addEventListener('abort', () => resolve(), { once: true }),
      );
    await this.stop();
  }

  metrics(): InformerMetrics {
    return {
      resource: this.name,
      hasSynced: this.hasSynced(),
      lastSyncResourceVersion: this.lastSyncResourceVersion(),
      items: this.indexer.listKeys().length,
      queued: this.fifo?.len() ?? 0,
      handlers: [...this.listeners].map((l) => l.metrics()),
    };
  }

  /** Chooses the listeners whose resync is due (client-go sharedProcessor.shouldResync). */
  private shouldResync(): boolean {
    const now = this.clock.now();
    this.syncingListeners = new Set();
    for (const listener of this.listeners) {
      if (listener.shouldResync(now)) {
        this.syncingListeners.add(listener);
        listener.determineNextResync(now);
      }
    }
    return this.syncingListeners.size > 0;
  }

  private distribute(n: Notification<T>, isSync: boolean): void {
    for (const listener of isSync ? this.syncingListeners : this.listeners) listener.add(n);
  }

  /** The distributor handed to processDeltas: the store is updated before handlers hear. */
  private readonly distributor: ResourceEventHandler<T> = {
    onAdd: (obj, isInInitialList) => {
      // An informer without handlers (a cache for listers) makes no notifications.
      if (this.listeners.size > 0) this.distribute({ type: 'add', obj, isInInitialList }, false);
    },
    // An update that did not change the resourceVersion is a resync (or a relist of an
    // unchanged object): only handlers whose resync is due get it.
    onUpdate: (oldObj, newObj) =>
      this.distribute(
        { type: 'update', oldObj, newObj },
        oldObj.metadata?.resourceVersion === newObj.metadata?.resourceVersion,
      ),
    onDelete: (obj: T | DeletedFinalStateUnknown<T>) =>
      this.distribute({ type: 'delete', obj }, false),
  };

  private wakeSyncWaiters(): void {
    for (const wake of [...this.syncWaiters]) wake();
  }

  /**
   * Processes what is queued while no handler listens: a first list of thousands of objects. A
   * small synchronous function of its own, which V8 optimizes on stack (OSR) while the loop runs
   * (seen with --trace-opt), with the signal read once rather than per object.
   */
  private drainQueued(run: Run<T>, process: PopProcessFunc<T>): void {
    const { signal } = run.abort;
    const fifo = run.fifo;
    while (this.listeners.size === 0 && !signal.aborted && fifo.tryPop(process) !== undefined);
  }

  private async processLoop(run: Run<T>): Promise<void> {
    // The FIFO and the indexer key objects alike (metaNamespaceKeyFunc): the FIFO's key is
    // the indexer's.
    const process: PopProcessFunc<T> = (deltas, isInInitialList, key) =>
      processDeltas(
        this.distributor,
        this.indexer,
        deltas,
        isInInitialList && run.initialList,
        key,
      );
    while (!run.abort.signal.aborted) {
      try {
        await run.fifo.pop(process);
        // Without handlers, what is queued already is processed at once, without a promise per
        // item (awaiting each pop made half of what a sync of 50,000 objects allocated after
        // its LIST). With handlers every pop yields, so that their lanes keep pace with the
        // FIFO instead of filling up and overflowing.
        this.drainQueued(run, process);
      } catch (err) {
        if (isFIFOClosedError(err)) return;
        // A bad object (no key, a throwing index function) must not stop the informer.
        this.logger.error('failed to process deltas', {
          informer: this.name,
          error: errorField(err),
        });
      }
    }
  }
}

const LISTENER = Symbol('listener');

/** The informer's queue: either FIFO, both of which can pop without waiting. */
type Fifo<T extends KubernetesObject> = RealFIFO<T> | DeltaFIFO<T>;

/** One start()-to-stop() span: its own FIFO, reflector and pop loop. */
interface Run<T extends KubernetesObject> {
  abort: AbortController;
  fifo: Fifo<T>;
  /** Its FIFO's first list is the informer's initial list: no earlier run synced. */
  initialList: boolean;
  /** Its reflector, pop loop and the handlers are going. */
  launched: boolean;
  done: Promise<void> | undefined;
}

/**
 * Polls `done` (client-go WaitForCacheSync polls every 100 ms); `subscribe`, if given, lets a
 * source of changes cut a wait short instead of leaving it to the next poll.
 */
export async function waitUntil(
  done: () => boolean,
  gaveUp: () => boolean,
  clock: Clock,
  signal?: AbortSignal,
  intervalMs = 100,
  subscribe?: (wake: () => void) => () => void,
): Promise<boolean> {
  for (;;) {
    if (done()) return true;
    if (gaveUp() || signal?.aborted) return false;
    if (!subscribe) {
      await sleep(clock, intervalMs, signal);
      continue;
    }
    const nap = new AbortController();
    const wake = (): void => nap.abort();
    signal?.addEventListener('abort', wake, { once: true });
    const unsubscribe = subscribe(wake);
    try {
      await sleep(clock, intervalMs, nap.signal);
    } finally {
      unsubscribe();
      signal?.removeEventListener('abort', wake);
    }
  }
}

/**
 * Waits for every informer (or registration) to sync (client-go cache.WaitForCacheSync). An
 * informer is waited for by its own waitForCacheSync, which wakes as soon as it has synced.
 */
export async function waitForCacheSync(
  signal: AbortSignal | undefined,
  ...synced: { hasSynced(): boolean }[]
): Promise<boolean> {
  const outcomes = await Promise.all(
    synced.map((s) =>
      s instanceof SharedIndexInformer
        ? s.waitForCacheSync(signal)
        : waitUntil(
            () => s.hasSynced(),
            () => false,
            realClock,
            signal,
          ),
    ),
  );
  return outcomes.every(Boolean);
}
