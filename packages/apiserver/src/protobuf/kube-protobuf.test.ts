import { ApiError } from '@listwatch/api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeKubeProtobuf } from './kube-protobuf.js';
import { readFields, readVarint } from './protobuf-reader.js';

// A small protobuf writer, enough to build bodies the way gogo-generated Marshal writes them:
// every plain field present (zero or not), pointers only when set, map entries as messages.

function varint(value: bigint): number[] {
  const out: number[] = [];
  let v = BigInt.asUintN(64, value);
  do {
    const byte = Number(v & 0x7fn);
    v >>= 7n;
    out.push(v ? byte | 0x80 : byte);
  } while (v);
  return out;
}

const tag = (field: number, wireType: number) => varint(BigInt((field << 3) | wireType));
const int = (field: number, value: number | bigint) => [...tag(field, 0), ...varint(BigInt(value))];
const bytes = (field: number, value: Uint8Array | number[]) => [
  ...tag(field, 2),
  ...varint(BigInt(value.length)),
  ...value,
];
const str = (field: number, value: string) => bytes(field, [...Buffer.from(value, 'utf8')]);
const map = (field: number, entries: Record<string, string | Uint8Array>) =>
  Object.entries(entries).flatMap(([k, v]) =>
    bytes(field, [...str(1, k), ...(typeof v === 'string' ? str(2, v) : bytes(2, v))]),
  );

const MAGIC = [0x6b, 0x38, 0x73, 0x00];

function envelope(apiVersion: string, kind: string, raw: number[]): Uint8Array {
  return new Uint8Array([
    ...MAGIC,
    ...bytes(1, [...str(1, apiVersion), ...str(2, kind)]),
    ...bytes(2, raw),
    ...str(3, ''),
    ...str(4, ''),
  ]);
}

interface Meta {
  name: string;
  namespace: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  finalizers: string[];
  generation: number;
  created: number;
}

/** ObjectMeta as gogo writes it: every string, the generation and the timestamp always. */
function objectMeta(m: Meta): number[] {
  return [
    ...str(1, m.name),
    ...str(2, ''),
    ...str(3, m.namespace),
    ...str(4, ''),
    ...str(5, ''),
    ...str(6, ''),
    ...int(7, m.generation),
    ...bytes(8, m.created ? int(1, m.created) : []),
    ...map(11, m.labels),
    ...map(12, m.annotations),
    ...m.finalizers.flatMap((f) => str(14, f)),
  ];
}

/** The JSON kube would write for the same ObjectMeta (omitempty). */
function metaJson(m: Meta): Record<string, unknown> {
  return {
    ...(m.name ? { name: m.name } : {}),
    ...(m.namespace ? { namespace: m.namespace } : {}),
    ...(m.generation ? { generation: m.generation } : {}),
    ...(m.created
      ? { creationTimestamp: new Date(m.created * 1000).toISOString().replace('.000Z', 'Z') }
      : {}),
    ...(Object.keys(m.labels).length ? { labels: m.labels } : {}),
    ...(Object.keys(m.annotations).length ? { annotations: m.annotations } : {}),
    ...(m.finalizers.length ? { finalizers: m.finalizers } : {}),
  };
}

const key = fc.stringMatching(/^[a-z][a-z0-9.-]{0,12}$/);
const text = fc.string({ maxLength: 20, unit: 'grapheme' });
const stringMap = fc.dictionary(key, text, { maxKeys: 4 });
const meta: fc.Arbitrary<Meta> = fc.record({
  name: fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/),
  namespace: fc.constantFrom('', 'default', 'team-a'),
  labels: stringMap,
  annotations: stringMap,
  finalizers: fc.array(key, { maxLength: 2 }),
  generation: fc.nat({ max: 1000 }),
  created: fc.constantFrom(0, 1_700_000_000, 1_800_000_123),
});

describe('the protobuf wire reader', () => {
  it('reads back every 64-bit varint it is given', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), (n) => {
        const encoded = varint(n);
        expect(readVarint(new Uint8Array(encoded), 0)).toEqual([n, encoded.length]);
      }),
    );
  });

  it('fails on any malformed input with a 400 BadRequest, never another error', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (input) => {
        try {
          readFields(input);
        } catch (err) {
          expect(err).toBeInstanceOf(ApiError);
          expect((err as ApiError).code).toBe(400);
        }
      }),
    );
  });
});

