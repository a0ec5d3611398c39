import {
  isApiError,
  labelSelectorFromMetaV1,
  objectKey,
  type OwnerReference,
  semanticEqual,
} from '@listwatch/api';
import type { Controller } from '@listwatch/client';
import {
  deletedObject,
  splitMetaNamespaceKey,
  type DeletedFinalStateUnknown,
  type SharedIndexInformer,
} from '@listwatch/client';
import {
  cachedObject,
  controllerOf,
  resolveControllerRef,
  resources,
  type Deployment,
  type Pod,
  type ReplicaSet,
} from '../objects.js';
import { podsByController } from '../pod-indexes.js';
import { specOf } from './deployment-util.js';
import { rolloutRecreate } from './recreate.js';
import { rolloutRolling } from './rolling.js';
import {
  checkPausedConditions,
  controllerRef,
  isScalingEvent,
  sync,
  syncStatusOnly,
  writeStatus,
  type DeploymentSync,
} from './sync.js';
import {
  cachedResource,
  workQueueController,
  type CachedResource,
  type ControllerOptions,
} from '../controller-options.js';

// Follows kubernetes pkg/controller/deployment file by file: deployment_controller.go (handlers,
// syncDeployment, adoption) here; sync.go, rolling.go, recreate.go and progress.go in sync.ts,
// rolling.ts, recreate.ts and progress.ts.

/**
 * Keeps each apps/v1 Deployment's ReplicaSets: one per pod template, named
 * `<deployment>-<pod-template-hash>`, scaled by the rollout strategy (RollingUpdate within
 * maxSurge/maxUnavailable, or Recreate), old ones cleaned up past revisionHistoryLimit, and the
 * Deployment's status and conditions as `kubectl rollout status` reads them.
 */
export class DeploymentController {
  readonly controller: Controller<string>;
  private readonly deployments: CachedResource<Deployment>;
  private readonly replicaSets: CachedResource<ReplicaSet>;
  private readonly podInformer: SharedIndexInformer<Pod>;
  private readonly dc: DeploymentSync;

  constructor(options: ControllerOptions) {
    this.deployments = cachedResource<Deployment>(options, resources.deployments);
    this.replicaSets = cachedResource<ReplicaSet>(options, resources.replicasets);
    this.podInformer = podsByController(options.factory);
    this.dc = {
      deployments: this.deployments,
      replicaSets: this.replicaSets,
      podInformer: this.podInformer,
      recorder: options.recorder,
      enqueueAfter: (key, delay) => this.controller.queue.addAfter(key, delay),
    };
    const enqueue = (d: Deployment) => this.controller.enqueue(objectKey(d.metadata));
    const registrations = [
      this.deployments.informer.addEventHandler({
        onAdd: enqueue,
        onUpdate: (_old, d) => enqueue(d),
        onDelete: (obj) => {
          const d = deletedObject(obj);
          if (d) enqueue(d);
        },
      }),
      this.replicaSets.informer.addEventHandler({
        onAdd: (rs) => this.addReplicaSet(rs),
        onUpdate: (oldRS, rs) => this.updateReplicaSet(oldRS, rs),
        onDelete: (obj) => this.deleteReplicaSet(obj),
      }),
      this.podInformer.addEventHandler({ onDelete: (obj) => this.deletePod(obj) }),
    ];
    this.controller = workQueueController(
      options,
      'deployment',
      (key) => this.syncDeployment(key),
      registrations,
    );
  }

  run(signal: AbortSignal): Promise<void> {
    return this.controller.run(signal);
  }

  // --- handlers (deployment_controller.go) ---

  private resolveControllerRef(namespace: string, ref: OwnerReference): Deployment | undefined {
    return resolveControllerRef(this.deployments.lister, 'Deployment', namespace, ref);
  }

  /** Deployments whose selector matches an orphan ReplicaSet (getDeploymentsForReplicaSet). */
  private deploymentsSelecting(rs: ReplicaSet): Deployment[] {
    return this.deployments.lister
      .namespace(rs.metadata.namespace ?? '')
      .list()
      .filter((d) => {
        try {
          const selector = labelSelectorFromMetaV1(d.spec?.selector);
          return !selector.isEmpty() && selector.matches(rs.metadata.labels ?? {});
        } catch {
          return false;
        }
      });
  }

  private enqueueOwner(rs: ReplicaSet): void {
    const ref = controllerOf(rs);
    if (ref) {
      const d = this.resolveControllerRef(rs.metadata.namespace ?? '', ref);
      if (d) this.controller.enqueue(objectKey(d.metadata));
      return;
    }
    for (const d of this.deploymentsSelecting(rs)) this.controller.enqueue(objectKey(d.metadata));
  }

