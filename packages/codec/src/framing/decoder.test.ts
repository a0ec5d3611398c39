import fc from 'fast-check';
import type { WatchEvent } from '@listwatch/api';
import { describe, expect, it } from 'vitest';
import { CodecError } from '../codec-error.js';
import {
  chunk,
  chunkSizes,
  concat,
  jsonKey,
  jsonValue,
  watchEvent,
} from '../testing/arbitraries.js';
import { samplePod } from '@listwatch/testing';
import {
  createStreamDecoder,
  createWatchDecoder,
  decodeStream,
  decodeWatchStream,
} from './decoder.js';
import { encodeStreamValue, encodeWatchEvent } from './encoder.js';
import {
  CBOR_LENGTH_PREFIXED,
  CBOR_SEQUENCE,
  JSON_CONCATENATED,
  JSON_LENGTH_PREFIXED,
  JSON_NEWLINE,
  STREAM_FORMATS,
  type StreamFormat,
} from './format.js';
import type { StreamDecoder } from './frame-decoder.js';

function name(format: StreamFormat): string {
  return `${format.encoding}/${format.framing}`;
}

/** Feeds all chunks then ends; returns what came out, or the error and what came before it. */
function feed<T>(
  decoder: StreamDecoder<T>,
  chunks: readonly Uint8Array[],
): { values: T[]; error?: unknown } {
  const values: T[] = [];
  try {
    for (const piece of chunks) values.push(...decoder.push(piece));
    values.push(...decoder.end());
    return { values };
  } catch (error) {
    return { values, error };
  }
}

function encodeAll(events: readonly WatchEvent[], format: StreamFormat): Uint8Array {
  return concat(events.map((event) => encodeWatchEvent(event, format)));
}

