import type { KubeList, KubeObject, Status } from '@listwatch/api';
import { describe, expect, it } from 'vitest';
import { serverForFile } from '../testing/test-server.js';

// Secrets as kube-apiserver stores them (k8s.io/kubernetes pkg/apis/core/v1/conversion.go and
// pkg/apis/core/validation/validation.go ValidateSecret): stringData is merged into data as
// base64 and never stored; data values are base64, keys are config keys, 1 MiB in all.

const b64 = (s: string) => Buffer.from(s).toString('base64');

const env = serverForFile('secrets');
const namespace = () => env.namespace();

const secret = (name: string, extra: Record<string, unknown>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name },
  ...extra,
});

function expectInvalid(res: { status: number; body: unknown }, field: string): Status {
  expect(res.status).toBe(422);
  const status = res.body as Status;
  expect(status).toMatchObject({ kind: 'Status', code: 422, reason: 'Invalid' });
  expect(status.details?.causes?.map((c) => c.field)).toContain(field);
  return status;
}

describe('stringData', () => {
  it('is merged into data as base64 on create, wins over a data key of the same name, and is not stored', async () => {
    const ns = await namespace();
    const created = await env.api.post(
      `/api/v1/namespaces/${ns}/secrets`,
      secret('s', { data: { a: b64('old'), b: b64('kept') }, stringData: { a: 'b', c: 'ü' } }),
    );
    expect(created.status).toBe(201);
    expect(created.body['data']).toEqual({ a: b64('b'), b: b64('kept'), c: b64('ü') });
    expect(created.body).not.toHaveProperty('stringData');
    expect(created.body['type']).toBe('Opaque');
    const got = await env.api.get(`/api/v1/namespaces/${ns}/secrets/s`);
    expect(got.body).toEqual(created.body);
  });

  it('is merged on update', async () => {
    const ns = await namespace();
    const created = await env.api.post(
      `/api/v1/namespaces/${ns}/secrets`,
      secret('s', { data: { a: b64('1') } }),
    );
    const updated = await env.api.put(`/api/v1/namespaces/${ns}/secrets/s`, {
      ...created.body,
      stringData: { b: '2' },
    });
    expect(updated.status).toBe(200);
    expect(updated.body['data']).toEqual({ a: b64('1'), b: b64('2') });
    expect(updated.body).not.toHaveProperty('stringData');
  });

  it.each([
    ['application/merge-patch+json', { stringData: { b: '2' } }],
    ['application/strategic-merge-patch+json', { stringData: { b: '2' } }],
    ['application/json-patch+json', [{ op: 'add', path: '/stringData', value: { b: '2' } }]],
  ])('is merged by a %s patch', async (type, patch) => {
    const ns = await namespace();
    await env.api.post(`/api/v1/namespaces/${ns}/secrets`, secret('s', { data: { a: b64('1') } }));
    const patched = await env.api.patch(`/api/v1/namespaces/${ns}/secrets/s`, patch, type);
    expect(patched.status).toBe(200);
    expect(patched.body['data']).toEqual({ a: b64('1'), b: b64('2') });
    expect(patched.body).not.toHaveProperty('stringData');
    expect((await env.api.get(`/api/v1/namespaces/${ns}/secrets/s`)).body).toEqual(patched.body);
  });

  it('keys are validated as data keys once merged', async () => {
    const ns = await namespace();
    const res = await env.api.post(
      `/api/v1/namespaces/${ns}/secrets`,
      secret('s', { stringData: { 'a/b': 'x' } }),
    );
    expectInvalid(res, 'data[a/b]');
  });
});

describe('data', () => {
  it('a value that is not base64 is 422 Invalid on data[key], and nothing is created', async () => {
    const ns = await namespace();
    const res = await env.api.post(
      `/api/v1/namespaces/${ns}/secrets`,
      secret('s', { data: { good: b64('x'), bad: 'not base64!' } }),
    );
    const status = expectInvalid(res, 'data[bad]');
    expect(status.message).toBe(
      'Secret "s" is invalid: data[bad]: Invalid value: "<secret contents redacted>": illegal base64 data at input byte 3',
    );
    expect(status.message).not.toContain('not base64');
    const list = await env.api.get<KubeList>(`/api/v1/namespaces/${ns}/secrets`);
    expect(list.body.items).toEqual([]);
  });

  it.each([
    ['application/json', 'PUT'],
    ['application/merge-patch+json', 'PATCH'],
    ['application/strategic-merge-patch+json', 'PATCH'],
    ['application/json-patch+json', 'PATCH'],
  ])(
    'a value that is not base64 is 422 through %s and leaves the secret as it was',
    async (type, method) => {
      const ns = await namespace();
      const path = `/api/v1/namespaces/${ns}/secrets/s`;
      const before = (
        await env.api.post(
          `/api/v1/namespaces/${ns}/secrets`,
          secret('s', { data: { a: b64('1') } }),
        )
      ).body;
      const body =
        method === 'PUT'
          ? { ...before, data: { a: 'abc' } }
          : type === 'application/json-patch+json'
            ? [{ op: 'replace', path: '/data/a', value: 'abc' }]
            : { data: { a: 'abc' } };
      const res = await env.api.call(method, path, body, { 'Content-Type': type });
      expectInvalid(res, 'data[a]');
      expect((await env.api.get(path)).body).toEqual(before);
    },
  );

  it('base64 with line breaks is accepted and stored without them, as Go decodes and re-encodes it', async () => {
    const ns = await namespace();
    const value = b64('a longer value that spans lines');
    const res = await env.api.post(
      `/api/v1/namespaces/${ns}/secrets`,
      secret('s', { data: { a: `${value.slice(0, 8)}\n${value.slice(8)}` } }),
    );
    expect(res.status).toBe(201);
    expect(res.body['data']).toEqual({ a: value });
  });

  it('a key that is not a config key is 422 on data[key]', async () => {
    const ns = await namespace();
    const res = await env.api.post(
      `/api/v1/namespaces/${ns}/secrets`,
      secret('s', { data: { '..x': b64('1') } }),
    );
    const status = expectInvalid(res, 'data[..x]');
    expect(status.message).toContain("must not start with '..'");
  });

  it('more than 1 MiB of data is 422 Too long on data', async () => {
    const ns = await namespace();
    const half = Buffer.alloc(512 * 1024 + 1, 1).toString('base64');
    const res = await env.api.post(
      `/api/v1/namespaces/${ns}/secrets`,
      secret('s', { data: { a: half, b: half } }),
    );
    const status = expectInvalid(res, 'data');
    expect(status.message).toBe(
      'Secret "s" is invalid: data: Too long: must have at most 1048576 bytes',
    );
  });

  it('a value that is not a string is a 400 decoding error', async () => {
    const ns = await namespace();
    const res = await env.api.post<Status>(
      `/api/v1/namespaces/${ns}/secrets`,
      secret('s', { data: { a: 5 } }),
    );
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(
      'Secret in version "v1" cannot be handled as a Secret: json: cannot unmarshal number into Go struct field Secret.data of type []uint8',
    );
  });
});
