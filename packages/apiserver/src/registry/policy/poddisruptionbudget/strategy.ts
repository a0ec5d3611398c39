import {
  ApiError,
  fieldErrors,
  labelSelectorFromMetaV1,
  type FieldError,
  type MetaLabelSelector,
} from '@listwatch/api';
import type * as policyv1 from 'kubernetes-types/policy/v1.js';
import { intOrPercent, kindStrategy, oneOf } from '../../kind-helpers.js';
import type { TypedObject } from '../../rest/typed-object.js';

// PodDisruptionBudgets: pkg/registry/policy/poddisruptionbudget/strategy.go (status cleared,
// generation) and ValidatePodDisruptionBudget (HorizontalPodAutoscalers: autoscaling/horizontalpodautoscaler/validation.ts).

/** A PodDisruptionBudget as decoded (kubernetes-types' policy/v1 PodDisruptionBudget). */
export type PodDisruptionBudget = TypedObject<policyv1.PodDisruptionBudget>;

function validateBudget(budget: PodDisruptionBudget): FieldError[] {
  const spec = budget.spec ?? {};
  const errors: FieldError[] = [];
  if (spec.minAvailable !== undefined && spec.maxUnavailable !== undefined)
    errors.push(
      fieldErrors.invalid('spec', spec, 'minAvailable and maxUnavailable cannot be both set'),
    );
  errors.push(
    ...intOrPercent(spec.minAvailable, 'spec.minAvailable'),
    ...intOrPercent(spec.maxUnavailable, 'spec.maxUnavailable'),
    ...oneOf(spec.unhealthyPodEvictionPolicy, 'spec.unhealthyPodEvictionPolicy', [
      'IfHealthyBudget',
      'AlwaysAllow',
    ]),
  );
  if (spec.selector) {
    try {
      // LabelSelectorAsSelector checks the operators the decoded type leaves as strings.
      labelSelectorFromMetaV1(spec.selector as MetaLabelSelector);
    } catch (error) {
      errors.push(
        fieldErrors.invalid(
          'spec.selector',
          spec.selector,
          error instanceof ApiError ? error.message : 'invalid label selector',
        ),
      );
    }
  }
  return errors;
}

export const podDisruptionBudgetStrategy = kindStrategy<PodDisruptionBudget>({
  generation: true,
  // PodDisruptionBudgetStatus{} as JSON: its four non-omitempty counts.
  status: () => ({ disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 }),
  validate: validateBudget,
});
