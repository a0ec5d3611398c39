import type { Deployment, ReplicaSet } from '../objects.js';
import {
  activeReplicaSets,
  availableReplicas,
  byCreation,
  deploymentComplete,
  maxUnavailable,
  newRSNewReplicas,
  replicasOf,
  specOf,
  specReplicas,
} from './deployment-util.js';
import { syncRolloutStatus } from './progress.js';
import {
  cleanupDeployment,
  getAllReplicaSetsAndSyncRevision,
  scaleReplicaSet,
  type DeploymentSync,
} from './sync.js';

// kubernetes pkg/controller/deployment/rolling.go: a RollingUpdate rollout within maxSurge and
// maxUnavailable.

/** rolloutRolling: the new ReplicaSet up and the old ones down, one step per sync. */
export async function rolloutRolling(
  dc: DeploymentSync,
  d: Deployment,
  rsList: ReplicaSet[],
): Promise<void> {
  const { newRS, oldRSs } = await getAllReplicaSetsAndSyncRevision(dc, d, rsList, true);
  if (!newRS) return;
  const allRSs = [...oldRSs, newRS];
  if (await reconcileNewReplicaSet(dc, allRSs, newRS, d))
    return syncRolloutStatus(dc, allRSs, newRS, d);
  if (await reconcileOldReplicaSets(dc, allRSs, activeReplicaSets(oldRSs), newRS, d))
    return syncRolloutStatus(dc, allRSs, newRS, d);
  if (deploymentComplete(d, d.status ?? {})) await cleanupDeployment(dc, oldRSs, d);
  return syncRolloutStatus(dc, allRSs, newRS, d);
}

async function reconcileNewReplicaSet(
  dc: DeploymentSync,
  allRSs: ReplicaSet[],
  newRS: ReplicaSet,
  d: Deployment,
): Promise<boolean> {
  const replicas = specOf(d).replicas;
  if (replicasOf(newRS) === replicas) return false;
  if (replicasOf(newRS) > replicas) return (await scaleReplicaSet(dc, newRS, replicas, d)).scaled;
  return (await scaleReplicaSet(dc, newRS, newRSNewReplicas(d, allRSs, newRS), d)).scaled;
}

async function reconcileOldReplicaSets(
  dc: DeploymentSync,
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
  const { oldRSs: cleaned, count: cleanedUp } = await cleanupUnhealthyReplicas(
    dc,
    oldRSs,
    d,
    maxScaledDown,
  );
  const scaledDown = await scaleDownOldReplicaSetsForRollingUpdate(
    dc,
    [...cleaned, newRS],
    cleaned,
    d,
  );
  return cleanedUp + scaledDown > 0;
}

async function cleanupUnhealthyReplicas(
  dc: DeploymentSync,
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
    sorted[i] = (await scaleReplicaSet(dc, rs, replicasOf(rs) - count, d)).rs;
    total += count;
  }
  return { oldRSs: sorted, count: total };
}

async function scaleDownOldReplicaSetsForRollingUpdate(
  dc: DeploymentSync,
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
    await scaleReplicaSet(dc, rs, replicasOf(rs) - count, d);
    total += count;
  }
  return total;
}
