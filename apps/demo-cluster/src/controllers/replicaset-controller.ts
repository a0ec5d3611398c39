import { isApiError, objectKey, toApiError, type ApiError } from '@listwatch/api';
import type { Controller } from '@listwatch/client';
import {
  enqueueKeys,
  splitMetaNamespaceKey,
  type DeletedFinalStateUnknown,
  type ResourceClient,
  type SharedIndexInformer,
} from '@listwatch/client';
import { ControllerExpectations } from './controller-expectations.js';
import { createPodFromTemplate, deletedControlledPod, type OwnerEvent } from './pod-control.js';
import {
  cachedObject,
  controllerOf,
  isPodActive,
  isPodReady,
  resolveControllerRef,
  resources,
  type Pod,
  type ReplicaSet,
} from './objects.js';
import { controlledPods, podsByController } from './pod-indexes.js';
import {
  cachedResource,
  recordEvent,
  workQueueController,
  type CachedResource,
  type ControllerOptions,
} from './controller-options.js';

// Follows kubernetes pkg/controller/replicaset/replica_set.go (and client-go's
// sample-controller for the informer → work queue → worker loop).

/** Who owns the status fields this controller applies. */
const FIELD_MANAGER = 'replicaset-controller';

/** At most this many pods created or deleted in one sync (replica_set.go BurstReplicas). */
const BURST_REPLICAS = 500;
/** Creations start with one pod and double while they succeed (SlowStartInitialBatchSize). */
const SLOW_START_INITIAL_BATCH_SIZE = 1;

/** What owns the pods this controller creates. */
const REPLICASET_TYPE = { apiVersion: 'apps/v1', kind: 'ReplicaSet' };

/**
 * Keeps `spec.replicas` pods for every apps/v1 ReplicaSet: creates pods from the template (owned
 * by the ReplicaSet, named by generateName), deletes the extra ones, and reports
 * `status.replicas` / `readyReplicas` through the status subresource. Reads only from the
 * informers' caches; the expectations keep it from acting twice on the same shortfall before
 * its own writes come back through the watch.
 */
export class ReplicaSetController {
  readonly controller: Controller<string>;
  private readonly replicaSets: CachedResource<ReplicaSet>;
  private readonly pods: ResourceClient<Pod>;
  private readonly podInformer: SharedIndexInformer<Pod>;
  private readonly expectations = new ControllerExpectations();
  private readonly options: ControllerOptions;

  constructor(options: ControllerOptions) {
    this.options = options;
    this.replicaSets = cachedResource<ReplicaSet>(options, resources.replicasets);
    this.pods = options.client.resource<Pod>(resources.pods);
    this.podInformer = podsByController(options.factory);
    // The handlers only run once the factory starts, by which time the controller exists.
    const enqueue = { add: (key: string) => this.controller.enqueue(key) };
    const rsRegistration = this.replicaSets.informer.addEventHandler(
      enqueueKeys(enqueue, { skipResyncs: true }),
    );
    const podRegistration = this.podInformer.addEventHandler({
      onAdd: (pod) => this.addPod(pod),
      onUpdate: (oldPod, newPod) => this.updatePod(oldPod, newPod),
      onDelete: (obj) => this.deletePod(obj),
    });
    this.controller = workQueueController(options, 'replicaset', (key) => this.sync(key), [
      rsRegistration,
      podRegistration,
    ]);
  }

  /** Waits for the caches, then syncs until `signal` aborts. */
  run(signal: AbortSignal): Promise<void> {
    return this.controller.run(signal);
  }

  /** The ReplicaSet a controller reference points at, if it is in the cache with that uid. */
  private ownerKey(pod: Pod): string | undefined {
    const ref = controllerOf(pod);
    const rs =
      ref &&
      resolveControllerRef(
        this.replicaSets.lister,
        'ReplicaSet',
        pod.metadata.namespace ?? '',
        ref,
      );
    return rs ? objectKey(rs.metadata) : undefined;
  }

  private addPod(pod: Pod): void {
    const key = this.ownerKey(pod);
    if (key === undefined) return;
    this.expectations.creationObserved(key);
    this.controller.enqueue(key);
  }

  private updatePod(oldPod: Pod, newPod: Pod): void {
    if (oldPod.metadata.resourceVersion === newPod.metadata.resourceVersion) return;
    // A pod marked for deletion is as good as gone: replace it now, not when its kubelet
    // confirms (replica_set.go updatePod).
    if (newPod.metadata.deletionTimestamp) {
      this.deletePod(newPod);
      return;
    }
    const oldKey = this.ownerKey(oldPod);
    const newKey = this.ownerKey(newPod);
    // A changed controller reference: the old owner lost a pod.
    if (oldKey !== undefined && oldKey !== newKey) this.controller.enqueue(oldKey);
    if (newKey !== undefined) this.controller.enqueue(newKey);
  }

