import type { Deployment, ReplicaSet } from '../objects.js';
import { controlledPods } from '../pod-indexes.js';
import { activeReplicaSets, deploymentComplete, specOf } from './deployment-util.js';
import { syncRolloutStatus } from './progress.js';
import {
  cleanupDeployment,
  getAllReplicaSetsAndSyncRevision,
  scaleReplicaSet,
  type DeploymentSync,
} from './sync.js';

// kubernetes pkg/controller/deployment/recreate.go: old ReplicaSets to zero, their pods gone,
// then the new one up.

/** rolloutRecreate: the new ReplicaSet scaled up only once no old pod runs. */
export async function rolloutRecreate(
  dc: DeploymentSync,
  d: Deployment,
  rsList: ReplicaSet[],
): Promise<void> {
  let { newRS, oldRSs } = await getAllReplicaSetsAndSyncRevision(dc, d, rsList, false);
  let allRSs = [...oldRSs, newRS];
  let scaledDown = false;
  for (const rs of activeReplicaSets(oldRSs))
    if ((await scaleReplicaSet(dc, rs, 0, d)).scaled) scaledDown = true;
  if (scaledDown) return syncRolloutStatus(dc, allRSs, newRS, d);
  if (oldPodsRunning(dc, newRS, oldRSs, rsList)) return syncRolloutStatus(dc, allRSs, newRS, d);
  if (!newRS) {
    ({ newRS, oldRSs } = await getAllReplicaSetsAndSyncRevision(dc, d, rsList, true));
    allRSs = [...oldRSs, newRS];
  }
  if (newRS) await scaleReplicaSet(dc, newRS, specOf(d).replicas, d);
  if (deploymentComplete(d, d.status ?? {})) await cleanupDeployment(dc, oldRSs, d);
  return syncRolloutStatus(dc, allRSs, newRS, d);
}

/** oldPodsRunning: an old ReplicaSet still reports pods, or a pod of one is not finished. */
function oldPodsRunning(
  dc: DeploymentSync,
  newRS: ReplicaSet | undefined,
  oldRSs: ReplicaSet[],
  rsList: ReplicaSet[],
): boolean {
  if (oldRSs.some((rs) => (rs.status?.replicas ?? 0) > 0)) return true;
  return rsList.some(
    (rs) =>
      rs.metadata.uid !== newRS?.metadata.uid &&
      controlledPods(dc.podInformer, rs.metadata.uid ?? '').some(
        (pod) => pod.status?.phase !== 'Failed' && pod.status?.phase !== 'Succeeded',
      ),
  );
}
