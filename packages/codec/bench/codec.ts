// `codec`: codec throughput on realistic ~4.9 KB Pods, next to the physical limit measured in the
// same run: raw JSON.stringify for encoders (of the whole list for LIST), raw JSON.parse of
// pre-split lines for decoders. In the runner's process: no server, nothing else running.
import type { WatchEvent } from '@listwatch/api';
import type { Measurement, Scenario } from '../../../bench/lib.js';
import {
  CBOR_LENGTH_PREFIXED,
  CBOR_SEQUENCE,
  createWatchDecoder,
  EncodedEvent,
  encodeListStream,
  encodeWatchEvent,
  JSON_CONCATENATED,
  JSON_LENGTH_PREFIXED,
  JSON_NEWLINE,
  type StreamFormat,
} from '../src/index.js';
import { samplePods } from '@listwatch/testing';

const CHUNK = 64 * 1024;

/** One pass over every codec operation: MB/s and objects/s, and time against the baseline's. */
function measureCodec(PODS: number, ROUNDS: number): Measurement {
  const metrics: Record<string, number> = { pods: PODS };
  const ratios: Record<string, number> = {};

  const events: WatchEvent[] = samplePods(PODS).map((object) => ({ type: 'MODIFIED', object }));
  const jsonLines = events.map((event) => JSON.stringify(event));
  const jsonBytes = jsonLines.reduce((n, line) => n + Buffer.byteLength(line) + 1, 0);

  /** Median time of `fn` over ROUNDS runs after two warm-ups; each run is interleaved with `baseline`. */
  function measurePair(baseline: () => unknown, fn: () => unknown): { base: number; time: number } {
    const base: number[] = [];
    const time: number[] = [];
    for (let i = 0; i < 2; i++) {
      baseline();
      fn();
    }
    for (let i = 0; i < ROUNDS; i++) {
      let t = performance.now();
      baseline();
      base.push(performance.now() - t);
      t = performance.now();
      fn();
      time.push(performance.now() - t);
    }
    const median = (xs: number[]): number => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    return { base: median(base), time: median(time) };
  }

  function label(format: StreamFormat): string {
    return `${format.encoding} ${format.framing}`;
  }

  function chunks(stream: Buffer): Buffer[] {
    const out: Buffer[] = [];
    for (let i = 0; i < stream.length; i += CHUNK) out.push(stream.subarray(i, i + CHUNK));
    return out;
  }

  /** The figures of one operation: its throughput and its time against its baseline's. */
  const record = (operation: string, format: string, bytes: number, base: number, time: number) => {
    const key = `${operation} ${format}`.replace(/[^a-z0-9]+/gi, '_').toLowerCase();
    metrics[`${key}_mb_per_s`] = bytes / 1e6 / (time / 1000);
    metrics[`${key}_objects_per_s`] = PODS / (time / 1000);
    ratios[`${key}_vs_baseline`] = time / base;
  };
  // The physical limits.
  const rawStringify = (): number => {
    let n = 0;
    for (const event of events) n += JSON.stringify(event).length;
    return n;
  };
  const rawParse = (): number => {
    let n = 0;
    for (const line of jsonLines) if (JSON.parse(line) !== null) n++;
    return n;
  };

  // Encoders: one event at a time, framed, as bytes.
  for (const format of [JSON_NEWLINE, JSON_LENGTH_PREFIXED, CBOR_SEQUENCE, CBOR_LENGTH_PREFIXED]) {
    let bytes = 0;
    const { base, time } = measurePair(rawStringify, () => {
      bytes = 0;
      for (const event of events) bytes += encodeWatchEvent(event, format).length;
    });
    record('encode event', label(format), bytes, base, time);
  }

  // Fan-out: each event encoded once, its bytes handed to 100 watchers.
  {
    const watchers = 100;
    let bytes = 0;
    const { base, time } = measurePair(rawStringify, () => {
      bytes = 0;
      for (const event of events) {
        const encoded = new EncodedEvent(event);
        for (let w = 0; w < watchers; w++) bytes += encoded.bytes(JSON_NEWLINE).length;
      }
    });
    record(`encode once, ${watchers} watchers`, label(JSON_NEWLINE), bytes / watchers, base, time);
    const deliveries = (PODS * watchers) / (time / 1000);
    metrics['encode_once_100_watchers_deliveries_per_s'] = deliveries;
  }

  // A LIST of every pod, item by item, against JSON.stringify of the whole list.
  {
    const list = {
      kind: 'PodList',
      apiVersion: 'v1',
      metadata: { resourceVersion: '123' },
      items: events.map((e) => e.object),
    };
    const whole = (): number => JSON.stringify(list).length;
    for (const encoding of ['json', 'cbor'] as const) {
      let bytes = 0;
      const { base, time } = measurePair(whole, () => {
        bytes = 0;
        for (const part of encodeListStream(list, encoding)) bytes += part.length;
      });
      record('encode LIST stream', encoding, bytes, base, time);
    }
  }

  // Decoders: the whole stream fed in 64 KiB chunks.
  for (const format of [
    JSON_NEWLINE,
    JSON_CONCATENATED,
    JSON_LENGTH_PREFIXED,
    CBOR_SEQUENCE,
    CBOR_LENGTH_PREFIXED,
  ]) {
    const stream = Buffer.concat(events.map((event) => encodeWatchEvent(event, format)));
    const pieces = chunks(stream);
    const { base, time } = measurePair(rawParse, () => {
      const decoder = createWatchDecoder(format);
      let n = 0;
      for (const piece of pieces) n += decoder.push(piece).length;
      n += decoder.end().length;
      if (n !== PODS) throw new Error(`decoded ${n} events, expected ${PODS}`);
    });
    record('decode stream', label(format), stream.length, base, time);
  }

  void jsonBytes;
  return { metrics, ratios };
}

export const scenario: Scenario = {
  name: 'codec',
  title: 'codec throughput vs raw JSON.stringify / JSON.parse of the same Pods',
  processes: () => 'the runner alone (in-process micro-benchmark)',
  rounds: (ctx) => (ctx.quick ? 1 : 3),
  open(ctx) {
    const pods = ctx.quick ? 500 : 3000;
    return Promise.resolve({
      round: () => Promise.resolve(measureCodec(pods, ctx.quick ? 3 : 5)),
      close: () => Promise.resolve(),
    });
  },
};
