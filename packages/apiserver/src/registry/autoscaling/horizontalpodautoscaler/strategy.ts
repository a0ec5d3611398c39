import { kindStrategy } from '../../kind-helpers.js';
import {
  DEFAULT_CPU_UTILIZATION,
  dropRoundTrip,
  hpaFromV1,
  hpaV1Storage,
  type HorizontalPodAutoscaler,
  type HorizontalPodAutoscalerV1,
  type ScalingRules,
} from './conversion.js';
import { validateSpec, validateUpdate } from './validation.js';

// HorizontalPodAutoscalers as kube-apiserver serves them: stored as autoscaling/v2 (the storage
// version), autoscaling/v1 a view of the same objects (conversion.ts);
// SetDefaults_HorizontalPodAutoscaler of pkg/apis/autoscaling/v2/defaults.go and v1/defaults.go;
// validation.ts; pkg/registry/autoscaling/horizontalpodautoscaler/strategy.go (status cleared on
// create, kept on update).

const SCALE_UP_RULES = (): ScalingRules => ({
  stabilizationWindowSeconds: 0,
  selectPolicy: 'Max',
  policies: [
    { type: 'Pods', value: 4, periodSeconds: 15 },
    { type: 'Percent', value: 100, periodSeconds: 15 },
  ],
});
const SCALE_DOWN_RULES = (): ScalingRules => ({
  selectPolicy: 'Max',
  policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }],
});

/** copyHPAScalingRules over GenerateHPAScaleUpRules / GenerateHPAScaleDownRules's defaults. */
function scalingRules(given: ScalingRules | undefined, defaults: ScalingRules): ScalingRules {
  if (!given) return defaults;
  const out = { ...defaults };
  if (given.selectPolicy !== undefined) out.selectPolicy = given.selectPolicy;
  if (given.stabilizationWindowSeconds !== undefined)
    out.stabilizationWindowSeconds = given.stabilizationWindowSeconds;
  if (given.policies !== undefined) out.policies = given.policies;
  if (given.tolerance !== undefined) out.tolerance = given.tolerance;
  return out;
}

/** SetDefaults_HorizontalPodAutoscaler (autoscaling/v2). */
function defaultV2(hpa: HorizontalPodAutoscaler): void {
  const spec = (hpa.spec ??= {});
  spec.minReplicas ??= 1;
  if (!spec.metrics?.length)
    spec.metrics = [
      {
        type: 'Resource',
        resource: {
          name: 'cpu',
          target: { type: 'Utilization', averageUtilization: DEFAULT_CPU_UTILIZATION },
        },
      },
    ];
  const { behavior } = spec;
  if (behavior) {
    behavior.scaleUp = scalingRules(behavior.scaleUp, SCALE_UP_RULES());
    behavior.scaleDown = scalingRules(behavior.scaleDown, SCALE_DOWN_RULES());
  }
}

/** autoscaling/v2, the storage version. */
export const horizontalPodAutoscalerStrategy = kindStrategy<HorizontalPodAutoscaler>({
  // HorizontalPodAutoscalerStatus{} (autoscaling/v2) as JSON: desiredReplicas, its one
  // non-omitempty number.
  status: () => ({ desiredReplicas: 0 }),
  decode(hpa) {
    // Convert_v2_HorizontalPodAutoscaler_To_autoscaling_HorizontalPodAutoscaler drops them.
    const annotations = dropRoundTrip(hpa);
    if (annotations) hpa.metadata.annotations = annotations;
    defaultV2(hpa);
  },
  validateCreate: (hpa) => validateSpec(hpa, 1),
  validateUpdate,
});

/**
 * autoscaling/v1: a view of the stored v2 objects. Its defaults are v1's (minReplicas 1);
 * validation runs on the object as stored, as kube validates the internal one.
 */
export const horizontalPodAutoscalerV1Strategy = kindStrategy<HorizontalPodAutoscalerV1>({
  status: () => ({ currentReplicas: 0, desiredReplicas: 0 }),
  decode(hpa) {
    (hpa.spec ??= {}).minReplicas ??= 1;
  },
  validateCreate: (hpa) => validateSpec(hpaFromV1(hpa), 1),
  validateUpdate: (next, current) => validateUpdate(hpaFromV1(next), hpaFromV1(current)),
  extra: { storage: hpaV1Storage },
});
