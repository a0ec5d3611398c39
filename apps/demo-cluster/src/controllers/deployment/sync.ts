import { isApiError, type OwnerReference } from '@listwatch/api';
import type { SharedIndexInformer } from '@listwatch/client';
import { recordEvent, type CachedResource, type ControllerOptions } from '../controller-options.js';
import {
  controllerOf,
  newControllerRef,
  resources,
  type Deployment,
  type Pod,
  type ReplicaSet,
} from '../objects.js';
import {
  activeReplicaSets,
  byRevision,
  bySizeNewer,
  bySizeOlder,
  calculateStatus,
  computeHash,
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
  NEW_REPLICA_SET_REASON,
  newCondition,
  newRSNewReplicas,
  PAUSED_DEPLOY_REASON,
  POD_TEMPLATE_HASH_LABEL,
  PROGRESSING,
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

// kubernetes pkg/controller/deployment/sync.go: the new ReplicaSet, scaling, cleanup and
// status; the functions take the controller's clients and caches as upstream's methods take dc.

/** The field manager of the status this controller applies (kube names its controllers so). */
const FIELD_MANAGER = 'deployment-controller';

export type Status = NonNullable<Deployment['status']>;

/** What the sync functions use of the DeploymentController (upstream's receiver dc). */
export interface DeploymentSync {
  readonly deployments: CachedResource<Deployment>;
  readonly replicaSets: CachedResource<ReplicaSet>;
  readonly podInformer: SharedIndexInformer<Pod>;
  readonly recorder: ControllerOptions['recorder'];
  /** Looks at a Deployment again after `delay` ms (progress.go requeueStuckDeployment). */
  readonly enqueueAfter: (key: string, delay: number) => void;
}

/** checkPausedConditions: a Progressing Unknown condition marks a pause and a resume. */
export async function checkPausedConditions(dc: DeploymentSync, d: Deployment): Promise<void> {
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
  d.status = (await writeStatus(dc, d, status)).status ?? status;
}

/** isScalingEvent: an active ReplicaSet's desired-replicas differs from spec.replicas. */
export async function isScalingEvent(
  dc: DeploymentSync,
  d: Deployment,
  rsList: ReplicaSet[],
): Promise<boolean> {
  const { newRS, oldRSs } = await getAllReplicaSetsAndSyncRevision(dc, d, rsList, false);
  const replicas = specOf(d).replicas;
  return activeReplicaSets([...oldRSs, newRS]).some((rs) => {
    const desired = rs.metadata.annotations?.[DESIRED_REPLICAS_ANNOTATION];
    return desired !== undefined && /^\d+$/.test(desired) && Number(desired) !== replicas;
  });
}

export async function getAllReplicaSetsAndSyncRevision(
  dc: DeploymentSync,
  d: Deployment,
  rsList: ReplicaSet[],
  createIfNotExisted: boolean,
): Promise<{ newRS: ReplicaSet | undefined; oldRSs: ReplicaSet[] }> {
  const oldRSs = findOldReplicaSets(d, rsList);
  const newRS = await getNewReplicaSet(dc, d, rsList, oldRSs, createIfNotExisted);
  return { newRS, oldRSs };
}

/** getNewReplicaSet: finds (and brings up to date) or creates the template's ReplicaSet. */
async function getNewReplicaSet(
  dc: DeploymentSync,
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
      return dc.replicaSets.client.namespace(namespace).update(copy);
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
    if (needsUpdate) Object.assign(d, await writeStatus(dc, d, status));
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
      ownerReferences: [controllerRef(d)],
      labels: { ...template.metadata.labels },
    },
    spec: { replicas: 0, minReadySeconds: spec.minReadySeconds, selector, template },
  };
  newRS.spec = { ...newRS.spec, replicas: newRSNewReplicas(d, [...oldRSs, newRS], newRS) };
  setNewReplicaSetAnnotations(d, newRS, newRevision, false);

  let created: ReplicaSet;
  let alreadyExists = false;
  try {
    created = await dc.replicaSets.client.namespace(namespace).create(newRS);
  } catch (err) {
    if (isApiError(err) && err.code === 409 && err.status.reason === 'AlreadyExists') {
      alreadyExists = true;
      let found: ReplicaSet | undefined;
      try {
        found = await dc.replicaSets.client.namespace(namespace).get(newRS.metadata.name ?? '');
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
        await writeStatus(dc, d, {
          ...d.status,
          collisionCount: (d.status?.collisionCount ?? 0) + 1,
        });
        throw err;
      }
    } else {
      if (isApiError(err) && !isNamespaceTerminating(err))
        event(
          dc,
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
        await writeStatus(dc, d, status).catch(() => undefined);
      }
      throw err;
    }
  }
  const createdReplicas = replicasOf(created);
  if (!alreadyExists && createdReplicas > 0)
    event(
      dc,
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
  if (needsUpdate) Object.assign(d, await writeStatus(dc, d, status));
  return created;
}

