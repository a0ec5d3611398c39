import { encodeProtobuf } from '@listwatch/codec';
import { MemoryStorage } from '@listwatch/storage';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningApiServer } from '../server.js';
import { testServer } from '../testing/test-server.js';

// Whatever bytes a client sends as application/vnd.kubernetes.protobuf to create or update, the
// answer is a success or a 4xx Status: garbage, a truncated envelope, a real object with bytes
// changed, an object of another kind.

let server: RunningApiServer;
const NS = 'pbfuzz';
const logged: string[] = [];
const record = (message: string, fields?: Record<string, unknown>) =>
  logged.push(`${message} ${JSON.stringify(fields)}`);

const objects = {
  configmaps: {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'target', labels: { a: 'b' } },
    data: { k: 'v' },
    binaryData: { b: 'AAE=' },
  },
  pods: {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'target' },
    spec: { containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 80 }] }] },
  },
  deployments: {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'target' },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'x' } },
      template: {
        metadata: { labels: { app: 'x' } },
        spec: { containers: [{ name: 'c', image: 'i' }] },
      },
      strategy: { rollingUpdate: { maxSurge: '25%', maxUnavailable: 1 } },
    },
  },
} as const;
type Plural = keyof typeof objects;
const PATHS: Record<Plural, string> = {
  configmaps: `/api/v1/namespaces/${NS}/configmaps`,
  pods: `/api/v1/namespaces/${NS}/pods`,
  deployments: `/apis/apps/v1/namespaces/${NS}/deployments`,
};

beforeAll(async () => {
  server = await testServer(new MemoryStorage({ compactionInterval: 0 }), {
    logger: { debug() {}, info() {}, warn: record, error: record },
  });
  await fetch(`${server.url}/api/v1/namespaces`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ metadata: { name: NS } }),
  });
});
afterAll(async () => {
  await server.close();
});

const plural = fc.constantFrom<Plural>('configmaps', 'pods', 'deployments');
const body = fc.oneof(
  fc.uint8Array({ maxLength: 80 }),
  fc.uint8Array({ maxLength: 80 }).map((b) => Uint8Array.of(0x6b, 0x38, 0x73, 0x00, ...b)),
  fc
    .tuple(plural, fc.nat(), fc.integer({ min: 0, max: 255 }), fc.boolean())
    .map(([p, at, byte, truncate]) => {
      const bytes = Uint8Array.from(encodeProtobuf(objects[p]));
      const i = at % bytes.length;
      bytes[i] = byte;
      return truncate ? bytes.subarray(0, i) : bytes;
    }),
  plural.map((p) => encodeProtobuf(objects[p])),
);

it('any protobuf body to create or update is answered with a success or a 4xx Status', async () => {
  await fc.assert(
    fc.asyncProperty(plural, body, fc.boolean(), async (target, bytes, update) => {
      const res = await fetch(`${server.url}${PATHS[target]}${update ? '/target' : ''}`, {
        method: update ? 'PUT' : 'POST',
        headers: { 'Content-Type': 'application/vnd.kubernetes.protobuf' },
        body: bytes,
        signal: AbortSignal.timeout(10_000),
      });
      const text = await res.text();
      expect(res.status, text).toBeLessThan(500);
      if (res.status >= 400) {
        expect(JSON.parse(text)).toMatchObject({ kind: 'Status', code: res.status });
      }
    }),
    { numRuns: 300 },
  );
  expect(logged).toEqual([]);
});
