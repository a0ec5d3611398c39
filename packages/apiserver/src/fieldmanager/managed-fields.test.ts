import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { managerIdentifier, nowTime, parseManagerIdentifier } from './managed-fields.js';

// BuildManagerIdentifier (k8s.io/apimachinery/pkg/util/managedfields/internal/managedfields.go):
// the entry without fields and time, as JSON.

const entries = fc.record(
  {
    manager: fc.string(),
    operation: fc.constantFrom('Apply' as const, 'Update' as const),
    apiVersion: fc.string(),
    subresource: fc.string(),
  },
  { requiredKeys: [] },
);

describe('manager identifiers', () => {
  it('an identifier is the JSON of the set manager, operation, apiVersion (not for Apply) and subresource, in that order', () => {
    fc.assert(
      fc.property(entries, (entry) => {
        const { manager, operation, apiVersion, subresource } = entry;
        expect(managerIdentifier(entry)).toBe(
          JSON.stringify({
            ...(manager ? { manager } : {}),
            ...(operation ? { operation } : {}),
            ...(apiVersion && operation !== 'Apply' ? { apiVersion } : {}),
            ...(subresource ? { subresource } : {}),
          }),
        );
      }),
    );
  });

  it('an identifier parses back to the entry it was built from, every time it is parsed', () => {
    fc.assert(
      fc.property(entries, (entry) => {
        const id = managerIdentifier(entry);
        const expected = JSON.parse(id) as unknown;
        expect(parseManagerIdentifier(id)).toEqual(expected);
        expect(parseManagerIdentifier(id)).toEqual(expected);
      }),
    );
    expect(parseManagerIdentifier('not json')).toEqual({ manager: 'not json' });
  });

  it('the time of a change is now, to the second, in RFC 3339 UTC', () => {
    const before = Math.floor(Date.now() / 1000) * 1000;
    const time = nowTime();
    const after = Date.now();
    expect(time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(Date.parse(time)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(time)).toBeLessThanOrEqual(after);
  });
});