  private deletePod(obj: Pod | DeletedFinalStateUnknown<Pod>): void {
    const deleted = deletedControlledPod(obj, 'ReplicaSet');
    if (!deleted) return;
    this.expectations.deletionObserved(deleted.ownerKey, deleted.podKey);
    this.controller.enqueue(deleted.ownerKey);
  }

  /** One pass over one ReplicaSet (replica_set.go syncReplicaSet). */
  private async sync(key: string): Promise<void> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    const rs = cachedObject(this.replicaSets.lister, namespace, name);
    if (!rs) {
      // Its pods are the garbage collector's.
      this.expectations.delete(key);
      return;
    }
    const uid = rs.metadata.uid ?? '';
    const needsSync = this.expectations.satisfied(key);
    const pods = controlledPods(this.podInformer, uid).filter(isPodActive);
    let manageError: ApiError | undefined;
    if (needsSync && !rs.metadata.deletionTimestamp) {
      try {
        await this.manageReplicas(key, rs, pods);
      } catch (err) {
        manageError = toApiError(err);
      }
    }
    await this.updateStatus(rs, calculateStatus(rs, pods));
    if (manageError !== undefined) throw manageError;
  }

  /** Creates or deletes pods to close the gap to spec.replicas (replica_set.go manageReplicas). */
  private async manageReplicas(key: string, rs: ReplicaSet, pods: Pod[]): Promise<void> {
    const diff = pods.length - (rs.spec?.replicas ?? 1);
    if (diff < 0) {
      const count = Math.min(-diff, BURST_REPLICAS);
      // Expect them all before the first write: its watch event may arrive before we continue.
      this.expectations.expectCreations(key, count);
      const { successes, error } = await slowStartBatch(count, SLOW_START_INITIAL_BATCH_SIZE, () =>
        this.createPod(rs),
      );
      // The skipped ones will never be observed.
      for (let i = successes; i < count; i++) this.expectations.creationObserved(key);
      if (error !== undefined) throw toApiError(error);
    } else if (diff > 0) {
      const victims = podsToDelete(pods, Math.min(diff, BURST_REPLICAS));
      this.expectations.expectDeletions(
        key,
        victims.map((pod) => objectKey(pod.metadata)),
      );
      const errors: ApiError[] = [];
      await Promise.all(
        victims.map(async (pod) => {
          try {
            await this.deletePodObject(pod, rs);
          } catch (err) {
            // Never to be observed: stop waiting for it.
            this.expectations.deletionObserved(key, objectKey(pod.metadata));
            if (!isApiError(err) || err.code !== 404) errors.push(toApiError(err));
          }
        }),
      );
      // Likely all the same: the first says it (replica_set.go does the same).
      const [first] = errors;
      if (first) throw first;
    }
  }

  /** A pod from the template, owned by the ReplicaSet (controller_utils.go GetPodFromTemplate). */
  private async createPod(rs: ReplicaSet): Promise<void> {
    const event: OwnerEvent = (type, reason, message) => this.event(rs, type, reason, message);
    await createPodFromTemplate(this.pods, rs, REPLICASET_TYPE, event);
  }

  private async deletePodObject(pod: Pod, rs: ReplicaSet): Promise<void> {
    try {
      await this.pods.namespace(pod.metadata.namespace ?? '').delete(pod.metadata.name ?? '', {
        ...(pod.metadata.uid ? { preconditions: { uid: pod.metadata.uid } } : {}),
      });
    } catch (err) {
      if (!isApiError(err) || err.code !== 404)
        this.event(rs, 'Warning', 'FailedDelete', `Error deleting: ${toApiError(err).message}`);
      throw err;
    }
    this.event(rs, 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata.name ?? ''}`);
  }

  /** controller_utils.go RealPodControl's recorder.Eventf on the ReplicaSet. */
  private event(rs: ReplicaSet, type: 'Normal' | 'Warning', reason: string, message: string): void {
    recordEvent(this.options.recorder, resources.replicasets, rs, type, reason, message);
  }

  /**
   * Writes the status when it changed (replica_set_utils.go updateReplicaSetStatus), by
   * server-side apply of the status alone as this controller's field manager, as kube's
   * controllers move to: no resourceVersion to conflict on, the uid guards against a ReplicaSet
   * recreated under the same name (409, left to the next sync of the new one).
   */
  private async updateStatus(
    rs: ReplicaSet,
    status: NonNullable<ReplicaSet['status']>,
  ): Promise<void> {
    if (sameStatus(rs.status ?? {}, status)) return;
    try {
      await this.replicaSets.client.namespace(rs.metadata.namespace ?? '').applyStatus(
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          metadata: {
            name: rs.metadata.name ?? '',
            ...(rs.metadata.uid ? { uid: rs.metadata.uid } : {}),
          },
          status,
        },
        { fieldManager: FIELD_MANAGER, force: true },
      );
    } catch (err) {
      if (isApiError(err) && (err.code === 404 || err.code === 409)) return;
      throw err;
    }
  }
}

/** What the status should say (replica_set_utils.go calculateStatus; minReadySeconds is 0). */
export function calculateStatus(
  rs: ReplicaSet,
  pods: readonly Pod[],
): NonNullable<ReplicaSet['status']> {
  const templateLabels = Object.entries(rs.spec?.template?.metadata?.labels ?? {});
  const ready = pods.filter(isPodReady).length;
  return {
    replicas: pods.length,
    fullyLabeledReplicas: pods.filter((pod) =>
      templateLabels.every(([k, v]) => pod.metadata.labels?.[k] === v),
    ).length,
    readyReplicas: ready,
    availableReplicas: ready,
    observedGeneration: rs.metadata.generation ?? 0,
  };
}

function sameStatus(
  a: NonNullable<ReplicaSet['status']>,
  b: NonNullable<ReplicaSet['status']>,
): boolean {
  return (
    (a.replicas ?? 0) === (b.replicas ?? 0) &&
    (a.fullyLabeledReplicas ?? 0) === (b.fullyLabeledReplicas ?? 0) &&
    (a.readyReplicas ?? 0) === (b.readyReplicas ?? 0) &&
    (a.availableReplicas ?? 0) === (b.availableReplicas ?? 0) &&
    (a.observedGeneration ?? 0) === (b.observedGeneration ?? 0)
  );
}

/**
 * Calls `fn` `count` times: a batch of `initialBatchSize` at once, doubling while every call
 * succeeds, stopping after the first batch with a failure — so a quota or a bad template costs
 * one failed request, not five hundred (replica_set.go slowStartBatch).
 */
export async function slowStartBatch(
  count: number,
  initialBatchSize: number,
  fn: () => Promise<void>,
): Promise<{ successes: number; error?: unknown }> {
  let remaining = count;
  let successes = 0;
  for (
    let batch = Math.min(remaining, initialBatchSize);
    batch > 0;
    batch = Math.min(2 * batch, remaining)
  ) {
    const results = await Promise.allSettled(Array.from({ length: batch }, () => fn()));
    const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    successes += batch - failed.length;
    if (failed[0]) return { successes, error: failed[0].reason };
    remaining -= batch;
  }
  return { successes };
}

const PHASE_RANK: Readonly<Record<string, number>> = { Pending: 0, Unknown: 1, Running: 2 };

/**
 * The `count` pods to delete first (replica_set.go getPodsToDelete, controller_utils.go
 * ActivePodsWithRanks): unscheduled before scheduled, pending before running, not ready before
 * ready, pods on crowded nodes before pods alone on theirs, younger before older.
 */
export function podsToDelete(pods: readonly Pod[], count: number): Pod[] {
  if (count >= pods.length) return [...pods];
  const onNode = new Map<string, number>();
  for (const pod of pods) {
    const node = pod.spec?.nodeName ?? '';
    onNode.set(node, (onNode.get(node) ?? 0) + 1);
  }
  const rank = (pod: Pod): number => onNode.get(pod.spec?.nodeName ?? '') ?? 0;
  const sorted = [...pods].sort((a, b) => {
    const assigned = Number(Boolean(a.spec?.nodeName)) - Number(Boolean(b.spec?.nodeName));
    if (assigned !== 0) return assigned;
    const phase =
      (PHASE_RANK[a.status?.phase ?? 'Pending'] ?? 0) -
      (PHASE_RANK[b.status?.phase ?? 'Pending'] ?? 0);
    if (phase !== 0) return phase;
    const ready = Number(isPodReady(a)) - Number(isPodReady(b));
    if (ready !== 0) return ready;
    const crowded = rank(b) - rank(a);
    if (crowded !== 0) return crowded;
    // Newer first; RFC 3339 timestamps in UTC compare as strings.
    const ta = a.metadata.creationTimestamp ?? '';
    const tb = b.metadata.creationTimestamp ?? '';
    return ta === tb ? 0 : ta > tb ? -1 : 1;
  });
  return sorted.slice(0, count);
}
