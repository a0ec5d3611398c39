import type * as appsv1 from 'kubernetes-types/apps/v1.js';
import { validateWorkloadSpec } from '../../core/pod/validation.js';
import type { TypedObject } from '../../rest/typed-object.js';
import { nonNegative, workloadStrategy } from '../workload.js';

// ReplicaSets: pkg/registry/apps/replicaset/strategy.go, SetDefaults_ReplicaSet
// (pkg/apis/apps/v1/defaults.go) and ValidateReplicaSet (pkg/apis/apps/validation).

/** A ReplicaSet as decoded (kubernetes-types' apps/v1 ReplicaSet). */
export type ReplicaSet = TypedObject<appsv1.ReplicaSet>;

/** SetDefaults_ReplicaSet. */
export function setReplicaSetDefaults(replicaSet: ReplicaSet): void {
  (replicaSet.spec ??= {}).replicas ??= 1;
}

export const replicaSetStrategy = workloadStrategy<ReplicaSet>(false, {
  decode: setReplicaSetDefaults,
  validate: (replicaSet) => {
    const spec = replicaSet.spec ?? {};
    return [
      ...validateWorkloadSpec(spec, 'replicaset'),
      ...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'),
    ];
  },
  // ReplicaSetStatus.replicas has no omitempty.
  emptyStatus: () => ({ replicas: 0 }),
});
