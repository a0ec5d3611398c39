import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeCbor, encodeCbor } from './cbor.js';
import { CodecError } from './codec-error.js';
import { duplicateJsonFields } from './json-duplicates.js';

const paths = (text: string) => duplicateJsonFields(text, JSON.parse(text)).map((d) => d.path);

/** A JSON text whose object at `path` holds `key` twice (a duplicate spliced into the text). */
function withRepeat(value: Record<string, unknown>, key: string): string {
  const text = JSON.stringify(value);
  return `{${JSON.stringify(key)}:0,${text.slice(1)}`;
}

describe('duplicateJsonFields (sigs.k8s.io/json DisallowDuplicateFields paths)', () => {
  it('names each repeated key by its strict-error path, in document order', () => {
    expect(
      paths(
        '{"metadata":{"name":"a","labels":{"x":"1","x":"2"}},"spec":{"containers":[{"name":"a","name":"b"}]},"data":{"k":"v","k":"w"},"data":{}}',
      ),
    ).toEqual(['metadata.labels.x', 'spec.containers[0].name', 'data.k', 'data']);
    expect(paths('[{"a":1,"a":2}]')).toEqual(['[0].a']);
    expect(paths('{"a\\"b":1,"a\\u0022b":2}')).toEqual(['a"b']);
  });

  it('a document without repeats has none, whatever its strings hold (colons, quotes, escapes)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.boolean(), (value, pretty) => {
        const text = pretty ? JSON.stringify(value, null, 2) : JSON.stringify(value);
        if (text === undefined) return;
        expect(paths(text)).toEqual([]);
      }),
      { numRuns: 500 },
    );
  });

  it('a key repeated in any object of a document is found', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue(), { minKeys: 1, maxKeys: 5 }),
        fc.nat(),
        (object, pick) => {
          const keys = Object.keys(object);
          const key = keys[pick % keys.length]!;
          expect(paths(withRepeat(object, key))).toEqual([key]);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('CBOR maps with a repeated key (modes/decode.go DupMapKeyEnforcedAPF)', () => {
  it('are refused, naming the key and its element index as fxamacker/cbor does', () => {
    // {"a": 1, "b": {"k": 1, "k": 2}} built by hand: encoders never repeat a key.
    const bytes = Uint8Array.of(
      0xa2,
      0x61,
      0x61,
      0x01,
      0x61,
      0x62,
      0xa2,
      0x61,
      0x6b,
      0x01,
      0x61,
      0x6b,
      0x02,
    );
    expect(() => decodeCbor(bytes)).toThrow(CodecError);
    expect(() => decodeCbor(bytes)).toThrow(
      'cbor: found duplicate map key "k" at map element index 1',
    );
  });

  it('any document an encoder writes (no repeats) still decodes to itself', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value) ?? 'null';
        // cbor-x renames a `__proto__` key (its own guard), a difference this property is not about.
        fc.pre(!text.includes('"__proto__"'));
        const clean = JSON.parse(text) as unknown;
        expect(decodeCbor(encodeCbor(clean))).toEqual(clean);
      }),
      { numRuns: 300 },
    );
  });
});
