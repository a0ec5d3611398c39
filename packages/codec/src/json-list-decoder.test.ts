import { isApiError } from '@listwatch/api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonListDecoder } from './json-list-decoder.js';
import { samplePod } from '@listwatch/testing';

/**
 * Feeds `bytes` cut at `cuts` (positions, any order) and returns the decoded list. Batches are
 * small so that the fast path (a learned element boundary) runs on lists of a few hundred bytes.
 */
function decode(bytes: Buffer, cuts: number[] = [], batchBytes = 24): unknown {
  const decoder = new JsonListDecoder({ batchBytes });
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  let at = 0;
  for (const p of [...points, bytes.length]) {
    decoder.push(bytes.subarray(at, p));
    at = p;
  }
  return decoder.end();
}

/** Feeds `body` to `decoder` in pieces of `size` bytes, as a response arrives. */
function pushInChunks(decoder: JsonListDecoder, body: Buffer, size: number): void {
  for (let at = 0; at < body.length; at += size) decoder.push(body.subarray(at, at + size));
}

/** What JSON.parse makes of `text`, or the fact that it throws. */
function reference(text: string): { value: unknown } | { throws: true } {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return { throws: true };
  }
}

function outcome(
  bytes: Buffer,
  cuts: number[],
  batchBytes?: number,
): { value: unknown } | { throws: true } {
  try {
    return { value: decode(bytes, cuts, batchBytes) };
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
const batchBytes = fc.integer({ min: 1, max: 400 });

// Lists as Kubernetes writes them, every item beginning alike (`{"metadata":{"name":`), which
// the fast path learns; inside the items the same beginning recurs in nested objects and in
// strings, where a boundary found by it is a false one.
const lookalike = fc.constantFrom(
  '{"metadata":{"name":',
  ',{"metadata":{"name":',
  '},{"metadata":{"name":"x"}}',
  '\\",{"metadata":{"name":',
);
const kubeText = fc.oneof(
  text,
  lookalike,
  fc.tuple(text, lookalike, text).map((parts) => parts.join('')),
);
const kubeValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.integer(),
    kubeText,
    fc.array(tie('value'), { maxLength: 3 }),
    tie('object'),
  ),
  object: fc.record({
    metadata: fc.record({ name: kubeText }),
    spec: fc.dictionary(kubeText, tie('value'), { maxKeys: 3 }),
  }),
}));
const kubeList = fc
  .array(kubeValue.object, { maxLength: 30 })
  .map((items) => ({ kind: 'PodList', apiVersion: 'v1', metadata: {}, items }));

const edit = fc.record({
  at: fc.nat(),
  op: fc.constantFrom('insert' as const, 'delete' as const, 'replace' as const),
  byte: fc.constantFrom(...'{}[],:" \\0a-'.split('')),
});
type Edit = { at: number; op: 'insert' | 'delete' | 'replace'; byte: string };

function mutate(source: Buffer, e: Edit): Buffer {
  const i = e.at % (source.length + 1);
  const b = Buffer.from(e.byte);
  return e.op === 'insert'
    ? Buffer.concat([source.subarray(0, i), b, source.subarray(i)])
    : e.op === 'delete'
      ? Buffer.concat([source.subarray(0, i), source.subarray(i + 1)])
      : Buffer.concat([source.subarray(0, i), b, source.subarray(i + 1)]);
}

/** JSON.parse's verdict on a list: its value if it is an object, else a refusal. */
function expected(bytes: Buffer): { value: unknown } | { throws: true } {
  const want = reference(bytes.toString('utf8'));
  const isObject =
    'value' in want &&
    typeof want.value === 'object' &&
    want.value !== null &&
    !Array.isArray(want.value);
  return isObject ? want : { throws: true };
}

