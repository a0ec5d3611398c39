import { ApiError, isApiError, objectKey, toApiError } from '@listwatch/api';
import {
  Controller,
  deletedObject,
  enqueueKeys,
  silentLogger,
  splitMetaNamespaceKey,
  type EventRecorder,
  type Lister,
  type Logger,
  type ResourceClient,
  type RestClient,
  type SharedIndexInformer,
  type SharedInformerFactory,
} from '@listwatch/client';
import {
  cachedObject,
  isNodeSchedulable,
  isPodActive,
  resources,
  type Node,
  type Pod,
} from './objects.js';
import { recordEvent } from './controller-options.js';
import { ensureIndexers, NODE_NAME_INDEX, podNodeName } from './pod-indexes.js';

/** Pods that name no scheduler get this one (core/v1 defaults.go). */
const DEFAULT_SCHEDULER_NAME = 'default-scheduler';

export interface SchedulerOptions {
  client: RestClient;
  /** Shared with the other controllers of the process. */
  factory: SharedInformerFactory;
  logger?: Logger;
  /** Where Scheduled and FailedScheduling go (kube-scheduler's events.k8s.io recorder). */
  recorder?: EventRecorder;
}

/**
 * A one-plugin kube-scheduler: watches the pods no node was assigned (`spec.nodeName=`), puts
 * each on the schedulable node with the fewest pods (ties in turn) and POSTs a Binding. Like
 * kube-scheduler it schedules one pod at a time and "assumes" a bound pod on its node until
 * the pods informer shows it there, so a burst of pods is spread even while the cache lags.
 */
export class Scheduler {
  readonly controller: Controller<string>;
  private readonly pods: ResourceClient<Pod>;
  private readonly client: RestClient;
  private readonly pending: Lister<Pod>;
  private readonly nodes: Lister<Node>;
  private readonly allPods: SharedIndexInformer<Pod>;
  /** Pods bound by us that the pods informer has not yet shown on their node. */
  private readonly assumed = new Map<string, string>();
  private turn = 0;
  private readonly options: SchedulerOptions;

  constructor(options: SchedulerOptions) {
    this.options = options;
    this.client = options.client;
    this.pods = options.client.resource<Pod>(resources.pods);
    const unassigned = options.factory.informerFor<Pod>(resources.pods, {
      tweakListOptions: (params) => ({ ...params, fieldSelector: 'spec.nodeName=' }),
    });
    const nodes = options.factory.informerFor<Node>(resources.nodes);
    this.allPods = options.factory.informerFor<Pod>(resources.pods);
    ensureIndexers(this.allPods, { [NODE_NAME_INDEX]: podNodeName });
    this.pending = unassigned.lister();
    this.nodes = nodes.lister();
    const enqueue = { add: (key: string) => this.controller.enqueue(key) };
    const registrations = [
      unassigned.addEventHandler(enqueueKeys(enqueue, { skipResyncs: true })),
      // A node that appears or becomes Ready may fit the pods that fitted nowhere (the
      // scheduling queue's MoveAllToActiveOrBackoffQueue on node events).
      nodes.addEventHandler({
        onAdd: () => this.retryPending(),
        onUpdate: () => this.retryPending(),
      }),
      this.allPods.addEventHandler({
        onDelete: (obj) => {
          const pod = deletedObject(obj);
          if (pod) this.assumed.delete(objectKey(pod.metadata));
        },
      }),
    ];
    this.controller = new Controller<string>({
      name: 'scheduler',
      workers: 1,
      logger: options.logger ?? silentLogger,
      reconcile: (key) => this.schedule(key),
      cacheSyncs: registrations,
    });
  }

  run(signal: AbortSignal): Promise<void> {
    return this.controller.run(signal);
  }

  private retryPending(): void {
    for (const pod of this.pending.list()) this.controller.enqueue(objectKey(pod.metadata));
  }

  private async schedule(key: string): Promise<void> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    const pod = cachedObject(this.pending, namespace, name);
    if (!pod) return; // bound or deleted since
    if (pod.spec?.nodeName || !isPodActive(pod)) return;
    if ((pod.spec?.['schedulerName'] ?? DEFAULT_SCHEDULER_NAME) !== DEFAULT_SCHEDULER_NAME) return;
    let node: string;
    try {
      node = this.pickNode();
    } catch (err) {
      this.event(pod, 'Warning', 'FailedScheduling', toApiError(err).message);
      throw err;
    }
    try {
      await this.client.request({
        method: 'POST',
        path: this.pods.objectPath(name, namespace, 'binding'),
        body: {
          apiVersion: 'v1',
          kind: 'Binding',
          metadata: { name, namespace, ...(pod.metadata.uid ? { uid: pod.metadata.uid } : {}) },
          target: { apiVersion: 'v1', kind: 'Node', name: node },
        },
      });
    } catch (err) {
      // 404: deleted meanwhile; 409: already bound. Either way there is nothing left to do.
      if (isApiError(err) && (err.code === 404 || err.code === 409)) return;
      throw err;
    }
    this.assumed.set(key, node);
    this.event(pod, 'Normal', 'Scheduled', `Successfully assigned ${key} to ${node}`);
  }

  private event(pod: Pod, type: 'Normal' | 'Warning', reason: string, message: string): void {
    recordEvent(this.options.recorder, resources.pods, pod, type, reason, message);
  }

  /** The schedulable node with the fewest pods; among equals, the next one in turn. */
  private pickNode(): string {
    const candidates = this.nodes
      .list()
      .filter(isNodeSchedulable)
      .map((node) => node.metadata.name ?? '')
      .sort();
    if (candidates.length === 0) {
      const total = this.nodes.list().length;
      // Thrown: the pod is retried with backoff, and again whenever a node changes.
      throw ApiError.serviceUnavailable(
        `0/${total} nodes are available: ${total} node(s) were not ready or unschedulable`,
      );
    }
    const load = this.podsPerNode();
    const least = Math.min(...candidates.map((n) => load.get(n) ?? 0));
    const tied = candidates.filter((n) => (load.get(n) ?? 0) === least);
    return tied[this.turn++ % tied.length] ?? tied[0] ?? '';
  }

  private podsPerNode(): Map<string, number> {
    const indexer = this.allPods.getIndexer();
    const load = new Map<string, number>();
    for (const node of indexer.listIndexFuncValues(NODE_NAME_INDEX)) {
      load.set(node, indexer.byIndex(NODE_NAME_INDEX, node).filter(isPodActive).length);
    }
    for (const [key, node] of this.assumed) {
      const cached = indexer.getByKey(key);
      // Seen on its node: counted by the index now.
      if (cached?.spec?.nodeName) this.assumed.delete(key);
      else load.set(node, (load.get(node) ?? 0) + 1);
    }
    return load;
  }
}
