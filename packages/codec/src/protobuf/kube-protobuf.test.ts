import { jsonFields, jsonShape, schemaFor, type JsonShape, type KubeObject } from '@listwatch/api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CodecError } from '../codec-error.js';
import { EncodedEvent } from '../encoded-event.js';
import { decodeWebSocketMessage } from '../framing/websocket.js';
import { decodeWatchStream } from '../framing/decoder.js';
import { encodeWatchEvent } from '../framing/encoder.js';
import { PROTOBUF_LENGTH_PREFIXED } from '../framing/format.js';
import { encodeListStream } from '../list-stream.js';
import {
  decodeProtobuf,
  decodeProtobufWatchEvent,
  encodeProtobuf,
  encodeProtobufWatchEvent,
  PROTOBUF_MAGIC,
} from './kube-protobuf.js';

// Objects of any kind of the schema source, from the source itself: every field optional,
// values of the field's JSON type (Times to the second, MicroTimes to the microsecond).

const int32 = fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
const int64 = fc.maxSafeInteger();
const seconds = fc.integer({ min: 0, max: 253402300799 });
const time = seconds.map((s) => new Date(s * 1000).toISOString().replace('.000Z', 'Z'));
const microTime = fc
  .tuple(seconds, fc.integer({ min: 0, max: 999999 }))
  .map(
    ([s, us]) => `${new Date(s * 1000).toISOString().slice(0, 19)}.${String(us).padStart(6, '0')}Z`,
  );
const text = fc.string({ maxLength: 12, unit: 'grapheme' });
const key = fc.stringMatching(/^[a-z][a-z0-9./-]{0,10}$/);

function scalarArb(scalar: string): fc.Arbitrary<unknown> {
  switch (scalar) {
    case 'string':
      return text;
    case 'bool':
      return fc.boolean();
    case 'int32':
      return int32;
    case 'int64':
      return int64;
    case 'double':
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case 'float':
      return fc.float({ noNaN: true, noDefaultInfinity: true }).map((f) => Math.fround(f));
    case 'bytes':
      return fc.uint8Array({ maxLength: 8 }).map((b) => Buffer.from(b).toString('base64'));
  }
  throw new Error(scalar);
}

const memo = new Map<string, fc.Arbitrary<unknown>>();

function shapeArb(shape: JsonShape, depth: number): fc.Arbitrary<unknown> {
  switch (shape.kind) {
    case 'scalar':
      return scalarArb(shape.scalar);
    case 'list':
      return fc.array(shapeArb(shape.items, depth), { maxLength: depth > 2 ? 1 : 2 });
    case 'map':
      return fc.dictionary(key, shapeArb(shape.values, depth), { maxKeys: 2 });
    case 'special':
      switch (shape.form) {
        case 'date-time':
          return shape.name.endsWith('MicroTime') ? microTime : time;
        case 'duration':
          return fc.constantFrom('0s', '1s', '1m30s', '2h0m0s', '1.5s');
        case 'quantity':
          return fc.constantFrom('0', '1', '500m', '1Gi', '2.5');
        case 'int-or-string':
          return fc.oneof(int32, fc.stringMatching(/^[a-z0-9%]{1,6}$/));
        case 'object':
          return fc.dictionary(key, fc.oneof(text, fc.boolean(), fc.constant({})), { maxKeys: 2 });
      }
      break;
    case 'struct':
      return structArb(shape.name, depth + 1);
  }
  throw new Error(JSON.stringify(shape));
}

function structArb(name: string, depth: number): fc.Arbitrary<unknown> {
  if (depth > 5) return fc.constant({});
  const cached = memo.get(`${name}/${depth}`);
  if (cached) return cached;
  const fields: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [field, def] of jsonFields(name)) {
    if (field === 'apiVersion' || field === 'kind') continue;
    fields[field] = shapeArb(jsonShape(def.type), depth);
  }
  const arb = fc.record(fields, { requiredKeys: [] });
  memo.set(`${name}/${depth}`, arb);
  return arb;
}

function objectOf(
  group: string,
  version: string,
  kind: string,
): fc.Arbitrary<Record<string, unknown>> {
  const schema = schemaFor({ group, version, kind });
  if (!schema) throw new Error(kind);
  const apiVersion = group ? `${group}/${version}` : version;
  return structArb(schema.name, 0).map((o) => ({ apiVersion, kind, ...(o as object) }));
}

