import type { KubeObject, Status } from '@listwatch/api';
import { MemoryStorage } from '@listwatch/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApiServer } from '../server.js';
import { testServer } from '../testing/test-server.js';

// Duplicate keys in a request body, as kube-apiserver's strict decoding treats them (KEP-2885):
// sigs.k8s.io/json's `duplicate field "<path>"` is a 400 under fieldValidation=Strict, a
// `Warning: 299` under Warn (the default) and nothing under Ignore (handlers/create.go,
// update.go). CBOR maps with a repeated key are invalid and refused at any level.

describe('duplicate fields in a request body', () => {
  let server: RunningApiServer;
  let n = 0;
  const base = '/api/v1/namespaces/default/configmaps';
  const post = async (body: string | Uint8Array, query = '', type = 'application/json') => {
    const res = await fetch(`${server.url}${base}${query}`, {
      method: 'POST',
      headers: { 'content-type': type },
      body,
    });
    return {
      status: res.status,
      warning: res.headers.get('warning'),
      body: (await res.json()) as KubeObject & Status,
    };
  };
  const doc = () =>
    `{"metadata":{"name":"d${n++}","labels":{"a":"1","a":"2"}},"data":{"k":"v"},"data":{"k":"w"}}`;

  beforeAll(async () => {
    server = await testServer(new MemoryStorage({ compactionInterval: 0 }));
  });
  afterAll(() => server.close());

  it('Strict: 400 naming every duplicate by its path, as transformDecodeError words it', async () => {
    const res = await post(doc(), '?fieldValidation=Strict');
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "metadata.labels.a", duplicate field "data"',
    );
  });

  it('Strict: unknown and duplicate fields together, unknown first', async () => {
    const res = await post(
      `{"metadata":{"name":"u${n++}"},"bogus":1,"data":{"k":"v","k":"w"}}`,
      '?fieldValidation=Strict',
    );
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "bogus", duplicate field "data.k"',
    );
  });

  it('Warn (the default): created, with one 299 warning per duplicate; the last value stands', async () => {
    const res = await post(doc());
    expect(res.status).toBe(201);
    expect(res.warning).toBe(
      '299 - "duplicate field \\"metadata.labels.a\\"", 299 - "duplicate field \\"data\\""',
    );
    expect(res.body.metadata.labels).toEqual({ a: '2' });
  });

  it('Ignore: created without a word', async () => {
    const res = await post(doc(), '?fieldValidation=Ignore');
    expect(res.status).toBe(201);
    expect(res.warning).toBeNull();
  });

  it('a duplicate inside a field that reads its own JSON, or inside an unknown field, is not one', async () => {
    // managedFields[].fieldsV1 is raw JSON to the decoder; `bogus` is unknown (reported as such).
    const res = await post(
      `{"metadata":{"name":"r${n++}","managedFields":[{"manager":"m","operation":"Apply","fieldsType":"FieldsV1","fieldsV1":{"f:data":{},"f:data":{}}}]},"bogus":{"x":1,"x":2}}`,
      '?fieldValidation=Strict',
    );
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/strict decoding error: unknown field "bogus"$/);
  });

  it('a CBOR map with a repeated key is 400 whatever fieldValidation says', async () => {
    // {"metadata": {"name": "c"}, "data": {"k": "v", "k": "w"}}
    const text = (s: string) => [0x60 + s.length, ...Buffer.from(s)];
    const cbor = Uint8Array.from([
      0xd9,
      0xd9,
      0xf7,
      0xa2,
      ...text('metadata'),
      0xa1,
      ...text('name'),
      ...text('cbor1'),
      ...text('data'),
      0xa2,
      ...text('k'),
      ...text('v'),
      ...text('k'),
      ...text('w'),
    ]);
    for (const query of ['?fieldValidation=Ignore', '']) {
      const res = await post(cbor, query, 'application/cbor');
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: cbor: found duplicate map key "k" at map element index 1',
      );
    }
  });
});
