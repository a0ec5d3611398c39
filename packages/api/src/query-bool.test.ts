import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { queryBool } from './query-bool.js';

/** Each letter of "false" in upper or lower case, as the booleans pick. */
const anyCaseFalse = fc
  .array(fc.boolean(), { minLength: 5, maxLength: 5 })
  .map((upper) => [...'false'].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join(''));

const isFalseSpelling = (value: string): boolean =>
  value === '0' || value.toLowerCase() === 'false' || /^fal[sſ]e$/i.test(value);

// apimachinery's runtime.Convert_Slice_string_To_bool, which decodes query booleans.
describe('queryBool', () => {
  it('an absent parameter is false', () => {
    expect(queryBool(null)).toBe(false);
    expect(queryBool(undefined)).toBe(false);
    expect(queryBool([])).toBe(false);
  });

  it.each(['0', 'false', 'FALSE', 'False', 'fAlSe', 'falſe'])('%j is false', (value) => {
    expect(queryBool(value)).toBe(false);
  });

  it.each([
    '',
    'true',
    '1',
    'yes',
    'no',
    'f',
    'F',
    'off',
    '00',
    ' false',
    'false ',
    'falsey',
    '-0',
  ])('%j is true, the empty string (a bare `?watch`) included', (value) => {
    expect(queryBool(value)).toBe(true);
  });

  it('any string but `0` and `false` in any case is true', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('', 'true', 'f')),
        (value) => {
          fc.pre(!isFalseSpelling(value));
          expect(queryBool(value)).toBe(true);
        },
      ),
    );
  });

  it('`false` in any case, and `0`, is false', () => {
    fc.assert(
      fc.property(fc.oneof(anyCaseFalse, fc.constant('0')), (value) => {
        expect(queryBool(value)).toBe(false);
      }),
    );
  });

  it('a repeated parameter is decided by its first value, as URLSearchParams.get reads it', () => {
    fc.assert(
      fc.property(fc.array(fc.string(), { minLength: 1 }), (values) => {
        const query = new URLSearchParams(values.map((v): [string, string] => ['watch', v]));
        expect(queryBool(query.getAll('watch'))).toBe(queryBool(values[0]));
        expect(queryBool(query.get('watch'))).toBe(queryBool(values[0]));
      }),
    );
  });
});
