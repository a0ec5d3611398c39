// Codec throughput on realistic ~4.9 KB Pods, next to the physical limit measured in the same run:
// raw JSON.stringify for encoders, raw JSON.parse of pre-split lines for decoders.
//   pnpm --filter @listwatch/codec bench
import type { WatchEvent } from '@listwatch/api';
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
  samplePods,
  type StreamFormat,
} from '../src/index.js';

const PODS = Number(process.env.BENCH_PODS ?? 3000);
const CHUNK = 64 * 1024;
const ROUNDS = 5;
const NEWLINE_DECODE_LIMIT = 1.3;

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

interface Row {
  operation: string;
  format: string;
  'MB/s': string;
  'objects/s': string;
  'baseline MB/s': string;
  'time vs baseline': string;
}

const rows: Row[] = [];
const figures = new Map<string, number>();

function record(
  operation: string,
  format: string,
  bytes: number,
  base: number,
  time: number,
): void {
  const mbps = (b: number, ms: number): string => (b / 1e6 / (ms / 1000)).toFixed(0);
  rows.push({
    operation,
    format,
    'MB/s': mbps(bytes, time),
    'objects/s': Math.round(PODS / (time / 1000)).toLocaleString('en-US'),
    'baseline MB/s': mbps(jsonBytes, base),
    'time vs baseline': `${(time / base).toFixed(2)}x`,
  });
  figures.set(`${operation} ${format}`, time / base);
}

function label(format: StreamFormat): string {
  return `${format.encoding} ${format.framing}`;
}

function chunks(stream: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < stream.length; i += CHUNK) out.push(stream.subarray(i, i + CHUNK));
  return out;
}

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
  console.log(
    `encode-once fan-out: ${Math.round(deliveries).toLocaleString('en-US')} deliveries/s`,
  );
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

console.log(
  `\n${PODS} Pods, ${(jsonBytes / PODS / 1000).toFixed(2)} KB of JSON each; decoders fed ${CHUNK / 1024} KiB chunks.`,
);
console.log(
  'baseline: raw JSON.stringify per event (encoders), JSON.stringify of the whole list (LIST),',
);
console.log(
  '          raw JSON.parse of pre-split lines (decoders); medians of interleaved runs.\n',
);
console.table(rows);

const ratio = figures.get(`decode stream ${label(JSON_NEWLINE)}`)!;
const verdict = ratio <= NEWLINE_DECODE_LIMIT ? 'OK' : 'TOO SLOW';
console.log(
  `\nnewline-JSON stream decode vs raw JSON.parse: ${ratio.toFixed(2)}x (limit ${NEWLINE_DECODE_LIMIT}x) ${verdict}`,
);
if (ratio > NEWLINE_DECODE_LIMIT) process.exitCode = 1;