const KINDS: [string, string, string][] = [
  ['', 'v1', 'Pod'],
  ['', 'v1', 'ConfigMap'],
  ['', 'v1', 'Service'],
  ['apps', 'v1', 'Deployment'],
  ['coordination.k8s.io', 'v1', 'Lease'],
  ['', 'v1', 'Event'],
  ['', 'v1', 'Status'],
];

/** What Go's omitempty leaves out: zero scalars, empty lists and maps. */
const isZero = (v: unknown) =>
  v === '' ||
  v === 0 ||
  v === false ||
  v === null ||
  (Array.isArray(v) && v.length === 0) ||
  (typeof v === 'object' && v !== null && Object.keys(v).length === 0);

/** Every non-zero leaf of `x` is in `y` at the same place (lists and maps compared whole). */
function keepsLeaves(x: unknown, y: unknown): boolean {
  if (Array.isArray(x)) {
    return Array.isArray(y) && x.length === y.length && x.every((v, i) => keepsLeaves(v, y[i]));
  }
  if (typeof x === 'object' && x !== null) {
    if (typeof y !== 'object' || y === null) return Object.keys(x).length === 0 && y !== undefined;
    return Object.entries(x).every(([k, v]) =>
      isZero(v) ? true : keepsLeaves(v, (y as Record<string, unknown>)[k]),
    );
  }
  if (typeof x === 'number' && typeof y === 'number') return Object.is(x, y) || x === y;
  return x === y;
}

describe('protobuf objects', () => {
  it.each(KINDS)(
    'an object of %s/%s %s keeps every value through encode and decode, and re-encodes to the same bytes',
    (group, version, kind) => {
      fc.assert(
        fc.property(objectOf(group, version, kind), (object) => {
          const bytes = encodeProtobuf(object);
          const decoded = decodeProtobuf(bytes);
          expect(keepsLeaves(object, decoded)).toBe(true);
          // decoded is Go's view of the object: encoding it again changes nothing.
          expect(Buffer.from(encodeProtobuf(decoded)).equals(Buffer.from(bytes))).toBe(true);
          expect(decodeProtobuf(encodeProtobuf(decoded))).toStrictEqual(decoded);
        }),
        { numRuns: 60 },
      );
    },
  );

  it('a Deployment decodes as kube writes its JSON: pointers kept at zero, omitempty zeros left out', () => {
    const decoded = decodeProtobuf(
      encodeProtobuf({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', generation: 0 },
        spec: { replicas: 0, paused: false, template: { spec: { containers: [{ name: 'c' }] } } },
      }),
    );
    expect(decoded).toStrictEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', creationTimestamp: null },
      spec: {
        replicas: 0,
        template: {
          metadata: { creationTimestamp: null },
          spec: { containers: [{ name: 'c', resources: {} }] },
        },
        strategy: {},
      },
      status: {},
    });
  });

  it('a kind the schema source lacks is a CodecError, not an encoding', () => {
    expect(() => encodeProtobuf({ apiVersion: 'example.com/v1', kind: 'Widget' })).toThrow(
      CodecError,
    );
  });

  it('a value of the wrong type is a CodecError naming its field', () => {
    expect(() =>
      encodeProtobuf({ apiVersion: 'apps/v1', kind: 'Deployment', spec: { replicas: 'three' } }),
    ).toThrow(/Deployment\.spec\.replicas/);
  });
});

