import { condition } from './naming-controller.js';
import {
  conditionOf,
  isConditionTrue,
  type CustomResourceDefinition,
  type CustomResourceDefinitionCondition,
} from './types.js';

/**
 * Established (pkg/controller/establish/establishing_controller.go): once the initial names are
 * accepted the CRD is established and stays so.
 */
export function establishedCondition(
  crd: CustomResourceDefinition,
  namesAccepted: boolean,
  now: string,
): CustomResourceDefinitionCondition {
  if (isConditionTrue(crd, 'Established')) return conditionOf(crd, 'Established')!;
  return namesAccepted
    ? condition(
        crd,
        'Established',
        'True',
        'InitialNamesAccepted',
        'the initial names have been accepted',
        now,
      )
    : condition(crd, 'Established', 'False', 'NotAccepted', 'not all names are accepted', now);
}
