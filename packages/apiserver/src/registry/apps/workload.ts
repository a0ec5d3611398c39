import {
  fieldErrors,
  goSyntax,
  semanticEqual,
  type FieldError,
  type KubeObject,
} from '@listwatch/api';
import { replicasScale } from '../autoscaling/scale.js';
import type { WorkloadSpec } from '../core/pod/validation.js';
import type { ResourceStrategy } from '../rest/resource-strategy.js';

// What Deployments and ReplicaSets share: pkg/registry/apps/{deployment,replicaset}/strategy.go's
// PrepareForCreate and PrepareForUpdate (generation, empty status), the apps/v1 immutable selector
// (ValidateDeploymentUpdate / ValidateReplicaSetUpdate) and their ScaleREST.

export function nonNegative(value: unknown, field: string): FieldError[] {
  return typeof value === 'number' && value < 0
    ? [fieldErrors.invalid(field, value, 'must be greater than or equal to 0')]
    : [];
}

/** A Deployment or a ReplicaSet as decoded: what their shared rules read. */
type Workload = KubeObject & { spec?: WorkloadSpec };

/** ValidateDeploymentUpdate / ValidateReplicaSetUpdate: the selector is immutable in apps/v1. */
export function validateSelectorUpdate(next: Workload, current: Workload): FieldError[] {
  const selector = next.spec?.selector;
  const old = current.spec?.selector;
  return semanticEqual(selector, old)
    ? []
    : [
        fieldErrors.invalid(
          'spec.selector',
          goSyntax.labelSelector(selector),
          'field is immutable',
        ),
      ];
}

/**
 * Generation 1 on create, one more for each update that changes the spec (deployments: or the
 * annotations, which their ReplicaSets copy). A Scale writes spec.replicas through the same path.
 */
export function workloadStrategy<T extends Workload>(
  annotationsBumpGeneration: boolean,
  own: Pick<ResourceStrategy<T>, 'decode' | 'validate'> & { emptyStatus: () => unknown },
): ResourceStrategy<T> {
  const changed = (next: T, current: T) =>
    !semanticEqual(next.spec, current.spec) ||
    (annotationsBumpGeneration &&
      !semanticEqual(next.metadata.annotations, current.metadata.annotations));
  return {
    ...own,
    validateUpdate: validateSelectorUpdate,
    // A new workload has no status of its own (PrepareForCreate); Go writes the empty one.
    prepareForCreate(object) {
      object.metadata.generation = 1;
      const written: KubeObject = object;
      written['status'] = own.emptyStatus();
    },
    prepareForUpdate(next, current) {
      if (changed(next, current)) next.metadata.generation = (current.metadata.generation ?? 0) + 1;
    },
    scale: replicasScale,
  };
}
