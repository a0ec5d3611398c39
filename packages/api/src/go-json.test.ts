import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { goJsonMarshal } from './go-json.js';

describe('goJsonMarshal (encoding/json Marshal with escapeHTML)', () => {
  it('writes <, >, &, U+2028 and U+2029 as \\u escapes, as Go does (encode_test.go TestHTMLEscape)', () => {
    expect(goJsonMarshal('<a href="x&y">\u2028\u2029</a>')).toBe(
      '"\\u003ca href=\\"x\\u0026y\\"\\u003e\\u2028\\u2029\\u003c/a\\u003e"',
    );
  });

  it('any JSON value reads back equal, and its text has none of the HTML-unsafe characters', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = goJsonMarshal(value);
        expect(text).not.toMatch(/[<>&\u2028\u2029]/);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });
});
