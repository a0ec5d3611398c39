import { isRecord, type KubeObject } from '@listwatch/api';
import { validateWorkloadSpec } from '../../core/pod/validation.js';
import { specOf, nonNegative, workloadStrategy } from '../workload.js';

// ReplicaSets: pkg/registry/apps/replicaset/strategy.go, SetDefaults_ReplicaSet
// (pkg/apis/apps/v1/defaults.go) and ValidateReplicaSet (pkg/apis/apps/validation).

/** SetDefaults_ReplicaSet. */
export function setReplicaSetDefaults(replicaSet: KubeObject): void {
  const spec = specOf(replicaSet);
  if (spec['replicas'] === undefined) spec['replicas'] = 1;
}

export const replicaSetStrategy = workloadStrategy(false, {
  decode: setReplicaSetDefaults,
  validate: (replicaSet) => {
    const spec = isRecord(replicaSet['spec']) ? replicaSet['spec'] : {};
    return [
      ...validateWorkloadSpec(spec, 'replicaset'),
      ...nonNegative(spec['minReadySeconds'], 'spec.minReadySeconds'),
    ];
  },
  // ReplicaSetStatus.replicas has no omitempty.
  emptyStatus: () => ({ replicas: 0 }),
});
