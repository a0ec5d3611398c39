import { ApiError } from './api-error.js';
import { newLabelRequirement, type LabelSelectorOperator } from './label-requirement.js';
import { LabelSelector } from './label-selector.js';

// The label selectors objects carry (metav1.LabelSelector in a Deployment's `spec.selector`, a
// Service's selector map) as LabelSelectors: k8s.io/apimachinery pkg/apis/meta/v1/helpers.go
// LabelSelectorAsSelector and pkg/labels/labels.go ValidatedSelectorFromSet.

/** metav1.LabelSelectorRequirement. */
export interface LabelSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values?: string[];
}

/** metav1.LabelSelector, as Deployments and ReplicaSets carry it in `spec.selector`. */
export interface MetaLabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

/** labels.ValidatedSelectorFromSet: `k1=v1,k2=v2`; an empty set selects everything. */
export function labelSelectorFromMatchLabels(
  matchLabels: Readonly<Record<string, string>> | undefined,
): LabelSelector {
  return LabelSelector.fromRequirements(
    Object.entries(matchLabels ?? {}).map(([key, value]) => newLabelRequirement(key, '=', [value])),
  );
}

const EXPRESSION_OPERATORS: Readonly<Record<string, LabelSelectorOperator>> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
};

/**
 * metav1.LabelSelectorAsSelector: matchLabels and matchExpressions AND-ed together. A missing
 * selector matches nothing, an empty one everything; invalid content is a 400 BadRequest.
 */
export function labelSelectorFromMetaV1(
  selector: MetaLabelSelector | null | undefined,
): LabelSelector {
  if (selector === null || selector === undefined) return LabelSelector.nothing();
  const expressions = selector.matchExpressions ?? [];
  const requirements = Object.entries(selector.matchLabels ?? {}).map(([key, value]) =>
    newLabelRequirement(key, '=', [value]),
  );
  for (const expression of expressions) {
    const operator = Object.prototype.hasOwnProperty.call(EXPRESSION_OPERATORS, expression.operator)
      ? EXPRESSION_OPERATORS[expression.operator]
      : undefined;
    if (operator === undefined) {
      throw ApiError.badRequest(
        `${JSON.stringify(expression.operator)} is not a valid label selector operator`,
      );
    }
    requirements.push(newLabelRequirement(expression.key, operator, expression.values ?? []));
  }
  return LabelSelector.fromRequirements(requirements);
}
