import type { KubeObject } from '@listwatch/api';
import { replicasScale } from './scale.js';
import type { ResourceStrategy } from './strategy.js';

// The apps/v1 workload strategies: k8s.io/kubernetes pkg/registry/apps/deployment/strategy.go and
// replicaset/strategy.go (PrepareForCreate, PrepareForUpdate) and their ScaleREST.

function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && Object.keys(value).length === 0;
}

/**
 * apiequality.Semantic.DeepEqual on JSON: key order does not matter, and a missing, null or
 * empty map, list or string are alike (Go's nil and empty, omitempty).
 */
export function semanticEqual(a: unknown, b: unknown): boolean {
  if (isEmpty(a) && isEmpty(b)) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => semanticEqual(item, b[i]));
  }
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null) {
    const left = a as Record<string, unknown>;
    const right = b as Record<string, unknown>;
    const keys = new Set([...Object.keys(left), ...Object.keys(right)]);
    for (const key of keys) if (!semanticEqual(left[key], right[key])) return false;
    return true;
  }
  return a === b;
}

/**
 * Generation 1 on create, one more for each update that changes the spec (deployments: or the
 * annotations, which their ReplicaSets copy). A Scale writes spec.replicas through the same path.
 */
function workloadStrategy(annotationsBumpGeneration: boolean): ResourceStrategy {
  const changed = (next: KubeObject, current: KubeObject) =>
    !semanticEqual(next['spec'], current['spec']) ||
    (annotationsBumpGeneration &&
      !semanticEqual(next.metadata.annotations, current.metadata.annotations));
  return {
    prepareForCreate(object) {
      object.metadata.generation = 1;
    },
    prepareForUpdate(next, current) {
      if (changed(next, current)) next.metadata.generation = (current.metadata.generation ?? 0) + 1;
    },
    scale: replicasScale,
  };
}

export const deploymentStrategy: ResourceStrategy = {
  ...workloadStrategy(true),
  // deploymentStatusStrategy.PrepareForUpdate keeps only spec and labels: the controller sets
  // the deployment.kubernetes.io/revision annotation with its status write.
  prepareForStatusUpdate(result, sent) {
    const { annotations } = sent.metadata;
    if (annotations && Object.keys(annotations).length > 0)
      result.metadata.annotations = { ...annotations };
    else delete result.metadata.annotations;
  },
};
export const replicaSetStrategy = workloadStrategy(false);