describe.each(STREAM_FORMATS.map((format) => [name(format), format] as const))(
  '%s framing',
  (_, format) => {
    it('decode(encode(events)) equals the events for any events and any chunking', () => {
      fc.assert(
        fc.property(fc.array(watchEvent, { maxLength: 8 }), chunkSizes, (events, sizes) => {
          const { values, error } = feed(
            createWatchDecoder(format),
            chunk(encodeAll(events, format), sizes),
          );
          expect(error).toBeUndefined();
          expect(values).toEqual(events);
        }),
        { numRuns: 300 },
      );
    });

    it('any JSON values round-trip through the generic stream decoder', () => {
      fc.assert(
        fc.property(
          fc.array(fc.dictionary(jsonKey, jsonValue, { noNullPrototype: true })),
          chunkSizes,
          (values, sizes) => {
            const stream = concat(values.map((value) => encodeStreamValue(value, format)));
            const result = feed(createStreamDecoder(format), chunk(stream, sizes));
            expect(result.error).toBeUndefined();
            expect(result.values).toEqual(values);
          },
        ),
        { numRuns: 200 },
      );
    });

    it('random garbage throws only CodecError and never buffers past the frame limit', () => {
      const maxFrameSize = 128;
      fc.assert(
        fc.property(
          fc.array(
            fc.oneof(
              fc.uint8Array({ maxLength: 300 }),
              watchEvent.map((e) => encodeWatchEvent(e, format)),
            ),
          ),
          chunkSizes,
          (pieces, sizes) => {
            for (const decoder of [
              createWatchDecoder(format, { maxFrameSize }),
              createStreamDecoder(format, { maxFrameSize }),
            ]) {
              try {
                for (const piece of chunk(concat(pieces), sizes)) {
                  decoder.push(piece);
                  expect(decoder.bufferedBytes).toBeLessThanOrEqual(maxFrameSize);
                }
                decoder.end();
              } catch (error) {
                expect(error).toBeInstanceOf(CodecError);
              }
            }
          },
        ),
        { numRuns: 300 },
      );
    });

    it('a frame larger than the maximum is a CodecError naming its offset', () => {
      const small = encodeWatchEvent(
        { type: 'ADDED', object: { metadata: { name: 'small' } } },
        format,
      );
      const big = encodeWatchEvent({ type: 'ADDED', object: samplePod(1) }, format);
      const { values, error } = feed(createWatchDecoder(format, { maxFrameSize: 1000 }), [
        concat([small, big]),
      ]);
      expect(values).toHaveLength(1);
      expect(error).toBeInstanceOf(CodecError);
      expect((error as CodecError).offset).toBe(small.length);
      expect((error as CodecError).message).toMatch(/exceeds the maximum frame size/);
    });

    it('a frame larger than the maximum is refused while it arrives, before it is complete', () => {
      const big = encodeWatchEvent({ type: 'ADDED', object: samplePod(1) }, format);
      const decoder = createWatchDecoder(format, { maxFrameSize: 1000 });
      let error: unknown;
      let fed = 0;
      try {
        for (const piece of chunk(big, [100])) {
          decoder.push(piece);
          fed += piece.length;
        }
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(CodecError);
      expect(fed).toBeLessThan(big.length);
    });

    it('a stream cut inside an event is a CodecError at the end', () => {
      const bytes = encodeAll([{ type: 'ADDED', object: samplePod(0) }], format);
      const { values, error } = feed(createWatchDecoder(format), [
        bytes.subarray(0, bytes.length - 10),
      ]);
      expect(values).toEqual([]);
      expect(error).toBeInstanceOf(CodecError);
      expect((error as CodecError).offset).toBe(0);
    });

    it('events decoded before a bad frame are delivered before its error', async () => {
      const good = encodeAll(
        [
          { type: 'ADDED', object: samplePod(0) },
          { type: 'MODIFIED', object: samplePod(1) },
        ],
        format,
      );
      const bad = encodeStreamValue({ type: 'RENAMED', object: {} }, format);
      const after = encodeAll([{ type: 'DELETED', object: samplePod(2) }], format);
      const seen: string[] = [];
      let error: unknown;
      try {
        for await (const event of decodeWatchStream([concat([good, bad, after])], format))
          seen.push(event.type);
      } catch (e) {
        error = e;
      }
      expect(seen).toEqual(['ADDED', 'MODIFIED']);
      expect(error).toBeInstanceOf(CodecError);
      expect((error as CodecError).offset).toBe(good.length);
      expect((error as CodecError).message).toMatch(/unknown watch event type "RENAMED"/);
    });

    it('a decoder that failed keeps failing with the same error', () => {
      const decoder = createWatchDecoder(format);
      const bad = encodeStreamValue({ type: 'ADDED', object: 'nope' }, format);
      expect(() => decoder.push(bad)).toThrow(CodecError);
      const good = encodeAll([{ type: 'ADDED', object: samplePod(0) }], format);
      expect(() => decoder.push(good)).toThrow(/not an object/);
    });
  },
);

describe('watch event validation', () => {
  it.each([
    ['a non-object event', [1, 2]],
    ['an unknown type', { type: 'UPSERTED', object: {} }],
    ['a missing type', { object: {} }],
    ['a null object', { type: 'ADDED', object: null }],
    ['an array object', { type: 'ADDED', object: [] }],
  ])('%s is a CodecError', (_, value) => {
    expect(() => createWatchDecoder('json').push(encodeStreamValue(value, JSON_NEWLINE))).toThrow(
      CodecError,
    );
  });
});

describe('newline-delimited JSON', () => {
  it('a chunk boundary inside a multi-byte UTF-8 sequence decodes correctly', () => {
    const event: WatchEvent = {
      type: 'ADDED',
      object: { kind: 'ConfigMap', metadata: { name: 'snow-☃-𝄞' }, data: { x: 'é' } },
    };
    const bytes = encodeWatchEvent(event, JSON_NEWLINE);
    const at = Buffer.from(bytes).indexOf(Buffer.from('☃')) + 1;
    const decoder = createWatchDecoder(JSON_NEWLINE);
    expect([...decoder.push(bytes.subarray(0, at)), ...decoder.push(bytes.subarray(at))]).toEqual([
      event,
    ]);
  });

  it('blank lines and CRLF line ends are accepted', () => {
    const line = JSON.stringify({ type: 'ADDED', object: { metadata: {} } });
    const decoder = createWatchDecoder(JSON_NEWLINE);
    expect(decoder.push(`\n${line}\r\n\n  \n${line}\n`)).toHaveLength(2);
  });

  it('a last event without its newline is accepted at the end of the stream', () => {
    const decoder = createWatchDecoder(JSON_NEWLINE);
    expect(decoder.push(JSON.stringify({ type: 'ADDED', object: {} }))).toEqual([]);
    expect(decoder.end()).toEqual([{ type: 'ADDED', object: {} }]);
  });

  it('a malformed line names its byte offset', () => {
    const first = Buffer.from(`${JSON.stringify({ type: 'ADDED', object: { n: 'ü' } })}\n`);
    const decoder = createWatchDecoder(JSON_NEWLINE);
    expect(decoder.push(first)).toHaveLength(1);
    try {
      decoder.push('{"type":"ADDED","object":{"broken"\n');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(CodecError);
      expect((error as CodecError).offset).toBe(first.length);
      expect((error as CodecError).message).toMatch(/malformed JSON/);
    }
  });

  it('many events in one chunk all come out of one push', () => {
    const events = Array.from({ length: 50 }, (_, i) => ({
      type: 'ADDED' as const,
      object: samplePod(i),
    }));
    expect(createWatchDecoder(JSON_NEWLINE).push(encodeAll(events, JSON_NEWLINE))).toEqual(events);
  });
});

describe('concatenated JSON (kubectl get -w -o json)', () => {
  it('pretty-printed objects one after another decode one by one', async () => {
    const pods = [samplePod(0), samplePod(1), samplePod(2)];
    const output = pods.map((pod) => `${JSON.stringify(pod, null, 4)}\n`).join('');
    const decoded: unknown[] = [];
    for await (const value of decodeStream(chunk(Buffer.from(output), [13]), JSON_CONCATENATED)) {
      decoded.push(value);
    }
    expect(decoded).toEqual(pods);
  });

  it('braces and escaped quotes inside strings do not end a document', () => {
    const value = { a: '}{ "]" \\" \\', b: ['[', '{'] };
    const decoder = createStreamDecoder(JSON_CONCATENATED);
    expect(decoder.push(`${JSON.stringify(value)} ${JSON.stringify(value)}`)).toEqual([
      value,
      value,
    ]);
  });

  it('strings full of quotes, backslashes and brackets split anywhere never end a document early', () => {
    const tricky = fc.string({ unit: fc.constantFrom('\\', '"', '{', '}', '[', ']', 'a', '\n') });
    fc.assert(
      fc.property(
        fc.array(fc.dictionary(tricky, tricky, { noNullPrototype: true })),
        chunkSizes,
        (values, sizes) => {
          const stream = Buffer.from(values.map((v) => JSON.stringify(v, null, 2)).join('\n'));
          expect(feed(createStreamDecoder(JSON_CONCATENATED), chunk(stream, sizes)).values).toEqual(
            values,
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a top-level scalar is a CodecError at its offset, raised after the values before it', () => {
    const decoder = createStreamDecoder(JSON_CONCATENATED);
    expect(decoder.push('{} 42')).toEqual([{}]);
    try {
      decoder.end();
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(CodecError);
      expect((error as CodecError).offset).toBe(3);
    }
  });
});

describe('length-prefixed framing', () => {
  it('each frame is a 4-byte big-endian length then the payload', () => {
    const frame = encodeStreamValue({ a: 1 }, JSON_LENGTH_PREFIXED);
    expect([...frame.subarray(0, 4)]).toEqual([0, 0, 0, 7]);
    expect(Buffer.from(frame.subarray(4)).toString()).toBe('{"a":1}');
  });

  it('a declared length above the maximum fails at once', () => {
    const decoder = createStreamDecoder(CBOR_LENGTH_PREFIXED, { maxFrameSize: 1024 });
    expect(() => decoder.push(Uint8Array.of(0, 0, 0x10, 0))).toThrow(/4096 bytes exceeds/);
    expect(decoder.bufferedBytes).toBe(0);
  });

  it('a payload holding more than one CBOR item is a CodecError', () => {
    const frame = Uint8Array.of(0, 0, 0, 2, 0x01, 0x02);
    expect(() => createStreamDecoder(CBOR_LENGTH_PREFIXED).push(frame)).toThrow(CodecError);
  });
});

describe('CBOR sequence framing', () => {
  it('items need no delimiter: each is found by scanning its structure', () => {
    const stream = concat([1, 2, 3].map((i) => encodeStreamValue({ i }, CBOR_SEQUENCE)));
    expect(createStreamDecoder(CBOR_SEQUENCE).push(stream)).toEqual([{ i: 1 }, { i: 2 }, { i: 3 }]);
  });

  it('a large item arriving one byte at a time costs linear time (the scanner resumes)', () => {
    const big = encodeStreamValue(
      { pods: Array.from({ length: 20 }, (_, i) => samplePod(i)) },
      CBOR_SEQUENCE,
    );
    const decoder = createStreamDecoder(CBOR_SEQUENCE);
    const out: unknown[] = [];
    for (let i = 0; i < big.length; i++) out.push(...decoder.push(big.subarray(i, i + 1)));
    expect(out).toHaveLength(1);
  });
});