describe('decoding arbitrary protobuf bytes', () => {
  const envelope = (raw: Uint8Array) =>
    Buffer.concat([
      PROTOBUF_MAGIC,
      Buffer.from([0x0a, 0x05, 0x0a, 0x02, 0x76, 0x31, 0x12]),
      Buffer.from([0x03, ...Buffer.from('Pod')]),
      Buffer.from([0x12, ...encodeLength(raw.length)]),
      raw,
    ]);

  it('is an object or a CodecError (400), never another failure', () => {
    const inputs = fc.oneof(
      fc.uint8Array({ maxLength: 64 }),
      fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.concat([PROTOBUF_MAGIC, b])),
      fc.uint8Array({ maxLength: 64 }).map((b) => envelope(b)),
    );
    fc.assert(
      fc.property(inputs, (bytes) => {
        try {
          const decoded = decodeProtobuf(bytes);
          expect(typeof decoded).toBe('object');
        } catch (error) {
          expect(error).toBeInstanceOf(CodecError);
          expect((error as CodecError).status.code).toBe(400);
        }
        try {
          decodeProtobufWatchEvent(bytes);
        } catch (error) {
          expect(error).toBeInstanceOf(CodecError);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('mutated bytes of a real Pod are an object or a CodecError', () => {
    const pod = encodeProtobuf({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', labels: { a: 'b' }, creationTimestamp: '2024-01-01T00:00:00Z' },
      spec: { containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 80 }] }] },
    });
    fc.assert(
      fc.property(fc.nat(pod.length - 1), fc.integer({ min: 0, max: 255 }), (at, byte) => {
        const bytes = Uint8Array.from(pod);
        bytes[at] = byte;
        try {
          decodeProtobuf(bytes);
        } catch (error) {
          expect(error).toBeInstanceOf(CodecError);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

function encodeLength(n: number): number[] {
  const out: number[] = [];
  let v = n;
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
  return out;
}

describe('protobuf lists and watch events', () => {
  const pods = [1, 2, 3].map((i) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `p${i}`, namespace: 'default', resourceVersion: String(i) },
    spec: { containers: [{ name: 'c', image: 'nginx' }] },
  }));

  it('a list written item by item is the bytes of the whole list', () => {
    const list = {
      apiVersion: 'v1',
      kind: 'PodList',
      metadata: { resourceVersion: '9' },
      items: pods.map(({ apiVersion: _a, kind: _k, ...item }) => item),
    };
    const streamed = Buffer.concat([...encodeListStream(list, 'protobuf', { chunkSize: 16 })]);
    expect(streamed.equals(Buffer.from(encodeProtobuf(list)))).toBe(true);
    const decoded = decodeProtobuf(streamed) as unknown as { items: unknown[] };
    expect(decoded.items).toHaveLength(3);
    expect(decoded.items[0]).toMatchObject({ metadata: { name: 'p1' } });
  });

  it('a watch event is a WatchEvent holding the enveloped object (apiserver handlers/watch.go)', () => {
    const event = { type: 'ADDED' as const, object: pods[0] };
    const message = encodeProtobufWatchEvent(event);
    const decoded = decodeProtobufWatchEvent(message);
    expect(decoded.type).toBe('ADDED');
    expect(decoded.object).toStrictEqual(decodeProtobuf(encodeProtobuf(pods[0])));
    // The object inside is the object as a GET returns it: magic and envelope included.
    expect(Buffer.from(message).includes(Buffer.from(encodeProtobuf(pods[0])))).toBe(true);
  });

  it('a WebSocket message is the WatchEvent without its length prefix (apiserver websocketFramer)', () => {
    const event = { type: 'ADDED' as const, object: pods[0] as KubeObject };
    const message = new EncodedEvent(event).webSocketMessage('protobuf');
    expect(message.binary).toBe(true);
    expect(Buffer.from(message.data).equals(Buffer.from(encodeProtobufWatchEvent(event)))).toBe(
      true,
    );
    expect(decodeWebSocketMessage(message.data, 'protobuf').object).toMatchObject({
      metadata: { name: 'p1' },
    });
  });

  it('length-prefixed watch events decode in order however the stream is cut', async () => {
    const bytes = Buffer.concat(
      pods.map((object, i) =>
        encodeWatchEvent({ type: i ? 'MODIFIED' : 'ADDED', object }, PROTOBUF_LENGTH_PREFIXED),
      ),
    );
    const chunks = [bytes.subarray(0, 3), bytes.subarray(3, 50), bytes.subarray(50)];
    const events = [];
    for await (const event of decodeWatchStream(chunks, PROTOBUF_LENGTH_PREFIXED))
      events.push(event);
    expect(
      events.map((e) => [e.type, (e.object.metadata as { name?: string } | undefined)?.name]),
    ).toEqual([
      ['ADDED', 'p1'],
      ['MODIFIED', 'p2'],
      ['MODIFIED', 'p3'],
    ]);
  });
});
