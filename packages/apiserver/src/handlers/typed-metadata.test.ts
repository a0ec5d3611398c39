import type { KubeList, KubeObject, Status } from '@listwatch/api';
import { describe, expect, it } from 'vitest';
import { cm, serverForFile } from '../testing/test-server.js';

// kube-apiserver decodes every body, and every patch result, into the kind's Go type: a value of
// the wrong JSON type there is a decoding error (400 for a body, 422 on `patch` for a patch),
// never a 500. One backend suffices: all of this happens before storage.

const MERGE = 'application/merge-patch+json';
const SMP = 'application/strategic-merge-patch+json';
const JSON_PATCH = 'application/json-patch+json';

/** `{"a":{"a":...{"a":"x"}}}`, `levels` objects deep, as text (JSON.stringify would overflow). */
function nested(levels: number): string {
  return `${'{"a":'.repeat(levels)}"x"${'}'.repeat(levels)}`;
}

interface Case {
  what: string;
  /** The metadata sent, as JSON text. */
  metadata: string;
  /** The Go decoding error, when a body carries it. */
  error?: string;
}

const cases: Case[] = [
  {
    what: 'a label value 5',
    metadata: '{"name":"x","labels":{"a":5}}',
    error:
      'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string',
  },
  {
    what: 'an annotation value 5',
    metadata: '{"name":"x","annotations":{"a":5}}',
    error:
      'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.annotations of type string',
  },
  {
    what: 'a name 5',
    metadata: '{"name":5}',
    error:
      'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.name of type string',
  },
  {
    what: 'an owner reference 5',
    metadata: '{"name":"x","ownerReferences":[5]}',
    error:
      'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.ownerReferences of type v1.OwnerReference',
  },
  {
    what: 'an annotation nested 100000 levels deep',
    metadata: `{"name":"x","annotations":{"a":${nested(100_000)}}}`,
  },
];

const env = serverForFile('typed');

/** A fresh namespace holding ConfigMap `x`; returns its path and the stored object. */
async function setup(): Promise<{ ns: string; path: string; before: KubeObject }> {
  const ns = await env.namespace();
  const created = await env.api.post(`/api/v1/namespaces/${ns}/configmaps`, cm('x'));
  expect(created.status).toBe(201);
  return { ns, path: `/api/v1/namespaces/${ns}/configmaps/x`, before: created.body };
}

function expectStatus(res: { status: number; body: unknown }, code: number): Status {
  expect(res.status).toBe(code);
  const status = res.body as Status;
  expect(status).toMatchObject({ kind: 'Status', status: 'Failure', code });
  return status;
}

/** The object as stored is what it was before the failed write. */
async function expectUnchanged(path: string, before: KubeObject): Promise<void> {
  expect((await env.api.get(path)).body).toEqual(before);
}

describe.each(cases)('$what', ({ metadata, error }) => {
  const body = `{"apiVersion":"v1","kind":"ConfigMap","metadata":${metadata},"data":{"k":"v"}}`;

  it('POST is a 400 BadRequest and creates nothing', async () => {
    const { ns, before } = await setup();
    const res = await env.api.call('POST', `/api/v1/namespaces/${ns}/configmaps`, body);
    const status = expectStatus(res, 400);
    expect(status.reason).toBe('BadRequest');
    if (error)
      expect(status.message).toBe(
        `ConfigMap in version "v1" cannot be handled as a ConfigMap: ${error}`,
      );
    const list = await env.api.get<KubeList>(`/api/v1/namespaces/${ns}/configmaps`);
    expect(list.body.items).toEqual([before]);
  });

  it('PUT is a 400 BadRequest and leaves the object as it was', async () => {
    const { path, before } = await setup();
    const status = expectStatus(await env.api.call('PUT', path, body), 400);
    expect(status.reason).toBe('BadRequest');
    if (error) expect(status.message).toContain(error);
    await expectUnchanged(path, before);
  });

  it.each([MERGE, SMP])('PATCH %s is a 4xx and leaves the object as it was', async (type) => {
    const { path, before } = await setup();
    const res = await env.api.call('PATCH', path, `{"metadata":${metadata}}`, {
      'Content-Type': type,
    });
    // A patch result kube cannot decode is a 422 on `patch`; a patch it cannot read is a 400.
    const status = expectStatus(res, error ? 422 : 400);
    if (error) {
      expect(status.reason).toBe('Invalid');
      expect(status.details?.causes?.[0]).toMatchObject({ field: 'patch' });
      expect(status.message).toContain(error);
    }
    await expectUnchanged(path, before);
  });

  it('PATCH application/json-patch+json is a 4xx and leaves the object as it was', async () => {
    const { path, before } = await setup();
    const patch = `[{"op":"replace","path":"/metadata","value":${metadata}}]`;
    const res = await env.api.call('PATCH', path, patch, { 'Content-Type': JSON_PATCH });
    const status = expectStatus(res, error ? 422 : 400);
    if (error) expect(status.message).toContain(error);
    await expectUnchanged(path, before);
  });
});

