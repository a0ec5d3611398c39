import type { KubeObject, Status } from '@listwatch/api';
import { MemoryStorage } from '@listwatch/storage';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { RunningApiServer } from '../server.js';
import { testServer } from '../testing/test-server.js';

// Request bodies as kube-apiserver's serializers read them (codec_factory.go: JSON, YAML,
// protobuf, CBOR); anything else is 415 naming exactly those (negotiation/errors.go).

describe('request body media types', () => {
  let server: RunningApiServer;
  let n = 0;
  const send = async (method: string, path: string, body: string, type: string) => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: { 'content-type': type },
      body,
    });
    return { status: res.status, body: (await res.json()) as KubeObject & Status };
  };
  const base = '/api/v1/namespaces/default/configmaps';

  beforeAll(async () => {
    server = await testServer(new MemoryStorage({ compactionInterval: 0 }));
  });
  afterAll(() => server.close());

  it('a create and an update in application/yaml are read as kube reads YAML (1.1, first document)', async () => {
    const created = await send(
      'POST',
      base,
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y1\n  labels: {on: "yes"}\ndata:\n  when: 2024-01-01\n  num: "010"\n',
      'application/yaml',
    );
    expect(created.status).toBe(201);
    // YAML 1.1: the key `on` is the boolean true, written "true" (sigs.k8s.io/yaml does the same).
    expect(created.body.metadata.labels).toEqual({ true: 'yes' });
    expect(created.body['data']).toEqual({ when: '2024-01-01', num: '010' });
    const updated = await send(
      'PUT',
      `${base}/y1`,
      'metadata:\n  name: y1\ndata:\n  k: v\n',
      'application/yaml; charset=utf-8',
    );
    expect(updated.status).toBe(200);
    expect(updated.body['data']).toEqual({ k: 'v' });
  });

  it('malformed YAML is 400, never 415 or 500', async () => {
    const res = await send('POST', base, 'metadata: [unclosed\n', 'application/yaml');
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^error converting YAML to JSON: /);
  });

  it('any ConfigMap created from YAML equals the same one created from JSON', async () => {
    const data = fc.dictionary(
      fc.stringMatching(/^[A-Za-z][A-Za-z0-9._-]{0,7}$/),
      fc.string({ maxLength: 12 }),
      { maxKeys: 4 },
    );
    await fc.assert(
      fc.asyncProperty(data, async (d) => {
        const i = n++;
        const fromYaml = await send(
          'POST',
          base,
          stringify({ metadata: { name: `py${i}` }, data: d }, { version: '1.1' }),
          'application/yaml',
        );
        const fromJson = await send(
          'POST',
          base,
          JSON.stringify({ metadata: { name: `pj${i}` }, data: d }),
          'application/json',
        );
        expect(fromJson.status).toBe(201);
        expect(fromYaml.status).toBe(201);
        expect(fromYaml.body['data']).toEqual(fromJson.body['data']);
      }),
      { numRuns: 15 },
    );
  });

  it('an unknown media type is 415 listing exactly the accepted ones, with no details', async () => {
    const res = await send('POST', base, '{}', 'text/plain');
    expect(res.status).toBe(415);
    expect(res.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf, application/cbor',
      reason: 'UnsupportedMediaType',
      code: 415,
    });
  });
});