  private addReplicaSet(rs: ReplicaSet): void {
    this.enqueueOwner(rs);
  }

  private updateReplicaSet(oldRS: ReplicaSet, rs: ReplicaSet): void {
    if (oldRS.metadata.resourceVersion === rs.metadata.resourceVersion) return;
    const oldRef = controllerOf(oldRS);
    const ref = controllerOf(rs);
    if (oldRef && oldRef.uid !== ref?.uid) {
      const d = this.resolveControllerRef(oldRS.metadata.namespace ?? '', oldRef);
      if (d) this.controller.enqueue(objectKey(d.metadata));
    }
    this.enqueueOwner(rs);
  }

  private deleteReplicaSet(obj: ReplicaSet | DeletedFinalStateUnknown<ReplicaSet>): void {
    const rs = deletedObject(obj);
    const ref = rs && controllerOf(rs);
    if (!rs || !ref) return;
    const d = this.resolveControllerRef(rs.metadata.namespace ?? '', ref);
    if (d) this.controller.enqueue(objectKey(d.metadata));
  }

  /** A Recreate rollout waits for the old pods to be gone (deployment_controller.go deletePod). */
  private deletePod(obj: Pod | DeletedFinalStateUnknown<Pod>): void {
    const pod = deletedObject(obj);
    const ref = pod && controllerOf(pod);
    if (!pod || ref?.kind !== 'ReplicaSet') return;
    const namespace = pod.metadata.namespace ?? '';
    const rs = cachedObject(this.replicaSets.lister, namespace, ref.name);
    if (!rs) return;
    const dRef = controllerOf(rs);
    const d = dRef && this.resolveControllerRef(namespace, dRef);
    if (d && specOf(d).strategyType === 'Recreate') this.controller.enqueue(objectKey(d.metadata));
  }

  // --- syncDeployment ---

  private async syncDeployment(key: string): Promise<void> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    const cached = cachedObject(this.deployments.lister, namespace, name);
    if (!cached) return;
    const d = structuredClone(cached);
    const selector = d.spec?.selector;
    if (!selector || semanticEqual(selector, {})) {
      // Selecting every pod is refused; only the generation is observed.
      if ((d.status?.observedGeneration ?? 0) < (d.metadata.generation ?? 0))
        await writeStatus(this.dc, d, {
          ...d.status,
          observedGeneration: d.metadata.generation ?? 0,
        });
      return;
    }
    const rsList = await this.replicaSetsFor(d);
    if (d.metadata.deletionTimestamp) return syncStatusOnly(this.dc, d, rsList);
    await checkPausedConditions(this.dc, d);
    if (specOf(d).paused) return sync(this.dc, d, rsList);
    if (await isScalingEvent(this.dc, d, rsList)) return sync(this.dc, d, rsList);
    return specOf(d).strategyType === 'Recreate'
      ? rolloutRecreate(this.dc, d, rsList)
      : rolloutRolling(this.dc, d, rsList);
  }

  /**
   * The Deployment's ReplicaSets (getReplicaSetsForDeployment): those it controls, and orphans
   * its selector matches, adopted (ControllerRefManager.ClaimReplicaSets).
   */
  private async replicaSetsFor(d: Deployment): Promise<ReplicaSet[]> {
    const namespace = d.metadata.namespace ?? '';
    const uid = d.metadata.uid ?? '';
    let selector: ReturnType<typeof labelSelectorFromMetaV1>;
    try {
      selector = labelSelectorFromMetaV1(d.spec?.selector);
    } catch {
      return [];
    }
    const owned: ReplicaSet[] = [];
    for (const rs of this.replicaSets.lister.namespace(namespace).list()) {
      const ref = controllerOf(rs);
      if (ref?.uid === uid) {
        owned.push(rs);
        continue;
      }
      if (ref || rs.metadata.deletionTimestamp || d.metadata.deletionTimestamp) continue;
      if (!selector.matches(rs.metadata.labels ?? {})) continue;
      try {
        owned.push(
          await this.replicaSets.client.namespace(namespace).patch(
            rs.metadata.name ?? '',
            {
              metadata: {
                ownerReferences: [controllerRef(d)],
                uid: rs.metadata.uid,
              },
            },
            'strategic',
          ),
        );
      } catch (err) {
        if (!isApiError(err) || err.code !== 404) throw err;
      }
    }
    return owned;
  }
}
