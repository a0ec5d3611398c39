import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodedFieldSet } from './decoded-fields.js';
import { FieldSet, type PathElement } from './fieldpath.js';
import { fieldsV1ToSet, setToFieldsV1, setToJson } from './fields-v1.js';
import { decodeManagedFields, encodeManagedFields, type Managed } from './managed-fields.js';

// managedFields kept decoded (decoded-fields.ts): a FieldsV1 decoded once serves every equal
// one, and nothing a write does with the decoded sets changes what the next write decodes.

const element: fc.Arbitrary<PathElement> = fc.oneof(
  fc.constantFrom('data', 'metadata', 'labels', 'spec', 'name').map((field) => ({ field })),
  fc
    .constantFrom<{ name: string; value: string | number }[]>(
      [{ name: 'name', value: 'first' }],
      [
        { name: 'port', value: 443 },
        { name: 'protocol', value: 'TCP' },
      ],
    )
    .map((key) => ({ key })),
  fc.oneof(fc.integer({ min: -3, max: 3 }), fc.constantFrom('a', true)).map((value) => ({ value })),
  fc.integer({ min: 0, max: 3 }).map((index) => ({ index })),
);
const fieldSets = fc
  .array(fc.array(element, { minLength: 1, maxLength: 4 }), { maxLength: 20 })
  .map((paths) => FieldSet.of(...paths));

const managedOf = fc
  .array(
    fc.record({
      manager: fc.constantFrom('kubectl', 'kube-controller-manager', 'bench', 'a"b'),
      applied: fc.boolean(),
      apiVersion: fc.constantFrom('v1', 'apps/v1'),
      second: fc.integer({ min: 0, max: 3 }),
      set: fieldSets,
    }),
    { maxLength: 4 },
  )
  .map((entries): Managed => {
    const managed: Managed = { fields: new Map(), times: new Map() };
    for (const e of entries) {
      const id = JSON.stringify({
        manager: e.manager,
        operation: e.applied ? 'Apply' : 'Update',
        ...(e.applied ? {} : { apiVersion: e.apiVersion }),
      });
      if (e.set.empty()) continue;
      managed.fields.set(id, { set: e.set, apiVersion: e.apiVersion, applied: e.applied });
      managed.times.set(id, `2026-12-02T13:00:0${e.second}Z`);
    }
    return managed;
  });

describe('managedFields kept decoded', () => {
  it('a FieldsV1 decodes to what fieldsV1ToSet makes of it, through the same object or an equal one, every time', () => {
    fc.assert(
      fc.property(fieldSets, (set) => {
        const text = setToJson(set);
        const a = JSON.parse(text) as object;
        const b = JSON.parse(text) as object;
        for (const fields of [a, b, a, b]) {
          const decoded = decodedFieldSet(fields);
          expect(decoded.equals(fieldsV1ToSet(JSON.parse(text)))).toBe(true);
          expect(setToJson(decoded)).toBe(text);
        }
      }),
    );
  });

  it('decoding managedFields and encoding them again gives the previous encoding, the second time as the first', () => {
    fc.assert(
      fc.property(managedOf, (managed) => {
        const entries = encodeManagedFields(managed) ?? [];
        const stored = JSON.stringify(entries);
        for (let i = 0; i < 2; i++) {
          const again = encodeManagedFields(decodeManagedFields(JSON.parse(stored) as unknown[]));
          expect(JSON.stringify(again ?? [])).toBe(stored);
        }
      }),
    );
  });

  it('what a write makes of decoded sets (union, difference) never changes the next decode', () => {
    fc.assert(
      fc.property(fieldSets, fieldSets, (set, other) => {
        const fields = setToFieldsV1(set);
        const text = JSON.stringify(fields);
        const decoded = decodedFieldSet(fields);
        decoded.union(other);
        decoded.difference(other);
        other.union(decoded).difference(decoded);
        expect(setToJson(decodedFieldSet(fields))).toBe(text);
        expect(setToJson(decodedFieldSet(JSON.parse(text)))).toBe(text);
      }),
    );
  });

  it('a FieldsV1 that does not decode fails every time it is read, not only the first', () => {
    const bad = { 'f:spec': 'not an object' };
    expect(() => decodedFieldSet(bad)).toThrow(/not an object/);
    expect(() => decodedFieldSet(bad)).toThrow(/not an object/);
    expect(() => decodedFieldSet({ ...bad })).toThrow(/not an object/);
  });
});