describe('other malformed metadata', () => {
  it.each([
    [
      'metadata 5',
      '{"metadata":5}',
      'json: cannot unmarshal number into Go struct field ConfigMap.metadata of type v1.ObjectMeta',
    ],
    [
      'labels that are a list',
      '{"metadata":{"name":"y","labels":["a"]}}',
      'json: cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type map[string]string',
    ],
    [
      'an owner reference with a numeric uid',
      '{"metadata":{"name":"y","ownerReferences":[{"apiVersion":"v1","kind":"Pod","name":"p","uid":7}]}}',
      'json: cannot unmarshal number into Go struct field OwnerReference.metadata.ownerReferences.uid of type string',
    ],
    [
      'a fractional generation',
      '{"metadata":{"name":"y","generation":1.5}}',
      'json: cannot unmarshal number 1.5 into Go struct field ObjectMeta.metadata.generation of type int64',
    ],
    [
      'a finalizer that is an object',
      '{"metadata":{"name":"y","finalizers":[{}]}}',
      'json: cannot unmarshal object into Go struct field ObjectMeta.metadata.finalizers of type string',
    ],
  ])('%s is a 400 naming the Go field', async (_what, body, error) => {
    const { ns } = await setup();
    const res = await env.api.call('POST', `/api/v1/namespaces/${ns}/configmaps`, body);
    expect(expectStatus(res, 400).message).toBe(
      `ConfigMap in version "v1" cannot be handled as a ConfigMap: ${error}`,
    );
  });

  it('an apiVersion 5 is a 400 from reading the type meta', async () => {
    const { ns } = await setup();
    const res = await env.api.call(
      'POST',
      `/api/v1/namespaces/${ns}/configmaps`,
      '{"apiVersion":5,"metadata":{"name":"y"}}',
    );
    expect(expectStatus(res, 400).message).toBe(
      "the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: json: cannot unmarshal number into Go struct field .apiVersion of type string",
    );
  });

  it('nulls decode to Go zero values: a null label value is "", a null owner reference is empty and invalid', async () => {
    const { ns } = await setup();
    const created = await env.api.call(
      'POST',
      `/api/v1/namespaces/${ns}/configmaps`,
      '{"metadata":{"name":"y","labels":{"a":null},"annotations":null}}',
    );
    expect(created.status).toBe(201);
    expect(created.body.metadata.labels).toEqual({ a: '' });
    expect(created.body.metadata).not.toHaveProperty('annotations');
    const owner = await env.api.call(
      'POST',
      `/api/v1/namespaces/${ns}/configmaps`,
      '{"metadata":{"name":"z","ownerReferences":[null,{}]}}',
    );
    const status = expectStatus(owner, 422);
    expect(status.details?.causes?.map((c) => c.field)).toContain(
      'metadata.ownerReferences.apiVersion',
    );
  });

  it('a body nested deeper than 10000 levels is a 400 however it is nested', async () => {
    const { ns } = await setup();
    const res = await env.api.call(
      'POST',
      `/api/v1/namespaces/${ns}/configmaps`,
      `{"metadata":{"name":"y"},"data":${nested(10_001)}}`,
    );
    expect(expectStatus(res, 400).message).toContain('exceeded max depth');
  });

  it('a status nested a few thousand levels deep is a 4xx, not a stack overflow', async () => {
    const { ns } = await setup();
    const pod = (status: string) =>
      `{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"i"}]},"status":${status}}`;
    expect((await env.api.call('POST', `/api/v1/namespaces/${ns}/pods`, pod('{}'))).status).toBe(
      201,
    );
    for (const levels of [3000, 9000]) {
      const put = await env.api.call(
        'PUT',
        `/api/v1/namespaces/${ns}/pods/p/status`,
        pod(nested(levels)),
      );
      expect([200, 400, 422]).toContain(put.status);
      for (const type of [MERGE, SMP]) {
        const res = await env.api.call(
          'PATCH',
          `/api/v1/namespaces/${ns}/pods/p/status`,
          `{"status":${nested(levels)}}`,
          { 'Content-Type': type },
        );
        expect([200, 400, 422]).toContain(res.status);
      }
    }
  });
});
