import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from './api-error.js';
import { parseBool, tryParseBool } from './parse-bool.js';

// Go's strconv.ParseBool (strconv/atob.go).
describe('parseBool', () => {
  it.each(['1', 't', 'T', 'TRUE', 'true', 'True'])('%j is true', (value) => {
    expect(parseBool(value)).toBe(true);
  });

  it.each(['0', 'f', 'F', 'FALSE', 'false', 'False'])('%j is false', (value) => {
    expect(parseBool(value)).toBe(false);
  });

  it.each(['', 'yes', 'tRUE', 'truE', ' true', '2', 'on'])(
    '%j is a 400 with strconv.ParseBool wording',
    (value) => {
      expect(() => parseBool(value)).toThrow(
        new ApiError({
          code: 400,
          reason: 'BadRequest',
          message: `strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`,
        }),
      );
    },
  );

  it('any input is true, false or a 400 ApiError, never another exception', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.constantFrom('1', 't', 'T', 'TRUE', 'true', 'True', '0', 'f', 'False'),
        ),
        (value) => {
          try {
            expect(parseBool(value)).toBe(tryParseBool(value));
          } catch (err) {
            expect(err).toBeInstanceOf(ApiError);
            expect((err as ApiError).code).toBe(400);
            expect(tryParseBool(value)).toBeUndefined();
          }
        },
      ),
    );
  });

  it('a boolean printed as Go prints it parses back', () => {
    fc.assert(fc.property(fc.boolean(), (b) => parseBool(String(b)) === b));
  });
});
