import { isApiError } from '@listwatch/api';
import { samplePod } from '@listwatch/codec';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonListDecoder } from './json-list-decoder.js';

/** Feeds `bytes` cut at `cuts` (positions, any order) and returns the decoded list. */
function decode(bytes: Buffer, cuts: number[] = []): unknown {
  const decoder = new JsonListDecoder();
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  let at = 0;
  for (const p of [...points, bytes.length]) {
    decoder.push(bytes.subarray(at, p));
    at = p;
  }
  return decoder.end();
}

/** What JSON.parse makes of `text`, or the fact that it throws. */
function reference(text: string): { value: unknown } | { throws: true } {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return { throws: true };
  }
}

function outcome(bytes: Buffer, cuts: number[]): { value: unknown } | { throws: true } {
  try {
    return { value: decode(bytes, cuts) };
  } catch (err) {
    if (!isApiError(err)) throw err;
    return { throws: true };
  }
}

// Keys and strings over all of Unicode (surrogate pairs included, so multi-byte UTF-8 sequences
// get cut by chunk boundaries), plus the JSON-significant characters.
const text = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.string({
    unit: fc.constantFrom('"', '\\', '{', '}', '[', ']', ',', ':', ' ', 'a', 'é', '😀'),
  }),
);
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
    text,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(text, tie('value'), { maxKeys: 4 }),
  ),
})).value;
const list = fc
  .record({
    head: fc.dictionary(text, json, { maxKeys: 4 }),
    items: fc.array(json, { maxLength: 12 }),
    itemsAt: fc.nat(),
  })
  .map(({ head, items, itemsAt }) => {
    // `items` anywhere among the other keys, as any producer may order them.
    const entries = Object.entries(head).filter(([k]) => k !== 'items');
    entries.splice(itemsAt % (entries.length + 1), 0, ['items', items]);
    const doc: Record<string, unknown> = {};
    for (const [k, v] of entries)
      Object.defineProperty(doc, k, {
        value: v,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return doc;
  });
const indent = fc.constantFrom(undefined, 0, 1, 2, '\t', ' \r\n');
const cuts = fc.array(fc.nat(), { maxLength: 12 });

describe('JsonListDecoder', () => {
  it('decodes any list exactly as JSON.parse does, however the bytes are chunked', () => {
    fc.assert(
      fc.property(list, indent, cuts, (doc, space, at) => {
        const source = JSON.stringify(doc, null, space);
        expect(decode(Buffer.from(source), at)).toStrictEqual(JSON.parse(source));
      }),
      { numRuns: 500 },
    );
  });

  it('agrees with JSON.parse on any JSON text: objects decode, other values are refused', () => {
    fc.assert(
      fc.property(json, indent, cuts, (value, space, at) => {
        const source = JSON.stringify(value, null, space) ?? 'null';
        const parsed = JSON.parse(source) as unknown;
        const isObject = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
        expect(outcome(Buffer.from(source), at)).toStrictEqual(
          isObject ? { value: parsed } : { throws: true },
        );
      }),
      { numRuns: 300 },
    );
  });

  it('refuses what JSON.parse refuses: a list with one byte inserted, removed or changed', () => {
    const edit = fc.record({
      at: fc.nat(),
      op: fc.constantFrom('insert', 'delete', 'replace'),
      byte: fc.constantFrom(...'{}[],:" \\0a-'.split('')),
    });
    fc.assert(
      fc.property(list, edit, cuts, (doc, e, at) => {
        const source = Buffer.from(JSON.stringify(doc));
        const i = e.at % (source.length + 1);
        const b = Buffer.from(e.byte);
        const mutated =
          e.op === 'insert'
            ? Buffer.concat([source.subarray(0, i), b, source.subarray(i)])
            : e.op === 'delete'
              ? Buffer.concat([source.subarray(0, i), source.subarray(i + 1)])
              : Buffer.concat([source.subarray(0, i), b, source.subarray(i + 1)]);
        const want = reference(mutated.toString('utf8'));
        const wantObject =
          'value' in want &&
          typeof want.value === 'object' &&
          want.value !== null &&
          !Array.isArray(want.value);
        expect(outcome(mutated, at)).toStrictEqual(wantObject ? want : { throws: true });
      }),
      { numRuns: 500 },
    );
  });

  it('fails a truncated list with a 500 InternalError, never a partial result', () => {
    fc.assert(
      fc.property(list, fc.nat(), (doc, n) => {
        const source = Buffer.from(JSON.stringify(doc));
        const cut = n % source.length; // a proper prefix
        const decoder = new JsonListDecoder();
        decoder.push(source.subarray(0, cut));
        expect(() => decoder.end()).toThrow(/cannot decode the list/);
      }),
    );
    expect(() => new JsonListDecoder().end()).toThrow(/empty body/);
  });

  it('hands out items batch by batch as the chunks complete them', () => {
    const pods = Array.from({ length: 200 }, (_, i) => samplePod(i)); // about 1 MB
    const body = Buffer.from(
      JSON.stringify({
        kind: 'PodList',
        apiVersion: 'v1',
        metadata: { resourceVersion: '7' },
        items: pods,
      }),
    );
    const batches: number[] = [];
    const decoder = new JsonListDecoder((items) => batches.push(items.length));
    for (let at = 0; at < body.length; at += 16 * 1024)
      decoder.push(body.subarray(at, at + 16 * 1024));
    expect(decoder.end()).toEqual({
      kind: 'PodList',
      apiVersion: 'v1',
      metadata: { resourceVersion: '7' },
      items: pods,
    });
    expect(batches.length).toBeGreaterThan(2);
    expect(batches.reduce((a, b) => a + b, 0)).toBe(200);
  });
});
