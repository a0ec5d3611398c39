import fc from 'fast-check';
import type { KubeObject } from '@listwatch/api';
import { describe, expect, it } from 'vitest';
import { decodeCbor, encodeCbor } from './cbor.js';
import { Readable, Writable } from 'node:stream';
import { encodeListStream, encodeListStreamAsync, yieldingChunks } from './list-stream.js';
import { jsonKey, kubeObject } from './testing/arbitraries.js';
import { samplePods } from '@listwatch/testing';

const listArbitrary = fc.record({
  kind: fc.constantFrom('PodList', 'ConfigMapList'),
  apiVersion: fc.constantFrom('v1', 'apps/v1'),
  metadata: fc.record(
    {
      resourceVersion: fc.nat().map(String),
      continue: fc.string({ unit: 'binary' }),
      remainingItemCount: fc.nat(),
    },
    { requiredKeys: [] },
  ),
  items: fc.array(kubeObject, { maxLength: 40 }),
});

async function collect(source: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const part of source) parts.push(part);
  return Buffer.concat(parts);
}

describe('streaming LIST encoder (KEP-5116)', () => {
  it('remembered encodings write the same bytes, each item encoded once across lists', () => {
    fc.assert(
      fc.property(
        listArbitrary,
        fc.constantFrom('json' as const, 'cbor' as const),
        fc.integer({ min: 1, max: 5000 }),
        (list, encoding, chunkSize) => {
          const plain = Buffer.concat([...encodeListStream(list, encoding, { chunkSize })]);
          const encodings = new WeakMap<object, Uint8Array>();
          const first = Buffer.concat([
            ...encodeListStream(list, encoding, { chunkSize, encodings }),
          ]);
          const remembered = list.items.map((item) => encodings.get(item));
          const second = Buffer.concat([
            ...encodeListStream(list, encoding, { chunkSize, encodings }),
          ]);
          expect(first.equals(plain)).toBe(true);
          expect(second.equals(plain)).toBe(true);
          // The second list reused the first one's bytes, item by item.
          list.items.forEach((item, i) => {
            expect(remembered[i]).toBeDefined();
            expect(encodings.get(item)).toBe(remembered[i]);
          });
        },
      ),
      { numRuns: 100 },
    );
  });

  it('JSON output is byte-identical to JSON.stringify of the whole list', () => {
    fc.assert(
      fc.property(listArbitrary, fc.integer({ min: 1, max: 5000 }), (list, chunkSize) => {
        const streamed = Buffer.concat([...encodeListStream(list, 'json', { chunkSize })]);
        const whole = {
          kind: list.kind,
          apiVersion: list.apiVersion,
          metadata: list.metadata,
          items: list.items,
        };
        expect(streamed.toString('utf8')).toBe(JSON.stringify(whole));
      }),
      { numRuns: 200 },
    );
  });

  it('CBOR output is byte-identical to encoding the whole list at once', () => {
    fc.assert(
      fc.property(listArbitrary, fc.integer({ min: 1, max: 5000 }), (list, chunkSize) => {
        const streamed = Buffer.concat([...encodeListStream(list, 'cbor', { chunkSize })]);
        const whole = {
          kind: list.kind,
          apiVersion: list.apiVersion,
          metadata: list.metadata,
          items: list.items,
        };
        expect(streamed.equals(encodeCbor(whole))).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('array headers of every size match the whole-list encoding (24, 256, 65536 items)', () => {
    for (const count of [0, 23, 24, 255, 256, 65_535, 65_536]) {
      const list = {
        kind: 'List',
        apiVersion: 'v1',
        metadata: {},
        items: Array.from({ length: count }, (_, i) => i),
      };
      expect(Buffer.concat([...encodeListStream(list, 'cbor')]).equals(encodeCbor(list))).toBe(
        true,
      );
    }
  });

  it('undefined head fields are dropped exactly as JSON.stringify drops them', () => {
    const list = { metadata: { resourceVersion: '1' }, items: [{ a: 1 }] };
    expect(Buffer.concat([...encodeListStream(list, 'json')]).toString()).toBe(
      JSON.stringify(list),
    );
  });

  it('chunks stay near the chunk size: memory is one item plus one chunk', () => {
    const list = {
      kind: 'PodList',
      apiVersion: 'v1',
      metadata: { resourceVersion: '9' },
      items: samplePods(200),
    };
    const chunkSize = 16 * 1024;
    const itemMax = Math.max(
      ...list.items.map((item) => Buffer.byteLength(JSON.stringify(item)) + 1),
    );
    const chunks = [...encodeListStream(list, 'json', { chunkSize })];
    expect(chunks.length).toBeGreaterThan(10);
    for (const part of chunks) expect(part.length).toBeLessThan(chunkSize + itemMax);
  });

  it('the async encoder reads items as they come and gives the same bytes', async () => {
    const items = samplePods(30);
    const head = {
      kind: 'PodList',
      apiVersion: 'v1',
      metadata: { resourceVersion: '77', continue: 'abc' },
    };
    async function* produce(): AsyncGenerator<KubeObject> {
      for (const item of items) {
        await Promise.resolve();
        yield item;
      }
    }
    const json = await collect(encodeListStreamAsync(head, produce(), 'json'));
    expect(json.toString()).toBe(JSON.stringify({ ...head, items }));
    const cbor = await collect(
      encodeListStreamAsync(head, produce(), 'cbor', { count: items.length }),
    );
    expect(cbor.equals(encodeCbor({ ...head, items }))).toBe(true);
    expect(decodeCbor(cbor)).toEqual({ ...head, items });
  });

  it('an async CBOR list without its item count, or with the wrong one, is an internal error', async () => {
    await expect(collect(encodeListStreamAsync({ metadata: {} }, [1, 2], 'cbor'))).rejects.toThrow(
      /item count/,
    );
    await expect(
      collect(encodeListStreamAsync({ metadata: {} }, [1, 2], 'cbor', { count: 3 })),
    ).rejects.toThrow(/expected 3 items, got 2/);
  });

  it('a streamed LIST gives the event loop a turn between chunks, even to a sink that never pushes back', async () => {
    // A client on another machine drains the socket as fast as the server writes: nothing but
    // the LIST itself may make room for other requests (issue 35: one LIST stalled every write).
    const list = { kind: 'PodList', apiVersion: 'v1', metadata: {}, items: samplePods(400) };
    const chunks = encodeListStream(list, 'json', { chunkSize: 4096 });
    const events: string[] = [];
    let produced = 0;
    const counted = (function* () {
      for (const chunk of chunks) {
        if (produced++ === 0) setImmediate(() => events.push('other request'));
        yield chunk;
      }
      events.push('list encoded');
    })();
    const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
    await new Promise((resolve, reject) =>
      Readable.from(yieldingChunks(counted), { objectMode: false })
        .pipe(sink)
        .on('finish', resolve)
        .on('error', reject),
    );
    expect(produced).toBeGreaterThan(10);
    expect(events).toEqual(['other request', 'list encoded']);
  });

  it('keys named like JSON specials survive', () => {
    fc.assert(
      fc.property(
        fc.array(fc.dictionary(jsonKey, fc.string(), { noNullPrototype: true }), { maxLength: 5 }),
        (items) => {
          const list = { kind: 'L', apiVersion: 'v1', metadata: {}, items };
          expect(Buffer.concat([...encodeListStream(list, 'json')]).toString()).toBe(
            JSON.stringify(list),
          );
        },
      ),
    );
  });
});
