import type { Condition } from 'kubernetes-types/meta/v1.js';
import { metaV1Time } from '@listwatch/api';

/** A condition to set: lastTransitionTime may be left out (then: now, when the status changes). */
export type ConditionInput = Omit<Condition, 'lastTransitionTime'> & {
  lastTransitionTime?: string | undefined;
};

/** metav1.Time: RFC 3339 to the second. */
function nowTime(now: () => Date): string {
  return metaV1Time(now().getTime());
}

/**
 * Sets `condition` in `conditions`, in place (apimachinery pkg/api/meta/conditions.go
 * SetStatusCondition); true when anything changed. lastTransitionTime moves only when the
 * status changes (to the given time, else now); reason, message and observedGeneration are
 * always taken.
 */
export function setStatusCondition(
  conditions: Condition[],
  condition: ConditionInput,
  now: () => Date = () => new Date(),
): boolean {
  const existing = conditions.find((c) => c.type === condition.type);
  if (!existing) {
    conditions.push({
      ...condition,
      lastTransitionTime: condition.lastTransitionTime || nowTime(now),
    });
    return true;
  }
  let changed = false;
  if (existing.status !== condition.status) {
    existing.status = condition.status;
    existing.lastTransitionTime = condition.lastTransitionTime || nowTime(now);
    changed = true;
  }
  if (existing.reason !== condition.reason) {
    existing.reason = condition.reason;
    changed = true;
  }
  if (existing.message !== condition.message) {
    existing.message = condition.message;
    changed = true;
  }
  if (existing.observedGeneration !== condition.observedGeneration) {
    if (condition.observedGeneration === undefined) delete existing.observedGeneration;
    else existing.observedGeneration = condition.observedGeneration;
    changed = true;
  }
  return changed;
}

/** Removes the condition of `type`, in place; true when there was one (RemoveStatusCondition). */
export function removeStatusCondition(conditions: Condition[], type: string): boolean {
  const i = conditions.findIndex((c) => c.type === type);
  if (i < 0) return false;
  conditions.splice(i, 1);
  return true;
}

/** FindStatusCondition. */
export function findStatusCondition(
  conditions: readonly Condition[] | undefined,
  type: string,
): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

/** IsStatusConditionTrue. */
export function isStatusConditionTrue(
  conditions: readonly Condition[] | undefined,
  type: string,
): boolean {
  return findStatusCondition(conditions, type)?.status === 'True';
}

/** IsStatusConditionFalse. */
export function isStatusConditionFalse(
  conditions: readonly Condition[] | undefined,
  type: string,
): boolean {
  return findStatusCondition(conditions, type)?.status === 'False';
}

/** IsStatusConditionPresentAndEqual. */
export function isStatusConditionPresentAndEqual(
  conditions: readonly Condition[] | undefined,
  type: string,
  status: string,
): boolean {
  return findStatusCondition(conditions, type)?.status === status;
}