describe('JsonListDecoder', () => {
  it('decodes any list exactly as JSON.parse does, however the bytes are chunked', () => {
    fc.assert(
      fc.property(list, indent, cuts, batchBytes, (doc, space, at, batch) => {
        const source = JSON.stringify(doc, null, space);
        expect(decode(Buffer.from(source), at, batch)).toStrictEqual(JSON.parse(source));
      }),
      { numRuns: 500 },
    );
  });

  it('cuts a list of alike items only at element boundaries, whatever recurs inside them', () => {
    fc.assert(
      fc.property(kubeList, cuts, batchBytes, (doc, at, batch) => {
        const source = JSON.stringify(doc);
        expect(decode(Buffer.from(source), at, batch)).toStrictEqual(JSON.parse(source));
      }),
      { numRuns: 1000 },
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

  it.each([
    ['any list', list],
    ['a list of alike items', kubeList],
  ])(
    'refuses what JSON.parse refuses in %s: one byte inserted, removed or changed',
    (_, lists: fc.Arbitrary<unknown>) => {
      fc.assert(
        fc.property(lists, edit, cuts, batchBytes, (doc, e, at, batch) => {
          const mutated = mutate(Buffer.from(JSON.stringify(doc)), e);
          expect(outcome(mutated, at, batch)).toStrictEqual(expected(mutated));
        }),
        { numRuns: 800 },
      );
    },
  );

  it('scans to the end at end(), however many elements and bytes are left then (a case fast-check found)', () => {
    // Left for end(): more than a batch of elements after the fast path waited for a separator.
    const doc = {
      kind: 'PodList',
      apiVersion: 'v1',
      metadata: {},
      items: [
        { metadata: { name: ',{"metadata":{"name":' }, spec: {} },
        { metadata: { name: ',{"metadata":{"name":' }, spec: {} },
        {
          metadata: { name: '' },
          spec: {
            '{"metadata":{"name":': {
              metadata: { name: '{"metadata":{"name":\u0000' },
              spec: { '': 10, ',{"metadata":{"name":': 1000000000 },
            },
            '': 10000000,
          },
        },
        {
          metadata: { name: '{"metadata":{"name":' },
          spec: {
            '': { metadata: { name: '{"metadata":{"name":' }, spec: {} },
            '{"metadata":{"name":\u0000\u0000\u0000': -100000000,
            '{"metadata":{"name":': 10000000,
          },
        },
        { metadata: { name: '{"metadata":{"name":' }, spec: {} },
        { metadata: { name: '\u0000' }, spec: {} },
        { metadata: { name: '{"metadata":{"name":' }, spec: {} },
      ],
    };
    const source = Buffer.from(JSON.stringify(doc));
    const at = 611; // a '{' inserted inside a name: still a valid list
    const body = Buffer.concat([source.subarray(0, at), Buffer.from('{'), source.subarray(at)]);
    expect(decode(body, [], 300)).toStrictEqual(JSON.parse(body.toString()));
  });

  it('fails a truncated list with a CodecError, never a partial result', () => {
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
    const texts: number[] = [];
    const decoder = new JsonListDecoder({
      onItems: (items) => {
        batches.push(items.length);
        texts.push(JSON.stringify(items).length);
      },
    });
    pushInChunks(decoder, body, 16 * 1024);
    expect(decoder.end()).toEqual({
      kind: 'PodList',
      apiVersion: 'v1',
      metadata: { resourceVersion: '7' },
      items: pods,
    });
    expect(batches.length).toBeGreaterThan(2);
    expect(batches.reduce((a, b) => a + b, 0)).toBe(200);
    // Each batch's text stays a regular V8 heap object (under 128 KiB), never a large one.
    expect(Math.max(...texts)).toBeLessThan(128 * 1024);
  });

  it('cuts a LIST of one kind at its learned element boundary for nearly all its bytes', () => {
    // The fast path is what keeps a 50,000-Pod initial sync near JSON.parse's own cost; a change
    // that stops it learning would only show as a slower benchmark, so it is checked here.
    const feed = (items: unknown[]): { decoder: JsonListDecoder; bytes: number } => {
      const body = Buffer.from(JSON.stringify({ kind: 'List', apiVersion: 'v1', items }));
      const decoder = new JsonListDecoder();
      pushInChunks(decoder, body, 64 * 1024);
      expect(decoder.end().items).toEqual(items);
      return { decoder, bytes: body.length };
    };
    const pods = feed(Array.from({ length: 500 }, (_, i) => samplePod(i)));
    expect(pods.decoder.fastPathBytes / pods.bytes).toBeGreaterThan(0.9);
    // Items that begin differently leave no boundary to learn: all of it is scanned.
    const mixed = feed(
      Array.from({ length: 500 }, (_, i) => (i % 2 ? { b: samplePod(i) } : { a: samplePod(i) })),
    );
    expect(mixed.decoder.fastPathBytes).toBe(0);
  });
});