describe('decodeKubeProtobuf', () => {
  it('decodes a ConfigMap into the JSON kube would write for it', () => {
    fc.assert(
      fc.property(
        meta,
        stringMap,
        fc.dictionary(key, fc.uint8Array({ maxLength: 8 }), { maxKeys: 3 }),
        fc.option(fc.boolean(), { nil: undefined }),
        (m, data, binaryData, immutable) => {
          const raw = [
            ...bytes(1, objectMeta(m)),
            ...map(2, data),
            ...map(3, binaryData),
            ...(immutable === undefined ? [] : int(4, immutable ? 1 : 0)),
          ];
          expect(decodeKubeProtobuf(envelope('v1', 'ConfigMap', raw))).toEqual({
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: metaJson(m),
            ...(Object.keys(data).length ? { data } : {}),
            ...(Object.keys(binaryData).length
              ? {
                  binaryData: Object.fromEntries(
                    Object.entries(binaryData).map(([k, v]) => [
                      k,
                      Buffer.from(v).toString('base64'),
                    ]),
                  ),
                }
              : {}),
            ...(immutable === undefined ? {} : { immutable }),
          });
        },
      ),
    );
  });

  it('decodes a Secret: data as base64, stringData and type as given', () => {
    fc.assert(
      fc.property(
        meta,
        fc.constantFrom('', 'Opaque', 'kubernetes.io/tls'),
        stringMap,
        (m, type, stringData) => {
          const raw = [
            ...bytes(1, objectMeta(m)),
            ...map(2, { token: new Uint8Array([0, 1, 254]) }),
            ...str(3, type),
            ...map(4, stringData),
          ];
          expect(decodeKubeProtobuf(envelope('v1', 'Secret', raw))).toEqual({
            apiVersion: 'v1',
            kind: 'Secret',
            metadata: metaJson(m),
            data: { token: 'AAH+' },
            ...(type ? { type } : {}),
            ...(Object.keys(stringData).length ? { stringData } : {}),
          });
        },
      ),
    );
  });

  it('decodes the Namespace `kubectl create namespace pb` sends (bytes captured from kubectl 1.32)', () => {
    const body = Buffer.from(
      '6b3873000a0f0a02763112094e616d657370616365121a0a120a02706212001a0022002a00320038004200120' +
        '01a020a001a002200',
      'hex',
    );
    expect(decodeKubeProtobuf(body)).toEqual({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'pb' },
      spec: {},
      status: {},
    });
  });

  it('decodes the ConfigMap `kubectl create configmap cfg --from-literal=a=1` sends', () => {
    const body = Buffer.from(
      '6b3873000a0f0a0276311209436f6e6669674d6170121d0a130a0363666712001a0022002a003200380042001' +
        '2060a0161120131' +
        '1a002200',
      'hex',
    );
    expect(decodeKubeProtobuf(body)).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cfg' },
      data: { a: '1' },
    });
  });

  it('decodes the ServiceAccount `kubectl create serviceaccount pb` sends', () => {
    const body = Buffer.from(
      '6b3873000a140a027631120e536572766963654163636f756e7412140a120a02706212001a0022002a0032003800' +
        '42001a002200',
      'hex',
    );
    expect(decodeKubeProtobuf(body)).toEqual({
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'pb' },
    });
  });

  it('decodes the TokenRequests `kubectl create token` sends, expirationSeconds only when given', () => {
    const prefix =
      '6b3873000a280a1861757468656e7469636174696f6e2e6b38732e696f2f7631120c546f6b656e52657175657374';
    // kubectl create token default
    const plain = Buffer.from(
      `${prefix}121a0a100a0012001a0022002a0032003800420012001a040a0012001a002200`,
      'hex',
    );
    expect(decodeKubeProtobuf(plain)).toEqual({
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      metadata: {},
      spec: {},
      status: {},
    });
    // kubectl create token default --duration=20m --audience a --audience b
    //   --bound-object-kind Secret --bound-object-name s
    const bound = Buffer.from(
      `${prefix}12360a100a0012001a0022002a00320038004200121c0a01610a01621a110a065365637265741202` +
        '76311a0173220020b0091a040a0012001a002200',
      'hex',
    );
    expect(decodeKubeProtobuf(bound)).toEqual({
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      metadata: {},
      spec: {
        audiences: ['a', 'b'],
        boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 's' },
        expirationSeconds: 1200,
      },
      status: {},
    });
  });

  it('ignores fields it does not know while they hold their zero value, and refuses them with 415 once set', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 20, max: 1000 }),
        fc.string({ minLength: 1 }),
        (field, value) => {
          const meta0 = objectMeta({
            name: 'x',
            namespace: '',
            labels: {},
            annotations: {},
            finalizers: [],
            generation: 0,
            created: 0,
          });
          const zero = envelope('v1', 'ConfigMap', [
            ...bytes(1, meta0),
            ...str(field, ''),
            ...int(field + 1, 0),
          ]);
          expect(decodeKubeProtobuf(zero)).toEqual({
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: 'x' },
          });
          const set = envelope('v1', 'ConfigMap', [...bytes(1, meta0), ...str(field, value)]);
          expect(() => decodeKubeProtobuf(set)).toThrow(
            expect.objectContaining({ code: 415, reason: 'UnsupportedMediaType' }),
          );
        },
      ),
    );
  });

  it('refuses kinds it does not describe with a 415 that says to send JSON', () => {
    const body = envelope('apps/v1', 'Deployment', bytes(1, str(1, 'web')));
    expect(() => decodeKubeProtobuf(body)).toThrow(
      expect.objectContaining({
        code: 415,
        message: expect.stringContaining('send it as application/json') as unknown,
      }),
    );
  });

  it('refuses a body without the k8s\\0 prefix, and any garbage after it, with 400', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (garbage) => {
        for (const body of [garbage, new Uint8Array([...MAGIC, ...garbage])]) {
          try {
            decodeKubeProtobuf(body);
          } catch (err) {
            expect(err).toBeInstanceOf(ApiError);
            expect([400, 415]).toContain((err as ApiError).code);
          }
        }
      }),
    );
  });
});
