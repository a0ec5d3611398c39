import { MemoryStorage } from '@listwatch/storage';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { RunningApiServer } from '../server.js';
import { testServer } from '../testing/test-server.js';

// Never a 5xx for what a client sends, on every surface besides write bodies (write-fuzz):
// list and watch query parameters, selectors, continue tokens, headers, CBOR and protobuf bodies,
// WebSocket frames. Each surface gets LISTWATCH_FUZZ_RUNS generated inputs (1,000 in the test
// run; 10,000 and more locally), sent a batch at a time; the server logs nothing at error,
// answers every one, and its cache still agrees with storage. 504 is kube's answer to a
// resourceVersion from the future (Too large resource version), not a failure.

const RUNS = Number(process.env['LISTWATCH_FUZZ_RUNS'] ?? 1_000);
const TIMEOUT = 600_000;
const BATCH = 50;
const NS = 'surfaces';

let server: RunningApiServer;
const errors: string[] = [];

beforeAll(async () => {
  server = await testServer(new MemoryStorage({ compactionInterval: 0 }), {
    logger: {
      debug() {},
      info() {},
      warn() {},
      error: (message, fields) => {
        if (fields?.['code'] !== 504) errors.push(`${message} ${JSON.stringify(fields)}`);
      },
    },
  });
  await fetch(`${server.url}/api/v1/namespaces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ metadata: { name: NS } }),
  });
  for (let i = 0; i < 5; i++)
    await fetch(`${server.url}/api/v1/namespaces/${NS}/configmaps`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ metadata: { name: `c${i}`, labels: { app: `a${i % 2}` } } }),
    });
});
afterAll(() => server.close());

/** Sends every request `make` builds from each sample; returns the status codes seen. */
async function storm<T>(arbitrary: fc.Arbitrary<T>, make: (input: T) => Promise<number>) {
  const statuses = new Map<number, number>();
  const samples = fc.sample(arbitrary, { numRuns: RUNS, seed: 424242 });
  for (let i = 0; i < samples.length; i += BATCH) {
    const codes = await Promise.all(samples.slice(i, i + BATCH).map((input) => make(input)));
    for (const [j, code] of codes.entries()) {
      statuses.set(code, (statuses.get(code) ?? 0) + 1);
      if (code >= 500 && code !== 504)
        throw new Error(`${code} for ${JSON.stringify(samples[i + j])}`);
    }
  }
  return statuses;
}

async function status(path: string, init: RequestInit = {}): Promise<number> {
  const res = await fetch(`${server.url}${path}`, { ...init, signal: AbortSignal.timeout(15_000) });
  // The status is the answer; a watch that was accepted is not waited for.
  await res.body?.cancel();
  return res.status;
}

/** The server still serves and its watch cache agrees with storage. */
async function stillConsistent(): Promise<void> {
  const fromCache = (await (
    await fetch(`${server.url}/api/v1/namespaces/${NS}/configmaps?resourceVersion=0`)
  ).json()) as { items: unknown[] };
  const fromStorage = (await (
    await fetch(`${server.url}/api/v1/namespaces/${NS}/configmaps`)
  ).json()) as { items: unknown[] };
  expect(fromCache.items).toEqual(fromStorage.items);
  expect(errors).toEqual([]);
}

const junk = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.constantFrom(
    '',
    '0',
    '-1',
    '1e400',
    '18446744073709551616',
    'NaN',
    '%',
    '%zz',
    '\u0000',
    'a,b',
    '!a',
    'a in (b',
    'x=',
    '=',
    '==y',
    'metadata.name',
    'true',
    'True',
    'Exact',
    'NotOlderThan',
  ),
);
const PARAMS = [
  'labelSelector',
  'fieldSelector',
  'resourceVersion',
  'resourceVersionMatch',
  'limit',
  'continue',
  'timeoutSeconds',
  'allowWatchBookmarks',
  'sendInitialEvents',
  'watch',
  'pretty',
  'dryRun',
  'propagationPolicy',
  'gracePeriodSeconds',
  'fieldValidation',
  'fieldManager',
  'force',
];

describe('no input is a 5xx', { timeout: TIMEOUT }, () => {
  it('list and watch query parameters, selectors included', async () => {
    const query = fc.array(fc.tuple(fc.constantFrom(...PARAMS, 'x'), junk), { maxLength: 4 });
    await storm(query, (pairs) => {
      const q = new URLSearchParams(pairs);
      // A watch that was accepted would stay open: bound it.
      if (q.get('watch') !== null || q.get('sendInitialEvents') !== null)
        q.set('timeoutSeconds', '1');
      return status(`/api/v1/namespaces/${NS}/configmaps?${q.toString()}`);
    });
    await stillConsistent();
  });

  it('continue tokens', async () => {
    const token = fc.oneof(
      junk,
      fc.jsonValue().map((v) => Buffer.from(JSON.stringify(v)).toString('base64url')),
      fc
        .record({
          v: fc.constantFrom('meta.k8s.io/v1', 'x'),
          rv: fc.oneof(fc.integer(), fc.string()),
          start: fc.string(),
        })
        .map((v) => Buffer.from(JSON.stringify(v)).toString('base64')),
    );
    await storm(token, (t) =>
      status(`/api/v1/namespaces/${NS}/configmaps?limit=2&continue=${encodeURIComponent(t)}`),
    );
    await stillConsistent();
  });

  it('headers: Accept, Content-Type, impersonation and credentials', async () => {
    const value = fc.string({
      unit: fc.constantFrom(
        ...'abcxyz/;=*,.+-q0.91 \tjsoncborvndkubernetesprotobufyaml"'.split(''),
      ),
      maxLength: 60,
    });
    const headers = fc.record(
      {
        accept: value,
        'content-type': value,
        'impersonate-user': fc.option(value, { nil: undefined }),
        'impersonate-group': fc.option(value, { nil: undefined }),
        authorization: fc.option(
          fc.oneof(
            value,
            value.map((v) => `Bearer ${v}`),
          ),
          { nil: undefined },
        ),
      },
      { requiredKeys: ['accept', 'content-type'] },
    );
    await storm(
      fc.tuple(fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE'), headers),
      ([method, h]) => {
        const clean = Object.fromEntries(
          Object.entries(h)
            .filter(([, v]) => v !== undefined)
            .map(([k, v]) => [k, v!.trim()]),
        );
        const named = method === 'POST' ? '' : '/c0';
        return status(`/api/v1/namespaces/${NS}/configmaps${named}?dryRun=All`, {
          method,
          headers: clean,
          ...(method === 'GET' || method === 'DELETE'
            ? {}
            : { body: '{"metadata":{"name":"c0"}}' }),
        });
      },
    );
    await stillConsistent();
  });

  it.each([
    ['CBOR', 'application/cbor'],
    ['protobuf', 'application/vnd.kubernetes.protobuf'],
  ])('%s bodies', async (_what, contentType) => {
    const body = fc.oneof(
      fc.uint8Array({ maxLength: 256 }),
      // Valid-looking starts: CBOR's self-describe tag, protobuf's k8s magic.
      fc.uint8Array({ maxLength: 128 }).map((b) => Uint8Array.from([0xd9, 0xd9, 0xf7, ...b])),
      fc.uint8Array({ maxLength: 128 }).map((b) => Uint8Array.from([0x6b, 0x38, 0x73, 0x00, ...b])),
    );
    await storm(fc.tuple(fc.constantFrom('POST', 'PUT', 'PATCH'), body), ([method, bytes]) =>
      status(`/api/v1/namespaces/${NS}/configmaps${method === 'POST' ? '' : '/c1'}?dryRun=All`, {
        method,
        headers: {
          'content-type': method === 'PATCH' ? 'application/merge-patch+json' : contentType,
        },
        body: bytes,
      }),
    );
    await stillConsistent();
  });

  it('WebSocket watch frames: whatever a client sends, the watch and the server carry on', async () => {
    const frames = fc.sample(fc.oneof(fc.string(), fc.uint8Array({ maxLength: 64 })), {
      numRuns: RUNS,
      seed: 7,
    });
    const url = `${server.url.replace('http', 'ws')}/api/v1/namespaces/${NS}/configmaps?watch=true&timeoutSeconds=30`;
    const socket = new WebSocket(url, { origin: server.url });
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const closed = new Promise<number>((resolve) => socket.once('close', resolve));
    for (const frame of frames) socket.send(frame);
    // The server sends a watch event after all that.
    const event = new Promise<string>((resolve) =>
      socket.on('message', (data: Buffer) => resolve(data.toString())),
    );
    await fetch(`${server.url}/api/v1/namespaces/${NS}/configmaps`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ metadata: { name: 'after-frames' } }),
    });
    expect(await Promise.race([event, closed.then((code) => `closed ${code}`)])).toMatch(
      /"type":"ADDED"|closed 1000/,
    );
    socket.close();
    await stillConsistent();
  });
});
