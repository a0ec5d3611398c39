import {
  ApiError,
  fieldErrors,
  isRecord,
  labelSelectorFromMetaV1,
  type FieldError,
} from '@listwatch/api';
import { intOrPercent, kindStrategy, oneOf, recordAt } from '../../kind-helpers.js';

// PodDisruptionBudgets: pkg/registry/policy/poddisruptionbudget/strategy.go (status cleared,
// generation) and ValidatePodDisruptionBudget (HorizontalPodAutoscalers: autoscaling/horizontalpodautoscaler/validation.ts).

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
