import { objectKey } from '@listwatch/api';
import type { Deployment, ReplicaSet } from '../objects.js';
import {
  calculateStatus,
  deploymentComplete,
  deploymentProgressing,
  deploymentTimedOut,
  getCondition,
  NEW_RS_AVAILABLE_REASON,
  newCondition,
  PROGRESSING,
  removeCondition,
  REPLICA_SET_UPDATED_REASON,
  setCondition,
  specOf,
  TIMED_OUT_REASON,
} from './deployment-util.js';
import { sameStatus, writeStatus, type DeploymentSync, type Status } from './sync.js';

// kubernetes pkg/controller/deployment/progress.go: the Progressing condition and the requeue
// at the progress deadline.

/** syncRolloutStatus: counts, then the Progressing condition a rollout earns. */
export async function syncRolloutStatus(
  dc: DeploymentSync,
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
    requeueStuckDeployment(dc, d, status);
    return;
  }
  await writeStatus(dc, d, status);
}

/** requeueStuckDeployment: look again when the progress deadline would pass. */
function requeueStuckDeployment(dc: DeploymentSync, d: Deployment, status: Status): void {
  const deadline = specOf(d).progressDeadlineSeconds;
  const cond = getCondition(status, PROGRESSING);
  if (deadline === undefined || !cond || cond.reason === NEW_RS_AVAILABLE_REASON) return;
  if (cond.reason === TIMED_OUT_REASON || deploymentComplete(d, status)) return;
  const after = Date.parse(cond.lastUpdateTime ?? '') + deadline * 1000 - Date.now();
  if (Number.isFinite(after)) dc.enqueueAfter(objectKey(d.metadata), Math.max(after, 0) + 1000);
}
