import type { KubeObject } from '@listwatch/api';
import type { HandlerRegistration } from '../cache/shared-informer.js';
import { Controller } from '../controller/controller.js';
import {
  enqueueMapped,
  requestForObject,
  requestForOwner,
  type MapFunc,
} from '../handler/enqueue.js';
import type { Manager } from '../manager/manager.js';
import type { Predicate } from '../predicate/predicate.js';
import {
  requestFromKey,
  requestKey,
  type Reconciler,
  type Request,
} from '../reconcile/reconcile.js';
import type { KubernetesObject } from '../runtime/kubernetes-object.js';
import type { ResourceRefOf } from '../typed/resources.js';
import type { RateLimiter } from '../workqueue/rate-limiters.js';

export interface ForOptions<T extends KubernetesObject> {
  /** Only for this resource's notifications, after the builder's event filters. */
  predicates?: Predicate<T>[] | undefined;
}

/** controller-runtime controller.Options. */
export interface ControllerBuilderOptions {
  /** Workers reconciling at once (default 1); one key is never reconciled by two. */
  maxConcurrentReconciles?: number | undefined;
  rateLimiter?: RateLimiter<string> | undefined;
  /** Give up on a key after this many failed attempts (default: never). */
  maxRetries?: number | undefined;
}

type Watch = {
  ref: ResourceRefOf<KubernetesObject>;
  map: MapFunc;
  predicates: Predicate[];
};

/**
 * Wires a reconciler to the informers it needs (controller-runtime pkg/builder):
 *
 * ```ts
 * newControllerManagedBy(manager)
 *   .for(foos)                       // a Foo's changes reconcile that Foo
 *   .owns(appsV1.deployments)        // a Deployment's reconcile its controller owner, a Foo
 *   .watches(coreV1.configmaps, (cm) => [...])  // any mapping
 *   .withEventFilter(generationChangedPredicate)
 *   .complete(reconciler);
 * ```
 *
 * Informers come from the manager's shared factory, so controllers watching the same resource
 * share one watch and cache. The queue holds `namespace/name` keys: many events for one object
 * collapse into one reconcile.
 */
export class ControllerBuilder {
  private forRef: ResourceRefOf<KubernetesObject> & { kind?: string } = undefined as never;
  private hasFor = false;
  private controllerName: string | undefined;
  private readonly watchList: Watch[] = [];
  private readonly filters: Predicate[] = [];
  private options: ControllerBuilderOptions = {};

  constructor(private readonly manager: Manager) {}

  /** The reconciled resource: its own events enqueue its own name (EnqueueRequestForObject). */
  for<T extends KubernetesObject>(
    ref: ResourceRefOf<T> & { kind: string },
    options: ForOptions<T> = {},
  ): this {
    if (this.hasFor) throw new Error('for() may only be called once');
    this.hasFor = true;
    this.forRef = ref;
    this.watchList.unshift({
      ref: this.forRef,
      map: requestForObject,
      predicates: options.predicates ?? [],
    });
    return this;
  }

  /**
   * A resource the reconciled objects create: a child's events enqueue its controller owner
   * (the owner reference with `controller: true` of the `for` kind; see setControllerReference).
   */
  owns<T extends KubernetesObject>(ref: ResourceRefOf<T>, options: ForOptions<T> = {}): this {
    this.watchList.push({
      ref: ref,
      // Resolved at complete(): owns() may come before for().
      map: (obj) => requestForOwner(this.ownerKind())(obj),
      predicates: options.predicates ?? [],
    });
    return this;
  }

  /** Any resource, mapped to the requests it should trigger (EnqueueRequestsFromMapFunc). */
  watches<T extends KubernetesObject>(
    ref: ResourceRefOf<T>,
    map: MapFunc<T>,
    options: ForOptions<T> = {},
  ): this {
    this.watchList.push({
      ref: ref,
      map: map as MapFunc,
      predicates: options.predicates ?? [],
    });
    return this;
  }

  /** Predicates every watched resource's notifications pass first (WithEventFilter). */
  withEventFilter(predicate: Predicate): this {
    this.filters.push(predicate);
    return this;
  }

  /** The controller's name, in logs and metrics (default: the `for` kind, lowercased). */
  named(name: string): this {
    this.controllerName = name;
    return this;
  }

  withOptions(options: ControllerBuilderOptions): this {
    this.options = { ...this.options, ...options };
    return this;
  }

  /** Builds the controller and adds it to the manager, which runs it on start(). */
  complete(reconciler: Reconciler | Reconciler['reconcile']): Controller<string> {
    if (!this.hasFor) throw new Error('complete() needs for(): the resource to reconcile');
    const name = this.controllerName ?? this.ownerKind().kind.toLowerCase();
    const reconcile =
      typeof reconciler === 'function' ? reconciler : reconciler.reconcile.bind(reconciler);
    const m = this.manager;
    const registrations: HandlerRegistration[] = [];
    const controller = new Controller<string>({
      name,
      reconcile: (key, signal) => reconcile(requestFromKey(key), signal),
      workers: this.options.maxConcurrentReconciles,
      maxRetries: this.options.maxRetries,
      rateLimiter: this.options.rateLimiter,
      cacheSyncs: registrations,
      metrics: m.workQueueMetrics?.forQueue(name),
      reconcileMetrics: m.reconcileMetrics,
      logger: m.logger,
      clock: m.clock,
    });
    const enqueue = (r: Request): void => controller.queue.add(requestKey(r));
    for (const w of this.watchList) {
      const informer = m.informers.informerFor<KubeObject>(w.ref as ResourceRefOf<KubeObject>);
      registrations.push(
        informer.addEventHandler(
          enqueueMapped<KubeObject>(enqueue, w.map, [...this.filters, ...w.predicates]),
          { name },
        ),
      );
    }
    m.add(controller);
    return controller;
  }

  private ownerKind(): { group: string; kind: string; namespaced: boolean } {
    const ref = this.forRef as { group: string; kind?: string; namespaced: boolean };
    if (!ref.kind) throw new Error('for() needs a typed reference (with its kind)');
    return { group: ref.group, kind: ref.kind, namespaced: ref.namespaced };
  }
}

/** controller-runtime's builder.ControllerManagedBy. */
export function newControllerManagedBy(manager: Manager): ControllerBuilder {
  return new ControllerBuilder(manager);
}
