import { fieldErrors, type FieldError } from '@listwatch/api';
import type * as autoscalingv1 from 'kubernetes-types/autoscaling/v1.js';
import type * as corev1 from 'kubernetes-types/core/v1.js';
import { kindStrategy, nonNegative } from '../../kind-helpers.js';
import type { TypedObject } from '../../rest/typed-object.js';
import { defaultPodTemplate, validatePodTemplate } from '../pod/template.js';
import type { ScaleStrategy } from '../../autoscaling/scale.js';
import { replicasScale } from '../../autoscaling/scale.js';

// ReplicationControllers: pkg/registry/core/replicationcontroller/strategy.go,
// SetDefaults_ReplicationController (pkg/apis/core/v1/defaults.go) and
// ValidateReplicationController.

/** A ReplicationController as decoded (kubernetes-types' core/v1 ReplicationController). */
export type ReplicationController = TypedObject<corev1.ReplicationController>;
type ReplicationControllerSpec = NonNullable<ReplicationController['spec']>;

function templateLabels(spec: ReplicationControllerSpec): Record<string, string> | undefined {
  const labels = spec.template?.metadata?.labels;
  return labels && Object.keys(labels).length > 0 ? labels : undefined;
}

function decodeController(rc: ReplicationController): void {
  const spec = (rc.spec ??= {});
  // The selector and the labels default to the template's labels.
  const labels = templateLabels(spec);
  if (labels) {
    if (Object.keys(spec.selector ?? {}).length === 0) spec.selector = { ...labels };
    if (Object.keys(rc.metadata.labels ?? {}).length === 0) rc.metadata.labels = { ...labels };
  }
  spec.replicas ??= 1;
  if (spec.template) defaultPodTemplate(spec.template);
}

function validateController(rc: ReplicationController): FieldError[] {
  const spec = rc.spec ?? {};
  const selector = spec.selector ?? {};
  const errors: FieldError[] = [
    ...nonNegative(spec.replicas, 'spec.replicas'),
    ...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'),
  ];
  if (Object.keys(selector).length === 0) errors.push(fieldErrors.required('spec.selector', ''));
  // ValidatePodTemplateSpecForRC: a template is required and must match the selector.
  if (!spec.template) errors.push(fieldErrors.required('spec.template', ''));
  else {
    const labels = templateLabels(spec) ?? {};
    const matches = Object.entries(selector).every(([k, v]) => labels[k] === v);
    if (Object.keys(selector).length > 0 && !matches)
      errors.push(
        fieldErrors.invalid(
          'spec.template.metadata.labels',
          labels,
          '`selector` does not match template `labels`',
        ),
      );
    errors.push(...validatePodTemplate(spec.template, 'spec.template', ['Always']));
  }
  return errors;
}

/** A ReplicationController's selector is a plain map: the Scale's selector string is `k=v,…`. */
const controllerScale: ScaleStrategy = {
  toScale(object) {
    // The Store hands the scale subresource its stored ReplicationController.
    const spec = (object as ReplicationController).spec ?? {};
    const selector = Object.entries(spec.selector ?? {})
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
    const scale = replicasScale.toScale({
      ...object,
      spec: { replicas: spec.replicas },
    }) as TypedObject<autoscalingv1.Scale>;
    return {
      ...scale,
      status: { replicas: scale.status?.replicas, ...(selector ? { selector } : {}) },
    };
  },
  withScale: (rc, scale) => replicasScale.withScale(rc, scale),
};

export const replicationControllerStrategy = kindStrategy<ReplicationController>({
  generation: true,
  // ReplicationControllerStatus{} as JSON: its non-omitempty replica count.
  status: () => ({ replicas: 0 }),
  decode: decodeController,
  validate: validateController,
  extra: { scale: controllerScale },
});
