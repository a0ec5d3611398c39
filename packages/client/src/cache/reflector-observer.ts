import {
  errorField,
  toApiError,
  type ApiError,
  type KubeObject,
  type Logger,
  type WatchEvent,
} from '@listwatch/api';
import type { KubernetesObject } from '../runtime/kubernetes-object.js';

/**
 * The step of ListAndWatch a reflector is in (the steps of client-go tools/cache/reflector.go),
 * for a UI or a log that shows the machinery at work:
 *
 * - `listing`: a LIST of the initial state;
 * - `watch-list`: a watch streaming the initial state (sendInitialEvents, KEP-3157), until the
 *   bookmark annotated `k8s.io/initial-events-end`;
 * - `watching`: synced, a watch is open;
 * - `resuming`: opening a new watch from the last synced resourceVersion (the last one ended or
 *   broke), without relisting;
 * - `relisting`: a LIST or watch-list again after it had synced (410 Gone, or another error);
 * - `backoff`: waiting before the next attempt (connection refused, 429, a failed round);
 * - `stopped`: run() ended.
 */
export type ReflectorPhase =
  'listing' | 'watch-list' | 'watching' | 'resuming' | 'relisting' | 'backoff' | 'stopped';

/** How a watch event reached the reflector. */
export interface ReflectorWatchEventInfo {
  /** Part of a watch-list's initial state (not a change happening now). */
  initialEvents: boolean;
  /** The BOOKMARK annotated `k8s.io/initial-events-end`: the initial state is complete. */
  initialEventsEnd: boolean;
}

/**
 * Hooks that let a UI see a reflector work without reaching into it. Each is optional and
 * called synchronously; one that throws is logged and ignored. Errors that end a round go to
 * the WatchErrorHandler, as in client-go.
 */
export interface ReflectorObserver<T extends KubernetesObject = KubeObject> {
  /** The reflector entered `phase`; `resourceVersion` is its lastSyncResourceVersion then. */
  onPhase?(phase: ReflectorPhase, resourceVersion: string): void;
  /** Each watch event as received, before the store has it; BOOKMARKs included. */
  onWatchEvent?(event: WatchEvent<T>, info: ReflectorWatchEventInfo): void;
  /** A LIST or watch was told 410 Gone (its resourceVersion compacted away): it relists. */
  onExpired?(err: ApiError, resourceVersion: string): void;
  /** lastSyncResourceVersion moved (client-go ResourceVersionUpdater.UpdateResourceVersion). */
  updateResourceVersion?(resourceVersion: string): void;
}

/**
 * A reflector's calls to its observer: a hook left out costs nothing, one that throws is logged
 * and never the reflector's problem.
 */
export class ObserverCalls<T extends KubernetesObject> {
  observer: ReflectorObserver<T> | undefined;
  private readonly onWatchStart: ((resourceVersion: string) => void) | undefined;

  constructor(
    options: {
      observer?: ReflectorObserver<T> | undefined;
      onWatchStart?: ((resourceVersion: string) => void) | undefined;
    },
    private readonly logger: Logger,
    /** Its name for logs; its lastSyncResourceVersion, told with its phases and 410s. */
    private readonly reflector: { readonly name: string; lastSyncResourceVersion(): string },
  ) {
    this.observer = options.observer;
    this.onWatchStart = options.onWatchStart;
  }

  get wantsEvents(): boolean {
    return this.observer?.onWatchEvent !== undefined;
  }

  /** A watch is open: the reflector's own onWatchStart, then the `watching` phase. */
  watching(): void {
    this.onWatchStart?.(this.reflector.lastSyncResourceVersion());
    this.phase('watching');
  }

  phase(phase: ReflectorPhase): void {
    this.call((o) => o.onPhase?.(phase, this.reflector.lastSyncResourceVersion()));
  }

  event(event: WatchEvent<T>, info: ReflectorWatchEventInfo): void {
    this.call((o) => o.onWatchEvent?.(event, info));
  }

  expired(err: unknown): void {
    this.call((o) => o.onExpired?.(toApiError(err), this.reflector.lastSyncResourceVersion()));
  }

  resourceVersion(resourceVersion: string): void {
    this.call((o) => o.updateResourceVersion?.(resourceVersion));
  }

  private call(hook: (o: ReflectorObserver<T>) => void): void {
    const o = this.observer;
    if (!o) return;
    try {
      hook(o);
    } catch (err) {
      this.logger.error('reflector observer threw', {
        reflector: this.reflector.name,
        error: errorField(err),
      });
    }
  }
}
