import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CodecError } from './codec-error.js';
import { decodeJson, encodeJson } from './json.js';
import { jsonValue } from './testing/arbitraries.js';

describe('JSON', () => {
  it('decode(encode(x)) equals x for any JSON value', () => {
    fc.assert(
      fc.property(jsonValue, (value) => {
        expect(decodeJson(encodeJson(value))).toEqual(value);
      }),
    );
  });

  it('pretty output is indented like the apiserver pretty serializer', () => {
    expect(Buffer.from(encodeJson({ a: [1] }, { pretty: true })).toString()).toBe(
      '{\n  "a": [\n    1\n  ]\n}',
    );
  });

  it('a syntax error is a 400 CodecError at the given offset', () => {
    try {
      decodeJson('{"a":', 17);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(CodecError);
      expect((error as CodecError).offset).toBe(17);
      expect((error as CodecError).status).toMatchObject({ code: 400, reason: 'BadRequest' });
    }
  });

  it('random text never throws anything but CodecError', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        try {
          decodeJson(text);
        } catch (error) {
          expect(error).toBeInstanceOf(CodecError);
        }
      }),
    );
  });
});
