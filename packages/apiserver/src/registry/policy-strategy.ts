import { ApiError, fieldErrors, labelSelectorFromMetaV1, type FieldError } from '@listwatch/api';
import {
  child,
  defaultTo,
  intOrPercent,
  isRecord,
  kindStrategy,
  nonNegative,
  oneOf,
  recordAt,
} from './kind-helpers.js';

// PodDisruptionBudgets and HorizontalPodAutoscalers: pkg/registry/policy/poddisruptionbudget/
// strategy.go (status cleared, generation), pkg/registry/autoscaling/horizontalpodautoscaler/
// strategy.go (status cleared), SetDefaults_HorizontalPodAutoscaler (autoscaling/v1), and
// ValidatePodDisruptionBudget / ValidateHorizontalPodAutoscaler.

export const podDisruptionBudgetStrategy = kindStrategy({
  generation: true,
  // PodDisruptionBudgetStatus{} as JSON: its four non-omitempty counts.
  status: () => ({ disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 }),
  validate(budget) {
    const spec = recordAt(budget, 'spec');
    const errors: FieldError[] = [];
    if (spec['minAvailable'] != null && spec['maxUnavailable'] != null)
      errors.push(
        fieldErrors.invalid('spec', spec, 'minAvailable and maxUnavailable cannot be both set'),
      );
    errors.push(
      ...intOrPercent(spec['minAvailable'], 'spec.minAvailable'),
      ...intOrPercent(spec['maxUnavailable'], 'spec.maxUnavailable'),
      ...oneOf(spec['unhealthyPodEvictionPolicy'], 'spec.unhealthyPodEvictionPolicy', [
        'IfHealthyBudget',
        'AlwaysAllow',
      ]),
    );
    if (isRecord(spec['selector'])) {
      try {
        labelSelectorFromMetaV1(spec['selector']);
      } catch (error) {
        errors.push(
          fieldErrors.invalid(
            'spec.selector',
            spec['selector'],
            error instanceof ApiError ? error.message : 'invalid label selector',
          ),
        );
      }
    }
    return errors;
  },
});

export const horizontalPodAutoscalerStrategy = kindStrategy({
  // HorizontalPodAutoscalerStatus{} (autoscaling/v1) as JSON: its two non-omitempty counts.
  status: () => ({ currentReplicas: 0, desiredReplicas: 0 }),
  decode(hpa) {
    defaultTo(child(hpa, 'spec'), 'minReplicas', 1);
  },
  validate(hpa) {
    const spec = recordAt(hpa, 'spec');
    const ref = recordAt(spec, 'scaleTargetRef');
    const errors: FieldError[] = [];
    if (!ref['kind']) errors.push(fieldErrors.required('spec.scaleTargetRef.kind', ''));
    if (!ref['name']) errors.push(fieldErrors.required('spec.scaleTargetRef.name', ''));
    const min = spec['minReplicas'];
    const max = spec['maxReplicas'];
    if (typeof min === 'number' && min < 1)
      errors.push(
        fieldErrors.invalid('spec.minReplicas', min, 'must be greater than or equal to 1'),
      );
    if (typeof max !== 'number' || max < 1)
      errors.push(fieldErrors.invalid('spec.maxReplicas', max ?? 0, 'must be greater than 0'));
    else if (typeof min === 'number' && max < min)
      errors.push(
        fieldErrors.invalid(
          'spec.maxReplicas',
          max,
          'must be greater than or equal to `minReplicas`',
        ),
      );
    const cpu = spec['targetCPUUtilizationPercentage'];
    if (typeof cpu === 'number' && cpu < 1)
      errors.push(
        fieldErrors.invalid('spec.targetCPUUtilizationPercentage', cpu, 'must be greater than 0'),
      );
    return [
      ...errors,
      ...nonNegative(recordAt(hpa, 'status')['currentReplicas'], 'status.currentReplicas'),
    ];
  },
});