/** sync: scale, clean up when paused, and report (paused Deployments and scaling events). */
export async function sync(dc: DeploymentSync, d: Deployment, rsList: ReplicaSet[]): Promise<void> {
  const { newRS, oldRSs } = await getAllReplicaSetsAndSyncRevision(dc, d, rsList, false);
  await scale(dc, d, newRS, oldRSs);
  if (specOf(d).paused) await cleanupDeployment(dc, oldRSs, d);
  await syncDeploymentStatus(dc, [...oldRSs, newRS], newRS, d);
}

export async function syncStatusOnly(
  dc: DeploymentSync,
  d: Deployment,
  rsList: ReplicaSet[],
): Promise<void> {
  const { newRS, oldRSs } = await getAllReplicaSetsAndSyncRevision(dc, d, rsList, false);
  await syncDeploymentStatus(dc, [...oldRSs, newRS], newRS, d);
}

/** scale: a resize of the Deployment spread over its ReplicaSets in proportion. */
async function scale(
  dc: DeploymentSync,
  d: Deployment,
  newRS: ReplicaSet | undefined,
  oldRSs: ReplicaSet[],
): Promise<void> {
  const replicas = specOf(d).replicas;
  const activeOrLatest = findActiveOrLatest(newRS, oldRSs);
  if (activeOrLatest) {
    if (replicasOf(activeOrLatest) === replicas) return;
    await scaleReplicaSet(dc, activeOrLatest, replicas, d);
    return;
  }
  if (isSaturated(d, newRS)) {
    for (const old of activeReplicaSets(oldRSs)) await scaleReplicaSet(dc, old, 0, d);
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
    await scaleReplicaSet(dc, rs, size, d, true);
  }
}

/**
 * scaleReplicaSet: spec.replicas and the desired/max annotations written together; an
 * unchanged size is no write unless `annotationsToo` and they are stale.
 */
export async function scaleReplicaSet(
  dc: DeploymentSync,
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
  const updated = await dc.replicaSets.client.namespace(rs.metadata.namespace ?? '').update(copy);
  if (sizeChanged) {
    const from = replicasOf(rs);
    event(
      dc,
      d,
      'Normal',
      'ScalingReplicaSet',
      `Scaled ${from < size ? 'up' : 'down'} replica set ${rs.metadata.name ?? ''} from ${from} to ${size}`,
    );
  }
  return { scaled: sizeChanged, rs: updated };
}

/** sync.go's dc.eventRecorder.Eventf on the Deployment. */
function event(
  dc: DeploymentSync,
  d: Deployment,
  type: 'Normal' | 'Warning',
  reason: string,
  message: string,
): void {
  recordEvent(dc.recorder, resources.deployments, d, type, reason, message);
}

/** cleanupDeployment: ReplicaSets past revisionHistoryLimit, scaled to zero, oldest first, go. */
export async function cleanupDeployment(
  dc: DeploymentSync,
  oldRSs: ReplicaSet[],
  d: Deployment,
): Promise<void> {
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
      await dc.replicaSets.client
        .namespace(rs.metadata.namespace ?? '')
        .delete(rs.metadata.name ?? '');
    } catch (err) {
      if (!isApiError(err) || err.code !== 404) throw err;
    }
  }
}

/** syncDeploymentStatus: the counts and Available, written when they changed. */
async function syncDeploymentStatus(
  dc: DeploymentSync,
  allRSs: (ReplicaSet | undefined)[],
  newRS: ReplicaSet | undefined,
  d: Deployment,
): Promise<void> {
  const status = calculateStatus(allRSs, newRS, d);
  if (sameStatus(d.status, status)) return;
  await writeStatus(dc, d, status);
}

/**
 * A status write by server-side apply as this controller's field manager (the revision
 * annotation rides along, as kube's status update carries it), answered with the stored
 * object. The uid guards against a Deployment recreated under the same name (409).
 */
export async function writeStatus(
  dc: DeploymentSync,
  d: Deployment,
  status: Status,
): Promise<Deployment> {
  const revision = d.metadata.annotations?.[REVISION_ANNOTATION];
  const updated = await dc.deployments.client.namespace(d.metadata.namespace ?? '').applyStatus(
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

/** The controllerRef a Deployment puts on its ReplicaSets. */
export function controllerRef(d: Deployment): OwnerReference {
  return newControllerRef(d, 'apps/v1', 'Deployment');
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
export function sameStatus(a: Deployment['status'], b: Status): boolean {
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
