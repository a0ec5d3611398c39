import fc from 'fast-check';
import { ApiError } from '@listwatch/api';
import { describe, expect, it } from 'vitest';
import { CodecError } from './codec-error.js';
import { decodeObject, encodeObject, requestEncoding } from './object-codec.js';
import { jsonValue } from './testing/arbitraries.js';

describe('object bodies', () => {
  it('decodeObject(encodeObject(x)) equals x in both encodings', () => {
    fc.assert(
      fc.property(
        jsonValue,
        fc.constantFrom('json' as const, 'cbor' as const),
        (value, encoding) => {
          expect(decodeObject(encodeObject(value, encoding), encoding)).toEqual(value);
        },
      ),
    );
  });

  it('a malformed body is a CodecError', () => {
    expect(() => decodeObject('{', 'json')).toThrow(CodecError);
    expect(() => decodeObject(Uint8Array.of(0xa1), 'cbor')).toThrow(CodecError);
  });

  it('a request Content-Type picks the body encoding; none means JSON', () => {
    expect(requestEncoding(undefined)).toBe('json');
    expect(requestEncoding('application/json; charset=utf-8')).toBe('json');
    expect(requestEncoding('application/cbor')).toBe('cbor');
    expect(requestEncoding('application/vnd.kubernetes.protobuf')).toBe('protobuf');
  });

  it('a Content-Type that is not served is a 415 UnsupportedMediaType', () => {
    try {
      requestEncoding('application/yaml');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toMatchObject({
        code: 415,
        reason: 'UnsupportedMediaType',
      });
    }
  });
});
