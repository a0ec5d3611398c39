import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FieldSet, type PathElement } from './fieldpath.js';
import { fieldsV1ToSet, serializePathElement, setToJson } from './fields-v1.js';

// Cases from structured-merge-diff fieldpath/serialize_test.go (TestSerializeV1GoldenData,
// TestDeserializeForValidNonNormalized, TestSerializeV1), copied into testdata.
const cases = JSON.parse(
  readFileSync(new URL('./testdata/serialize_test.json', import.meta.url), 'utf8'),
) as { golden: string[]; nonNormalized: { input: string; normalized: string }[] };

const roundTrip = (text: string) => setToJson(fieldsV1ToSet(JSON.parse(text)));

describe('FieldsV1 (fieldpath/serialize.go)', () => {
  it.each(cases.golden.map((text, i) => [i, text] as const))(
    'TestSerializeV1GoldenData case %i reads and writes back byte for byte',
    (_i, text) => {
      expect(roundTrip(text)).toBe(text);
    },
  );

  it.each(cases.nonNormalized.map((c, i) => [i, c] as const))(
    'TestDeserializeForValidNonNormalized case %i writes the normalized form',
    (_i, { input, normalized }) => {
      expect(roundTrip(input)).toBe(normalized);
      expect(fieldsV1ToSet(JSON.parse(input)).equals(fieldsV1ToSet(JSON.parse(normalized)))).toBe(
        true,
      );
    },
  );

  it('writes a key with HTML characters escaped as encoding/json does', () => {
    expect(serializePathElement({ key: [{ name: 'name', value: 'a<b>&c' }] })).toBe(
      'k:{"name":"a\\u003cb\\u003e\\u0026c"}',
    );
  });

  it('a field that is a member and has children is written with "." inside', () => {
    const set = FieldSet.of(
      [{ field: 'spec' }],
      [{ field: 'spec' }, { field: 'replicas' }],
      [{ field: 'metadata' }, { field: 'labels' }, { field: 'app' }],
    );
    expect(setToJson(set)).toBe(
      '{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{".":{},"f:replicas":{}}}',
    );
  });

  // TestSerializeV1: random sets survive a round trip.
  const element: fc.Arbitrary<PathElement> = fc.oneof(
    fc.constantFrom('aaa', 'aab', 'aac', 'spec', 'name').map((field) => ({ field })),
    fc
      .constantFrom<{ name: string; value: string | number }[]>(
        [{ name: 'name', value: 'first' }],
        [{ name: 'name', value: 'second' }],
        [
          { name: 'port', value: 443 },
          { name: 'protocol', value: 'tcp' },
        ],
      )
      .map((key) => ({ key })),
    fc.oneof(fc.integer({ min: -5, max: 5 }), fc.constantFrom('aa', 'ab', true)).map((value) => ({
      value,
    })),
    fc.integer({ min: 0, max: 4 }).map((index) => ({ index })),
  );
  it('any set reads back equal from what it writes (TestSerializeV1)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(element, { minLength: 2, maxLength: 5 }), { maxLength: 50 }),
        (paths) => {
          const set = FieldSet.of(...paths);
          const text = setToJson(set);
          const back = fieldsV1ToSet(JSON.parse(text));
          expect(back.equals(set)).toBe(true);
          expect(setToJson(back)).toBe(text);
        },
      ),
    );
  });
});

describe('path element order (fieldpath/element.go Compare, Go strings.Compare)', () => {
  it('orders field names by their UTF-8 bytes, as Go compares strings', async () => {
    const { compareStrings } = await import('./fieldpath.js');
    const strings = fc.string({ unit: 'binary', maxLength: 6 });
    fc.assert(
      fc.property(strings, strings, (a, b) => {
        const bytes = Math.sign(Buffer.compare(Buffer.from(a), Buffer.from(b)));
        expect(Math.sign(compareStrings(a, b))).toBe(bytes);
      }),
    );
  });
});
