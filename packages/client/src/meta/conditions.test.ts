import type { Condition } from 'kubernetes-types/meta/v1.js';
import { describe, expect, it } from 'vitest';
import {
  findStatusCondition,
  isStatusConditionFalse,
  isStatusConditionTrue,
  removeStatusCondition,
  setStatusCondition,
} from './conditions.js';

const at = (iso: string) => () => new Date(iso);

// apimachinery pkg/api/meta/conditions.go.
describe('status conditions', () => {
  it('setStatusCondition adds a new condition with lastTransitionTime now (to the second)', () => {
    const conditions: Condition[] = [];
    const changed = setStatusCondition(
      conditions,
      { type: 'Ready', status: 'False', reason: 'Creating', message: 'creating' },
      at('2026-01-01T00:00:00.123Z'),
    );
    expect(changed).toBe(true);
    expect(conditions).toEqual([
      {
        type: 'Ready',
        status: 'False',
        reason: 'Creating',
        message: 'creating',
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
    ]);
  });

  it('lastTransitionTime moves only when the status changes; reason, message and observedGeneration always follow', () => {
    const conditions: Condition[] = [];
    setStatusCondition(
      conditions,
      { type: 'Ready', status: 'False', reason: 'A', message: 'a' },
      at('2026-01-01T00:00:00Z'),
    );
    const same = {
      type: 'Ready',
      status: 'False',
      reason: 'B',
      message: 'b',
      observedGeneration: 2,
    };
    expect(setStatusCondition(conditions, same, at('2026-01-02T00:00:00Z'))).toBe(true);
    expect(conditions[0]).toMatchObject({
      reason: 'B',
      observedGeneration: 2,
      lastTransitionTime: '2026-01-01T00:00:00Z',
    });
    expect(setStatusCondition(conditions, same, at('2026-01-03T00:00:00Z'))).toBe(false);
    const flipped = { ...same, status: 'True' };
    expect(setStatusCondition(conditions, flipped, at('2026-01-04T00:00:00Z'))).toBe(true);
    expect(conditions[0]!.lastTransitionTime).toBe('2026-01-04T00:00:00Z');
    // A given lastTransitionTime wins over now.
    setStatusCondition(conditions, { ...same, lastTransitionTime: '2025-12-31T00:00:00Z' });
    expect(conditions[0]!.lastTransitionTime).toBe('2025-12-31T00:00:00Z');
  });

  it('find, isTrue, isFalse and remove read and drop a condition by type', () => {
    const conditions: Condition[] = [];
    setStatusCondition(conditions, { type: 'Ready', status: 'True', reason: 'Ok', message: '' });
    expect(findStatusCondition(conditions, 'Ready')?.reason).toBe('Ok');
    expect(isStatusConditionTrue(conditions, 'Ready')).toBe(true);
    expect(isStatusConditionFalse(conditions, 'Ready')).toBe(false);
    expect(isStatusConditionTrue(conditions, 'Missing')).toBe(false);
    expect(removeStatusCondition(conditions, 'Ready')).toBe(true);
    expect(removeStatusCondition(conditions, 'Ready')).toBe(false);
    expect(conditions).toEqual([]);
  });
});
