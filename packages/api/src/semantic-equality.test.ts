import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { semanticEqual } from './semantic-equality.js';

// k8s.io/apimachinery pkg/api/equality Semantic.DeepEqual, as it sees objects that went through
// JSON: nil and empty alike, key order irrelevant, values compared deeply.

describe('semanticEqual', () => {
  it('treats missing, null and empty maps, lists and strings as equal (Go nil and empty)', () => {
    expect(semanticEqual({ a: undefined }, { a: {} })).toBe(true);
    expect(semanticEqual({ a: null, b: [] }, { c: '' })).toBe(true);
    expect(semanticEqual({ a: 0 }, {})).toBe(false);
    expect(semanticEqual({ a: false }, {})).toBe(false);
  });

  it('ignores key order and compares lists in order', () => {
    expect(semanticEqual({ a: 1, b: { c: [1, 2] } }, { b: { c: [1, 2] }, a: 1 })).toBe(true);
    expect(semanticEqual({ c: [1, 2] }, { c: [2, 1] })).toBe(false);
  });

  it('is reflexive and symmetric on any JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        expect(semanticEqual(a, structuredClone(a))).toBe(true);
        expect(semanticEqual(a, b)).toBe(semanticEqual(b, a));
      }),
    );
  });
});
