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
  newControllerRef,
  resolveControllerRef,
  resources,
  type Deployment,
  type Pod,
  type ReplicaSet,
} from '../objects.js';
import { controlledPods, podsByController } from '../pod-indexes.js';
import {
  activeReplicaSets,
  availableReplicas,
  byCreation,
  byRevision,
  bySizeNewer,
  bySizeOlder,
  calculateStatus,
  computeHash,
  deploymentComplete,
  deploymentProgressing,
  deploymentTimedOut,
  DESIRED_REPLICAS_ANNOTATION,
  equalIgnoreHash,
  FAILED_RS_CREATE_REASON,
  findActiveOrLatest,
  findNewReplicaSet,
  findOldReplicaSets,
  FOUND_NEW_RS_REASON,
  getCondition,
  getProportion,
  isSaturated,
  maxRevision,
  maxSurge,
  maxUnavailable,
  NEW_REPLICA_SET_REASON,
  NEW_RS_AVAILABLE_REASON,
  newCondition,
  newRSNewReplicas,
  PAUSED_DEPLOY_REASON,
  POD_TEMPLATE_HASH_LABEL,
  PROGRESSING,
  removeCondition,
  REPLICA_SET_UPDATED_REASON,
  replicasAnnotationsNeedUpdate,
  replicasOf,
  RESUMED_DEPLOY_REASON,
  REVISION_ANNOTATION,
  setCondition,
  setNewReplicaSetAnnotations,
  setReplicasAnnotations,
  specOf,
  specReplicas,
  TIMED_OUT_REASON,
} from './deployment-util.js';
import {
  cachedResource,
  recordEvent,
  workQueueController,
  type CachedResource,
  type ControllerOptions,
} from '../controller-options.js';

/** The field manager of the status this controller applies (kube names its controllers so). */
const FIELD_MANAGER = 'deployment-controller';

// Follows kubernetes pkg/controller/deployment: deployment_controller.go (handlers, sync),
// sync.go (new ReplicaSet, scaling, status, cleanup), rolling.go, recreate.go, progress.go.

