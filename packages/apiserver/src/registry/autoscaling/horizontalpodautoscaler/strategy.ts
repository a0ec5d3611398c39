import { isRecord, type KubeObject } from '@listwatch/api';
import { child, defaultTo, kindStrategy, listAt, type Json } from '../../kind-helpers.js';
import {
  DEFAULT_CPU_UTILIZATION,
  dropRoundTrip,
  hpaFromV1,
  hpaV1Storage,
  set,
} from './conversion.js';
import { validateSpec, validateUpdate } from './validation.js';

// HorizontalPodAutoscalers as kube-apiserver serves them: stored as autoscaling/v2 (the storage
// version), autoscaling/v1 a view of the same objects (conversion.ts);
// SetDefaults_HorizontalPodAutoscaler of pkg/apis/autoscaling/v2/defaults.go and v1/defaults.go;
// validation.ts; pkg/registry/autoscaling/horizontalpodautoscaler/strategy.go (status cleared on
// create, kept on update).

const SCALE_UP_RULES = () => ({
  stabilizationWindowSeconds: 0,
  selectPolicy: 'Max',
  policies: [
    { type: 'Pods', value: 4, periodSeconds: 15 },
    { type: 'Percent', value: 100, periodSeconds: 15 },
  ],
});
const SCALE_DOWN_RULES = () => ({
  selectPolicy: 'Max',
  policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }],
});

/** copyHPAScalingRules over GenerateHPAScaleUpRules / GenerateHPAScaleDownRules's defaults. */
function scalingRules(given: unknown, defaults: Json): Json {
  if (!isRecord(given)) return defaults;
  const out = { ...defaults };
  for (const key of ['selectPolicy', 'stabilizationWindowSeconds', 'policies', 'tolerance'])
    if (set(given[key])) out[key] = given[key];
  return out;
}

/** SetDefaults_HorizontalPodAutoscaler (autoscaling/v2). */
function defaultV2(hpa: KubeObject): void {
  const spec = child(hpa, 'spec');
  defaultTo(spec, 'minReplicas', 1);
  if (listAt(spec, 'metrics').length === 0)
    spec['metrics'] = [
      {
        type: 'Resource',
        resource: {
          name: 'cpu',
          target: { type: 'Utilization', averageUtilization: DEFAULT_CPU_UTILIZATION },
        },
      },
    ];
  const behavior = spec['behavior'];
  if (isRecord(behavior)) {
    behavior['scaleUp'] = scalingRules(behavior['scaleUp'], SCALE_UP_RULES());
    behavior['scaleDown'] = scalingRules(behavior['scaleDown'], SCALE_DOWN_RULES());
  }
}

/** autoscaling/v2, the storage version. */
export const horizontalPodAutoscalerStrategy = kindStrategy({
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
export const horizontalPodAutoscalerV1Strategy = kindStrategy({
  status: () => ({ currentReplicas: 0, desiredReplicas: 0 }),
  decode(hpa) {
    defaultTo(child(hpa, 'spec'), 'minReplicas', 1);
  },
  validateCreate: (hpa) => validateSpec(hpaFromV1(hpa), 1),
  validateUpdate: (next, current) => validateUpdate(hpaFromV1(next), hpaFromV1(current)),
  extra: { storage: hpaV1Storage },
});
