import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeCbor, encodeCbor, encodeCborItem, encodeCborWatchEvent } from './cbor.js';
import { CodecError } from './codec-error.js';
import { jsonValue } from './testing/arbitraries.js';
import { samplePod } from '@listwatch/testing';

/** Builds CBOR by hand, the way a Go (fxamacker/cbor) encoder in Kubernetes writes it. */
function bytes(...parts: (number | string | Uint8Array)[]): Uint8Array {
  const out: number[] = [];
  for (const part of parts) {
    if (typeof part === 'number') out.push(part);
    else if (typeof part === 'string') out.push(...Buffer.from(part, 'utf8'));
    else out.push(...part);
  }
  return Uint8Array.from(out);
}

describe('CBOR (KEP-4222)', () => {
  it('every document starts with the self-described CBOR tag d9 d9 f7', () => {
    expect([...encodeCbor({ kind: 'Pod' }).subarray(0, 3)]).toEqual([0xd9, 0xd9, 0xf7]);
    expect([
      ...encodeCborWatchEvent({ type: 'ADDED', object: samplePod(1) }).subarray(0, 3),
    ]).toEqual([0xd9, 0xd9, 0xf7]);
  });

  it('a list item is encoded without the tag', () => {
    expect(encodeCborItem({ a: 1 })[0]).toBe(0xa1);
  });

  it('output is plain RFC 8949: text-string keys, shortest headers, no cbor-x record tags', () => {
    expect(Buffer.from(encodeCbor({ a: 1, b: 'x', c: [true, null] })).toString('hex')).toBe(
      'd9d9f7' + 'a3' + '6161' + '01' + '6162' + '6178' + '6163' + '82f5f6',
    );
  });

  it('decode(encode(x)) equals x for any JSON value', () => {
    fc.assert(
      fc.property(jsonValue, (value) => {
        expect(decodeCbor(encodeCbor(value))).toEqual(value);
      }),
    );
  });

  it('64-bit integers decode to numbers, as JSON.parse gives them', () => {
    expect(decodeCbor(bytes(0x1b, 0, 0, 0, 1, 0, 0, 0, 0))).toBe(4294967296);
    expect(decodeCbor(bytes(0x3b, 0, 0, 0, 1, 0, 0, 0, 0))).toBe(-4294967297);
  });

  it('byte-string keys and values, as Kubernetes writes strings, decode to strings', () => {
    // {"kind": "Pod"} with both as byte strings, inside the self-described tag.
    const go = bytes(0xd9, 0xd9, 0xf7, 0xa1, 0x44, 'kind', 0x43, 'Pod');
    expect(decodeCbor(go)).toEqual({ kind: 'Pod' });
  });

  it('a byte string under tag 22 (expected base64) decodes to its base64 text, as in JSON', () => {
    // Secret.data: {"data": 22(h'68656c6c6f')}
    const go = bytes(0xa1, 0x44, 'data', 0xd6, 0x45, 'hello');
    expect(decodeCbor(go)).toEqual({ data: Buffer.from('hello').toString('base64') });
  });

  it('unrecognized tags decode to their content (Kubernetes UnrecognizedTagContentToAny)', () => {
    expect(decodeCbor(bytes(0xa1, 0x61, 'a', 0xd8, 0x64, 0x05))).toEqual({ a: 5 });
  });

  it('indefinite-length arrays and maps are accepted', () => {
    expect(decodeCbor(bytes(0xbf, 0x61, 'a', 0x9f, 0x01, 0x02, 0xff, 0xff))).toEqual({ a: [1, 2] });
  });

  it('undefined decodes to null', () => {
    expect(decodeCbor(bytes(0x82, 0xf7, 0x01))).toEqual([null, 1]);
  });

  it.each([
    ['a non-string map key', bytes(0xa1, 0x01, 0x02)],
    ['NaN', bytes(0xf9, 0x7e, 0x00)],
    ['Infinity', bytes(0xfb, 0x7f, 0xf0, 0, 0, 0, 0, 0, 0)],
    ['an unassigned simple value', bytes(0xe0)],
    ['an indefinite-length string', bytes(0x7f, 0x61, 'a', 0xff)],
    ['a stray break', bytes(0xff)],
    ['a reserved additional-information value', bytes(0x1c)],
    ['a truncated item', bytes(0x82, 0x01)],
    ['data after the item', bytes(0x01, 0x02)],
  ])('%s is a CodecError', (_, input) => {
    expect(() => decodeCbor(input)).toThrow(CodecError);
  });

  it('nesting deeper than the limit is a CodecError, not a stack overflow', () => {
    const deep = new Uint8Array(100_000).fill(0x81);
    const error = (() => {
      try {
        decodeCbor(deep);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(CodecError);
    expect((error as CodecError).message).toMatch(/nested deeper/);
  });

  it('errors name the byte offset of the offending header', () => {
    try {
      decodeCbor(bytes(0x83, 0x01, 0x02, 0xe0));
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(CodecError);
      expect((error as CodecError).offset).toBe(3);
      expect((error as CodecError).status).toMatchObject({ code: 400, reason: 'BadRequest' });
    }
  });

  it('random bytes never throw anything but CodecError', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (input) => {
        try {
          decodeCbor(input);
        } catch (error) {
          expect(error).toBeInstanceOf(CodecError);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
