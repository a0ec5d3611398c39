import {
  ApiError,
  fieldErrors,
  labelSelectorFromMetaV1,
  validateObjectMeta,
  type FieldError,
  type KubeObject,
  type LabelSelectorRequirement,
  type MetaLabelSelector,
} from '@listwatch/api';

import type { ReplicasPathMappings } from '../../fieldmanager/index.js';

// The autoscaling/v1 Scale subresource: pkg/registry/apps/deployment/storage/storage.go and
// replicaset/storage/storage.go (ScaleREST, scaleFromDeployment, scaleUpdatedObjectInfo) and
// pkg/apis/autoscaling/validation (ValidateScale).

/** The kind a scale subresource takes and returns, whatever its parent's group. */
export const SCALE_GVK = { group: 'autoscaling', version: 'v1', kind: 'Scale' } as const;

/** How one resource's objects look as a Scale, and take one back (each resource's ScaleREST). */
export interface ScaleStrategy {
  /** The object as a Scale (scaleFromDeployment); a selector that does not parse is a 400. */
  toScale(object: KubeObject): KubeObject;
  /** The object with what a Scale sets (spec.replicas); `object` is not changed. */
  withScale(object: KubeObject, scale: KubeObject): KubeObject;
  /**
   * The replicas path of each apiVersion of the parent, for the managedFields of a Scale write
   * (scalehandler.go ResourcePathMappings); without it, spec.replicas in the resource's own
   * apiVersion, as every built-in ScaleREST has it.
   */
  replicasPaths?: ReplicasPathMappings;
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/** spec.selector as a metav1.LabelSelector, or a 400 when it cannot be one. */
function metaLabelSelector(value: unknown): MetaLabelSelector | undefined {
  if (value === undefined || value === null) return undefined;
  const selector = record(value);
  const { matchLabels, matchExpressions } = selector;
  const labels = record(matchLabels);
  const valid =
    typeof value === 'object' &&
    !Array.isArray(value) &&
    Object.values(labels).every((v) => typeof v === 'string') &&
    (matchExpressions === undefined ||
      matchExpressions === null ||
      Array.isArray(matchExpressions));
  if (!valid) throw ApiError.badRequest('spec.selector is not a valid label selector');
  return {
    matchLabels: labels as Record<string, string>,
    matchExpressions: (Array.isArray(matchExpressions)
      ? matchExpressions
      : []) as LabelSelectorRequirement[],
  };
}

/** v1 defaulting gives spec.replicas 1 when a Deployment or ReplicaSet leaves it out. */
const DEFAULT_REPLICAS = 1;

/**
 * Deployments and ReplicaSets: spec.replicas, status.replicas, and spec.selector (a
 * metav1.LabelSelector) as the string `kubectl get --selector` takes. Go omits a zero
 * spec.replicas and an empty selector; status.replicas is always written.
 */
/**
 * The autoscaling/v1 Scale of `object`: its identity, the desired and current replicas and the
 * label selector as a string (a zero spec.replicas is omitted, as Go's omitempty).
 */
export function scaleOf(
  object: KubeObject,
  replicas: number,
  current: number,
  selector: string | undefined,
): KubeObject {
  const { name, namespace, uid, resourceVersion, creationTimestamp } = object.metadata;
  return {
    kind: SCALE_GVK.kind,
    apiVersion: `${SCALE_GVK.group}/${SCALE_GVK.version}`,
    metadata: {
      ...(name !== undefined ? { name } : {}),
      ...(namespace !== undefined ? { namespace } : {}),
      ...(uid !== undefined ? { uid } : {}),
      ...(resourceVersion !== undefined ? { resourceVersion } : {}),
      ...(creationTimestamp !== undefined ? { creationTimestamp } : {}),
    },
    spec: replicas !== 0 ? { replicas } : {},
    status: { replicas: current, ...(selector ? { selector } : {}) },
  };
}

export const replicasScale: ScaleStrategy = {
  toScale(object) {
    const spec = record(object['spec']);
    const status = record(object['status']);
    const replicas = typeof spec['replicas'] === 'number' ? spec['replicas'] : DEFAULT_REPLICAS;
    const current = typeof status['replicas'] === 'number' ? status['replicas'] : 0;
    const selector = labelSelectorFromMetaV1(metaLabelSelector(spec['selector'])).toString();
    return scaleOf(object, replicas, current, selector);
  },
  withScale(object, scale) {
    const replicas = record(scale['spec'])['replicas'];
    return {
      ...object,
      spec: { ...record(object['spec']), replicas: typeof replicas === 'number' ? replicas : 0 },
    };
  },
};

/** ValidateScale: the Scale's ObjectMeta, and spec.replicas not negative; 422 on Scale.autoscaling. */
export function validateScale(scale: KubeObject, namespaced: boolean): void {
  const errors: FieldError[] = validateObjectMeta(scale.metadata, {
    namespaced,
    nameRule: 'dns1123Subdomain',
  });
  const replicas = record(scale['spec'])['replicas'];
  if (typeof replicas === 'number' && replicas < 0)
    errors.push(
      fieldErrors.invalid('spec.replicas', replicas, 'must be greater than or equal to 0'),
    );
  if (errors.length)
    throw ApiError.invalid(
      { group: SCALE_GVK.group, kind: SCALE_GVK.kind },
      scale.metadata.name ?? '',
      errors,
    );
}