type Status = NonNullable<Deployment['status']>;

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
  private readonly options: ControllerOptions;

  constructor(options: ControllerOptions) {
    this.options = options;
    this.deployments = cachedResource<Deployment>(options, resources.deployments);
    this.replicaSets = cachedResource<ReplicaSet>(options, resources.replicasets);
    this.podInformer = podsByController(options.factory);
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

  // --- sync (deployment_controller.go syncDeployment) ---

  private async syncDeployment(key: string): Promise<void> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    const cached = cachedObject(this.deployments.lister, namespace, name);
    if (!cached) return;
    const d = structuredClone(cached);
    const selector = d.spec?.selector;
    if (!selector || semanticEqual(selector, {})) {
      // Selecting every pod is refused; only the generation is observed.
      if ((d.status?.observedGeneration ?? 0) < (d.metadata.generation ?? 0))
        await this.writeStatus(d, { ...d.status, observedGeneration: d.metadata.generation ?? 0 });
      return;
    }
    const rsList = await this.replicaSetsFor(d);
    if (d.metadata.deletionTimestamp) return this.syncStatusOnly(d, rsList);
    await this.checkPausedConditions(d);
    if (specOf(d).paused) return this.sync(d, rsList);
    if (await this.isScalingEvent(d, rsList)) return this.sync(d, rsList);
    return specOf(d).strategyType === 'Recreate'
      ? this.rolloutRecreate(d, rsList)
      : this.rolloutRolling(d, rsList);
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
                ownerReferences: [this.controllerRef(d)],
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

  private controllerRef(d: Deployment): OwnerReference {
    return newControllerRef(d, 'apps/v1', 'Deployment');
  }

  /** checkPausedConditions: a Progressing Unknown condition marks a pause and a resume. */
  private async checkPausedConditions(d: Deployment): Promise<void> {
    if (specOf(d).progressDeadlineSeconds === undefined) return;
    const cond = getCondition(d.status, PROGRESSING);
    if (cond?.reason === TIMED_OUT_REASON) return;
    const pausedMarked = cond?.reason === PAUSED_DEPLOY_REASON;
    const status: Status = structuredClone(d.status ?? {});
    if (specOf(d).paused && !pausedMarked)
      setCondition(
        status,
        newCondition(PROGRESSING, 'Unknown', PAUSED_DEPLOY_REASON, 'Deployment is paused'),
      );
    else if (!specOf(d).paused && pausedMarked)
      setCondition(
        status,
        newCondition(PROGRESSING, 'Unknown', RESUMED_DEPLOY_REASON, 'Deployment is resumed'),
      );
    else return;
    d.status = (await this.writeStatus(d, status)).status ?? status;
  }

  /** isScalingEvent: an active ReplicaSet's desired-replicas differs from spec.replicas. */
  private async isScalingEvent(d: Deployment, rsList: ReplicaSet[]): Promise<boolean> {
    const { newRS, oldRSs } = await this.getAllReplicaSetsAndSyncRevision(d, rsList, false);
    const replicas = specOf(d).replicas;
    return activeReplicaSets([...oldRSs, newRS]).some((rs) => {
      const desired = rs.metadata.annotations?.[DESIRED_REPLICAS_ANNOTATION];
      return desired !== undefined && /^\d+$/.test(desired) && Number(desired) !== replicas;
    });
  }

  // --- sync.go ---

  private async getAllReplicaSetsAndSyncRevision(
    d: Deployment,
    rsList: ReplicaSet[],
    createIfNotExisted: boolean,
  ): Promise<{ newRS: ReplicaSet | undefined; oldRSs: ReplicaSet[] }> {
    const oldRSs = findOldReplicaSets(d, rsList);
    const newRS = await this.getNewReplicaSet(d, rsList, oldRSs, createIfNotExisted);
    return { newRS, oldRSs };
  }

  /** getNewReplicaSet: finds (and brings up to date) or creates the template's ReplicaSet. */
  private async getNewReplicaSet(
    d: Deployment,
    rsList: ReplicaSet[],
    oldRSs: ReplicaSet[],
    createIfNotExisted: boolean,
  ): Promise<ReplicaSet | undefined> {
    const namespace = d.metadata.namespace ?? '';
    const existing = findNewReplicaSet(d, rsList);
    const newRevision = maxRevision(oldRSs) + 1;
    const spec = specOf(d);
    if (existing) {
      const copy = structuredClone(existing);
      const annotationsUpdated = setNewReplicaSetAnnotations(d, copy, newRevision, true);
      const minReadyChanged = (copy.spec?.minReadySeconds ?? 0) !== spec.minReadySeconds;
      if (annotationsUpdated || minReadyChanged) {
        copy.spec = { ...copy.spec, minReadySeconds: spec.minReadySeconds };
        return this.replicaSets.client.namespace(namespace).update(copy);
      }
      let needsUpdate = setDeploymentRevision(
        d,
        copy.metadata.annotations?.[REVISION_ANNOTATION] ?? '',
      );
      const status: Status = structuredClone(d.status ?? {});
      if (spec.progressDeadlineSeconds !== undefined && !getCondition(status, PROGRESSING)) {
        setCondition(
          status,
          newCondition(
            PROGRESSING,
            'True',
            FOUND_NEW_RS_REASON,
            `Found new replica set "${copy.metadata.name ?? ''}"`,
          ),
        );
        needsUpdate = true;
      }
      if (needsUpdate) Object.assign(d, await this.writeStatus(d, status));
      return copy;
    }
    if (!createIfNotExisted) return undefined;

    const template = structuredClone(d.spec?.template ?? {});
    const hash = computeHash(template, d.status?.collisionCount);
    template.metadata = {
      ...template.metadata,
      labels: { ...template.metadata?.labels, [POD_TEMPLATE_HASH_LABEL]: hash },
    };
    const selector = structuredClone(d.spec?.selector ?? {});
    selector.matchLabels = { ...selector.matchLabels, [POD_TEMPLATE_HASH_LABEL]: hash };
    const newRS: ReplicaSet = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name: `${d.metadata.name ?? ''}-${hash}`,
        namespace,
        ownerReferences: [this.controllerRef(d)],
        labels: { ...template.metadata.labels },
      },
      spec: { replicas: 0, minReadySeconds: spec.minReadySeconds, selector, template },
    };
    newRS.spec = { ...newRS.spec, replicas: newRSNewReplicas(d, [...oldRSs, newRS], newRS) };
    setNewReplicaSetAnnotations(d, newRS, newRevision, false);

    let created: ReplicaSet;
    let alreadyExists = false;
    try {
      created = await this.replicaSets.client.namespace(namespace).create(newRS);
    } catch (err) {
      if (isApiError(err) && err.code === 409 && err.status.reason === 'AlreadyExists') {
        alreadyExists = true;
        let found: ReplicaSet | undefined;
        try {
          found = await this.replicaSets.client.namespace(namespace).get(newRS.metadata.name ?? '');
        } catch {
          found = undefined;
        }
        if (
          found &&
          controllerOf(found)?.uid === d.metadata.uid &&
          equalIgnoreHash(d.spec?.template, found.spec?.template)
        ) {
          created = found;
        } else {
          // A hash collision: the next sync hashes with collisionCount one higher.
          await this.writeStatus(d, {
            ...d.status,
            collisionCount: (d.status?.collisionCount ?? 0) + 1,
          });
          throw err;
        }
      } else {
        if (isApiError(err) && !isNamespaceTerminating(err))
          this.event(
            d,
            'Warning',
            FAILED_RS_CREATE_REASON,
            `Failed to create new replica set "${newRS.metadata.name ?? ''}": ${err.message}`,
          );
        if (
          isApiError(err) &&
          spec.progressDeadlineSeconds !== undefined &&
          !isNamespaceTerminating(err)
        ) {
          const status: Status = structuredClone(d.status ?? {});
          setCondition(
            status,
            newCondition(
              PROGRESSING,
              'False',
              FAILED_RS_CREATE_REASON,
              `Failed to create new replica set "${newRS.metadata.name ?? ''}": ${err.message}`,
            ),
          );
          await this.writeStatus(d, status).catch(() => undefined);
        }
        throw err;
      }
    }
    const createdReplicas = replicasOf(created);
    if (!alreadyExists && createdReplicas > 0)
      this.event(
        d,
        'Normal',
        'ScalingReplicaSet',
        `Scaled up replica set ${created.metadata.name ?? ''} from 0 to ${createdReplicas}`,
      );
    let needsUpdate = setDeploymentRevision(d, String(newRevision));
    const status: Status = structuredClone(d.status ?? {});
    if (!alreadyExists && spec.progressDeadlineSeconds !== undefined) {
      setCondition(
        status,
        newCondition(
          PROGRESSING,
          'True',
          NEW_REPLICA_SET_REASON,
          `Created new replica set "${created.metadata.name ?? ''}"`,
        ),
      );
      needsUpdate = true;
    }
    if (needsUpdate) Object.assign(d, await this.writeStatus(d, status));
    return created;
  }

  /** sync: scale, clean up when paused, and report (paused Deployments and scaling events). */
  private async sync(d: Deployment, rsList: ReplicaSet[]): Promise<void> {
    const { newRS, oldRSs } = await this.getAllReplicaSetsAndSyncRevision(d, rsList, false);
    await this.scale(d, newRS, oldRSs);
    if (specOf(d).paused) await this.cleanupDeployment(oldRSs, d);
    await this.syncDeploymentStatus([...oldRSs, newRS], newRS, d);
  }

  private async syncStatusOnly(d: Deployment, rsList: ReplicaSet[]): Promise<void> {
    const { newRS, oldRSs } = await this.getAllReplicaSetsAndSyncRevision(d, rsList, false);
    await this.syncDeploymentStatus([...oldRSs, newRS], newRS, d);
  }

  /** scale: a resize of the Deployment spread over its ReplicaSets in proportion. */
  private async scale(
    d: Deployment,
    newRS: ReplicaSet | undefined,
    oldRSs: ReplicaSet[],
  ): Promise<void> {
    const replicas = specOf(d).replicas;
    const activeOrLatest = findActiveOrLatest(newRS, oldRSs);
    if (activeOrLatest) {
      if (replicasOf(activeOrLatest) === replicas) return;
      await this.scaleReplicaSet(activeOrLatest, replicas, d);
      return;
    }
    if (isSaturated(d, newRS)) {
      for (const old of activeReplicaSets(oldRSs)) await this.scaleReplicaSet(old, 0, d);
      return;
    }
    if (specOf(d).strategyType !== 'RollingUpdate') return;
    const all = activeReplicaSets([...oldRSs, newRS]);
    const allowed = replicas > 0 ? replicas + maxSurge(d) : 0;
    const toAdd = allowed - specReplicas(all);
    if (toAdd > 0) all.sort(bySizeNewer);
    else if (toAdd < 0) all.sort(bySizeOlder);
    let added = 0;
    const sizes = new Map<ReplicaSet, number>();
    for (const rs of all) {
      if (toAdd !== 0) {
        const proportion = getProportion(rs, d, toAdd, added);
        sizes.set(rs, replicasOf(rs) + proportion);
        added += proportion;
      } else sizes.set(rs, replicasOf(rs));
    }
    for (const [i, rs] of all.entries()) {
      let size = sizes.get(rs) ?? 0;
      // Leftovers go to the largest.
      if (i === 0 && toAdd !== 0) size = Math.max(0, size + toAdd - added);
      await this.scaleReplicaSet(rs, size, d, true);
    }
  }

  /**
   * scaleReplicaSet: spec.replicas and the desired/max annotations written together; an
   * unchanged size is no write unless `annotationsToo` and they are stale.
   */
  private async scaleReplicaSet(
    rs: ReplicaSet,
    size: number,
    d: Deployment,
    annotationsToo = false,
  ): Promise<{ scaled: boolean; rs: ReplicaSet }> {
    if (!annotationsToo && replicasOf(rs) === size) return { scaled: false, rs };
    const replicas = specOf(d).replicas;
    const max = replicas + maxSurge(d);
    const sizeChanged = replicasOf(rs) !== size;
    if (!sizeChanged && !replicasAnnotationsNeedUpdate(rs, replicas, max))
      return { scaled: false, rs };
    const copy = structuredClone(rs);
    copy.spec = { ...copy.spec, replicas: size };
    setReplicasAnnotations(copy, replicas, max);
    const updated = await this.replicaSets.client
      .namespace(rs.metadata.namespace ?? '')
      .update(copy);
    if (sizeChanged) {
      const from = replicasOf(rs);
      this.event(
        d,
        'Normal',
        'ScalingReplicaSet',
        `Scaled ${from < size ? 'up' : 'down'} replica set ${rs.metadata.name ?? ''} from ${from} to ${size}`,
      );
    }
    return { scaled: sizeChanged, rs: updated };
  }

  /** sync.go's dc.eventRecorder.Eventf on the Deployment. */
  private event(d: Deployment, type: 'Normal' | 'Warning', reason: string, message: string): void {
    recordEvent(this.options.recorder, resources.deployments, d, type, reason, message);
  }

  /** cleanupDeployment: ReplicaSets past revisionHistoryLimit, scaled to zero, oldest first, go. */
  private async cleanupDeployment(oldRSs: ReplicaSet[], d: Deployment): Promise<void> {
    const limit = specOf(d).revisionHistoryLimit;
    if (limit === undefined) return;
    const cleanable = oldRSs.filter((rs) => !rs.metadata.deletionTimestamp);
    const diff = cleanable.length - limit;
    if (diff <= 0) return;
    cleanable.sort(byRevision);
    for (const rs of cleanable.slice(0, diff)) {
      if (
        (rs.status?.replicas ?? 0) !== 0 ||
        replicasOf(rs) !== 0 ||
        (rs.metadata.generation ?? 0) > (rs.status?.observedGeneration ?? 0)
      )
        continue;
      try {
        await this.replicaSets.client
          .namespace(rs.metadata.namespace ?? '')
          .delete(rs.metadata.name ?? '');
      } catch (err) {
        if (!isApiError(err) || err.code !== 404) throw err;
      }
    }
  }

  /** syncDeploymentStatus: the counts and Available, written when they changed. */
  private async syncDeploymentStatus(
    allRSs: (ReplicaSet | undefined)[],
    newRS: ReplicaSet | undefined,
    d: Deployment,
  ): Promise<void> {
    const status = calculateStatus(allRSs, newRS, d);
    if (sameStatus(d.status, status)) return;
    await this.writeStatus(d, status);
  }

  // --- rolling.go ---

  private async rolloutRolling(d: Deployment, rsList: ReplicaSet[]): Promise<void> {
    const { newRS, oldRSs } = await this.getAllReplicaSetsAndSyncRevision(d, rsList, true);
    if (!newRS) return;
    const allRSs = [...oldRSs, newRS];
    if (await this.reconcileNewReplicaSet(allRSs, newRS, d))
      return this.syncRolloutStatus(allRSs, newRS, d);
    if (await this.reconcileOldReplicaSets(allRSs, activeReplicaSets(oldRSs), newRS, d))
      return this.syncRolloutStatus(allRSs, newRS, d);
    if (deploymentComplete(d, d.status ?? {})) await this.cleanupDeployment(oldRSs, d);
    return this.syncRolloutStatus(allRSs, newRS, d);
  }

  private async reconcileNewReplicaSet(
    allRSs: ReplicaSet[],
    newRS: ReplicaSet,
    d: Deployment,
  ): Promise<boolean> {
    const replicas = specOf(d).replicas;
    if (replicasOf(newRS) === replicas) return false;
    if (replicasOf(newRS) > replicas)
      return (await this.scaleReplicaSet(newRS, replicas, d)).scaled;
    return (await this.scaleReplicaSet(newRS, newRSNewReplicas(d, allRSs, newRS), d)).scaled;
  }

  private async reconcileOldReplicaSets(
    allRSs: ReplicaSet[],
    oldRSs: ReplicaSet[],
    newRS: ReplicaSet,
    d: Deployment,
  ): Promise<boolean> {
    if (specReplicas(oldRSs) === 0) return false;
    const minAvailable = specOf(d).replicas - maxUnavailable(d);
    const newUnavailable = replicasOf(newRS) - (newRS.status?.availableReplicas ?? 0);
    const maxScaledDown = specReplicas(allRSs) - minAvailable - newUnavailable;
    if (maxScaledDown <= 0) return false;
    // Unhealthy replicas first, so they do not block the rollout (kubernetes issue 16737).
    const { oldRSs: cleaned, count: cleanedUp } = await this.cleanupUnhealthyReplicas(
      oldRSs,
      d,
      maxScaledDown,
    );
    const scaledDown = await this.scaleDownOldReplicaSetsForRollingUpdate(
      [...cleaned, newRS],
      cleaned,
      d,
    );
    return cleanedUp + scaledDown > 0;
  }

  private async cleanupUnhealthyReplicas(
    oldRSs: ReplicaSet[],
    d: Deployment,
    maxCleanup: number,
  ): Promise<{ oldRSs: ReplicaSet[]; count: number }> {
    const sorted = [...oldRSs].sort(byCreation);
    let total = 0;
    for (const [i, rs] of sorted.entries()) {
      if (total >= maxCleanup) break;
      const available = rs.status?.availableReplicas ?? 0;
      if (replicasOf(rs) === 0 || replicasOf(rs) === available) continue;
      const count = Math.min(maxCleanup - total, replicasOf(rs) - available);
      sorted[i] = (await this.scaleReplicaSet(rs, replicasOf(rs) - count, d)).rs;
      total += count;
    }
    return { oldRSs: sorted, count: total };
  }

  private async scaleDownOldReplicaSetsForRollingUpdate(
    allRSs: ReplicaSet[],
    oldRSs: ReplicaSet[],
    d: Deployment,
  ): Promise<number> {
    const minAvailable = specOf(d).replicas - maxUnavailable(d);
    const available = availableReplicas(allRSs);
    if (available <= minAvailable) return 0;
    const toScaleDown = available - minAvailable;
    let total = 0;
    for (const rs of [...oldRSs].sort(byCreation)) {
      if (total >= toScaleDown) break;
      if (replicasOf(rs) === 0) continue;
      const count = Math.min(replicasOf(rs), toScaleDown - total);
      await this.scaleReplicaSet(rs, replicasOf(rs) - count, d);
      total += count;
    }
    return total;
  }

  // --- recreate.go ---

  private async rolloutRecreate(d: Deployment, rsList: ReplicaSet[]): Promise<void> {
    let { newRS, oldRSs } = await this.getAllReplicaSetsAndSyncRevision(d, rsList, false);
    let allRSs = [...oldRSs, newRS];
    let scaledDown = false;
    for (const rs of activeReplicaSets(oldRSs))
      if ((await this.scaleReplicaSet(rs, 0, d)).scaled) scaledDown = true;
    if (scaledDown) return this.syncRolloutStatus(allRSs, newRS, d);
    if (this.oldPodsRunning(newRS, oldRSs, rsList)) return this.syncRolloutStatus(allRSs, newRS, d);
    if (!newRS) {
      ({ newRS, oldRSs } = await this.getAllReplicaSetsAndSyncRevision(d, rsList, true));
      allRSs = [...oldRSs, newRS];
    }
    if (newRS) await this.scaleReplicaSet(newRS, specOf(d).replicas, d);
    if (deploymentComplete(d, d.status ?? {})) await this.cleanupDeployment(oldRSs, d);
    return this.syncRolloutStatus(allRSs, newRS, d);
  }

  /** oldPodsRunning: an old ReplicaSet still reports pods, or a pod of one is not finished. */
  private oldPodsRunning(
    newRS: ReplicaSet | undefined,
    oldRSs: ReplicaSet[],
    rsList: ReplicaSet[],
  ): boolean {
    if (oldRSs.some((rs) => (rs.status?.replicas ?? 0) > 0)) return true;
    return rsList.some(
      (rs) =>
        rs.metadata.uid !== newRS?.metadata.uid &&
        controlledPods(this.podInformer, rs.metadata.uid ?? '').some(
          (pod) => pod.status?.phase !== 'Failed' && pod.status?.phase !== 'Succeeded',
        ),
    );
  }

  // --- progress.go ---

  /** syncRolloutStatus: counts, then the Progressing condition a rollout earns. */
  private async syncRolloutStatus(
    allRSs: (ReplicaSet | undefined)[],
    newRS: ReplicaSet | undefined,
    d: Deployment,
  ): Promise<void> {
    const status = calculateStatus(allRSs, newRS, d);
    const hasDeadline = specOf(d).progressDeadlineSeconds !== undefined;
    if (!hasDeadline) removeCondition(status, PROGRESSING);
    const current = getCondition(d.status, PROGRESSING);
    const isComplete =
      status.replicas === status.updatedReplicas && current?.reason === NEW_RS_AVAILABLE_REASON;
    const name = d.metadata.name ?? '';
    if (hasDeadline && !isComplete) {
      if (deploymentComplete(d, status)) {
        const msg = newRS
          ? `ReplicaSet "${newRS.metadata.name ?? ''}" has successfully progressed.`
          : `Deployment "${name}" has successfully progressed.`;
        setCondition(status, newCondition(PROGRESSING, 'True', NEW_RS_AVAILABLE_REASON, msg));
      } else if (deploymentProgressing(d, status)) {
        const msg = newRS
          ? `ReplicaSet "${newRS.metadata.name ?? ''}" is progressing.`
          : `Deployment "${name}" is progressing.`;
        const condition = newCondition(PROGRESSING, 'True', REPLICA_SET_UPDATED_REASON, msg);
        // Progress moves lastUpdateTime even when the reason stays.
        if (current) {
          if (current.status === 'True' && current.lastTransitionTime)
            condition.lastTransitionTime = current.lastTransitionTime;
          removeCondition(status, PROGRESSING);
        }
        setCondition(status, condition);
      } else if (deploymentTimedOut(d, status, Date.now())) {
        const msg = newRS
          ? `ReplicaSet "${newRS.metadata.name ?? ''}" has timed out progressing.`
          : `Deployment "${name}" has timed out progressing.`;
        setCondition(status, newCondition(PROGRESSING, 'False', TIMED_OUT_REASON, msg));
      }
    }
    if (sameStatus(d.status, status)) {
      this.requeueStuckDeployment(d, status);
      return;
    }
    await this.writeStatus(d, status);
  }

  /** requeueStuckDeployment: look again when the progress deadline would pass. */
  private requeueStuckDeployment(d: Deployment, status: Status): void {
    const deadline = specOf(d).progressDeadlineSeconds;
    const cond = getCondition(status, PROGRESSING);
    if (deadline === undefined || !cond || cond.reason === NEW_RS_AVAILABLE_REASON) return;
    if (cond.reason === TIMED_OUT_REASON || deploymentComplete(d, status)) return;
    const after = Date.parse(cond.lastUpdateTime ?? '') + deadline * 1000 - Date.now();
    if (Number.isFinite(after))
      this.controller.queue.addAfter(objectKey(d.metadata), Math.max(after, 0) + 1000);
  }

  /**
   * A status write by server-side apply as this controller's field manager (the revision
   * annotation rides along, as kube's status update carries it), answered with the stored
   * object. The uid guards against a Deployment recreated under the same name (409).
   */
  private async writeStatus(d: Deployment, status: Status): Promise<Deployment> {
    const revision = d.metadata.annotations?.[REVISION_ANNOTATION];
    const updated = await this.deployments.client.namespace(d.metadata.namespace ?? '').applyStatus(
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: {
          name: d.metadata.name ?? '',
          ...(d.metadata.uid ? { uid: d.metadata.uid } : {}),
          ...(revision !== undefined ? { annotations: { [REVISION_ANNOTATION]: revision } } : {}),
        },
        status,
      },
      { fieldManager: FIELD_MANAGER, force: true },
    );
    d.metadata = updated.metadata;
    d.status = updated.status ?? {};
    return updated;
  }
}

/** SetDeploymentRevision, in place. */
function setDeploymentRevision(d: Deployment, revision: string): boolean {
  if (d.metadata.annotations?.[REVISION_ANNOTATION] === revision) return false;
  d.metadata.annotations = { ...d.metadata.annotations, [REVISION_ANNOTATION]: revision };
  return true;
}

function isNamespaceTerminating(err: {
  status: { details?: { causes?: { reason?: string }[] } };
}): boolean {
  return err.status.details?.causes?.some((c) => c.reason === 'NamespaceTerminating') ?? false;
}

/** reflect.DeepEqual of two statuses, up to key order. */
function sameStatus(a: Deployment['status'], b: Status): boolean {
  return JSON.stringify(sortKeys(a ?? {})) === JSON.stringify(sortKeys(b));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))
        .map(([k, v]) => [k, sortKeys(v)]),
    );
  return value;
}
