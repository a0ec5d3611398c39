import { describe, expect, it } from 'vitest';
import { aggregateErrors } from './authorizer.js';

describe('aggregateErrors words errors as apimachinery utilerrors.NewAggregate does', () => {
  it('one error is its message alone, the same message twice is said once, several are bracketed', () => {
    expect(aggregateErrors([])).toBe('');
    expect(aggregateErrors(['role "a" not found'])).toBe('role "a" not found');
    expect(aggregateErrors(['x', 'x'])).toBe('x');
    expect(aggregateErrors(['x', 'y', 'x'])).toBe('[x, y]');
  });
});
