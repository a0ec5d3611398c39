import type { KubeObject, Status } from '@listwatch/api';
import { encodeCbor } from '@listwatch/codec';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { serverForFile } from '../testing/test-server.js';

// Server-side apply over HTTP (k8s.io/apiserver patch.go applyPatcher and the fieldmanager):
// the properties the issue asks for, and the request-level rules of PatchOptions.

const srv = serverForFile('apply');
const APPLY = 'application/apply-patch+yaml';

const configMap = (name: string, data: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name },
  data,
});

const entries = (o: KubeObject) =>
  (o.metadata.managedFields ?? []) as unknown as {
    manager: string;
    operation: string;
    subresource?: string;
    fieldsV1: unknown;
  }[];

describe('server-side apply properties', () => {
  const data = fc.dictionary(
    fc.constantFrom('a', 'b', 'c', 'd', 'e'),
    fc.string({ maxLength: 5 }),
    {
      maxKeys: 4,
    },
  );

  it('applying the same configuration twice is a no-op that keeps the resourceVersion', async () => {
    const ns = await srv.namespace();
    let n = 0;
    await fc.assert(
      fc.asyncProperty(data, async (d) => {
        const path = `/api/v1/namespaces/${ns}/configmaps/p${n++}?fieldManager=prop`;
        const first = await srv.api.patch(path, configMap(`p${n - 1}`, d), APPLY);
        expect(first.status).toBe(201);
        const second = await srv.api.patch(path, configMap(`p${n - 1}`, d), APPLY);
        expect(second.status).toBe(200);
        expect(second.body.metadata.resourceVersion).toBe(first.body.metadata.resourceVersion);
        expect(second.body).toEqual(first.body);
      }),
      { numRuns: 15 },
    );
  });

  it('applies of A then B by different managers on disjoint keys equal B then A', async () => {
    const ns = await srv.namespace();
    let n = 0;
    await fc.assert(
      fc.asyncProperty(data, data, async (a, b) => {
        const bOnly = Object.fromEntries(Object.entries(b).filter(([k]) => !(k in a)));
        const run = async (first: [string, object], second: [string, object]) => {
          const name = `q${n++}`;
          const path = `/api/v1/namespaces/${ns}/configmaps/${name}`;
          await srv.api.patch(
            `${path}?fieldManager=${first[0]}`,
            configMap(name, first[1] as Record<string, string>),
            APPLY,
          );
          const res = await srv.api.patch(
            `${path}?fieldManager=${second[0]}`,
            configMap(name, second[1] as Record<string, string>),
            APPLY,
          );
          expect(res.status).toBe(200);
          return res.body;
        };
        const ab = await run(['one', a], ['two', bOnly]);
        const ba = await run(['two', bOnly], ['one', a]);
        expect(ab['data'] ?? {}).toEqual(ba['data'] ?? {});
        const owners = (o: KubeObject) =>
          Object.fromEntries(entries(o).map((e) => [e.manager, e.fieldsV1]));
        expect(owners(ab)).toEqual(owners(ba));
      }),
      { numRuns: 10 },
    );
  });
});

describe('apply requests', () => {
  it('a YAML body is read as YAML', async () => {
    const ns = await srv.namespace();
    const res = await srv.api.patch(
      `/api/v1/namespaces/${ns}/configmaps/cfg?fieldManager=yaml`,
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  greeting: hello\n',
      APPLY,
    );
    expect(res.body).toMatchObject({ data: { greeting: 'hello' } });
    expect(res.status).toBe(201);
  });

  it('a CBOR configuration (application/apply-patch+cbor) applies as its YAML would, and its owner is the same', async () => {
    const ns = await srv.namespace();
    const url = `${srv.server.url}/api/v1/namespaces/${ns}/configmaps/cfg?fieldManager=cbor`;
    const send = (body: Uint8Array) =>
      fetch(url, {
        method: 'PATCH',
        headers: { 'content-type': 'application/apply-patch+cbor' },
        body,
      });
    const created = await send(encodeCbor(configMap('cfg', { a: '1', b: '2' })));
    expect(created.status).toBe(201);
    const again = await send(encodeCbor(configMap('cfg', { a: '1' })));
    const applied = (await again.json()) as KubeObject & { data?: Record<string, string> };
    // b, no longer applied by its only owner, is removed.
    expect(applied.data).toEqual({ a: '1' });
    expect(entries(applied)).toEqual([
      expect.objectContaining({ manager: 'cbor', operation: 'Apply' }),
    ]);
    const list = await send(encodeCbor([1, 2]));
    expect(list.status).toBe(400);
    expect(((await list.json()) as Status).message).toMatch(/cannot unmarshal array/);
  });

  it('a body that is not YAML is a 400', async () => {
    const ns = await srv.namespace();
    const res = await srv.api.patch<Status>(
      `/api/v1/namespaces/${ns}/configmaps/y?fieldManager=yaml`,
      'data: [unclosed',
      APPLY,
    );
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^error decoding patch: /);
  });

  it('a field the kind does not have is a 400, whatever fieldValidation says', async () => {
    const ns = await srv.namespace();
    const res = await srv.api.patch<Status>(
      `/api/v1/namespaces/${ns}/configmaps/u?fieldManager=m&fieldValidation=Ignore`,
      { ...configMap('u', {}), spec: { x: 1 } },
      APPLY,
    );
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(
      `failed to create typed patch object (/u; /v1, Kind=ConfigMap): .spec: field not declared in schema`,
    );
  });

  it('a keyed list item without its key is a 400 naming the field, as typed conversion words it', async () => {
    const ns = await srv.namespace();
    const res = await srv.api.patch<Status>(
      `/api/v1/namespaces/${ns}/pods/nameless?fieldManager=m`,
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'nameless' },
        spec: { containers: [{ image: 'nginx' }] },
      },
      APPLY,
    );
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(
      // The namespace is the configuration's (objectGVKNN), and this one names none.
      `failed to create typed patch object (/nameless; /v1, Kind=Pod): .spec.containers: element 0: associative list with keys has an element that omits all key fields ["name"] (and doesn't have default values for any key fields)`,
    );
  });

  it('force on a merge patch is 422 (ValidatePatchOptions)', async () => {
    const ns = await srv.namespace();
    await srv.api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap('f', { a: '1' }));
    const res = await srv.api.patch<Status>(`/api/v1/namespaces/${ns}/configmaps/f?force=true`, {
      data: { a: '2' },
    });
    expect(res.status).toBe(422);
    expect(res.body.message).toBe(
      'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch',
    );
  });

  it('a dry-run apply to an existing object answers the result and writes nothing', async () => {
    const ns = await srv.namespace();
    const path = `/api/v1/namespaces/${ns}/configmaps/d`;
    const created = await srv.api.patch(
      `${path}?fieldManager=m`,
      configMap('d', { a: '1' }),
      APPLY,
    );
    const dry = await srv.api.patch(
      `${path}?fieldManager=m&dryRun=All`,
      configMap('d', { a: '2' }),
      APPLY,
    );
    expect(dry.status).toBe(200);
    expect(dry.body['data']).toEqual({ a: '2' });
    const stored = await srv.api.get(path);
    expect(stored.body['data']).toEqual({ a: '1' });
    expect(stored.body.metadata.resourceVersion).toBe(created.body.metadata.resourceVersion);
  });

  it('an apply to the status of a missing object is 404', async () => {
    const ns = await srv.namespace();
    const res = await srv.api.patch(
      `/apis/apps/v1/namespaces/${ns}/deployments/none/status?fieldManager=m`,
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'none' },
        status: { replicas: 1 },
      },
      APPLY,
    );
    expect(res.status).toBe(404);
  });

  it('a status apply is an Apply entry with subresource status owning only status', async () => {
    const ns = await srv.namespace();
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: {
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'web', image: 'nginx' }] },
        },
      },
    };
    const base = `/apis/apps/v1/namespaces/${ns}/deployments/web`;
    expect((await srv.api.patch(`${base}?fieldManager=owner`, deployment, APPLY)).status).toBe(201);
    const res = await srv.api.patch(
      `${base}/status?fieldManager=controller`,
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web' },
        status: { observedGeneration: 1 },
      },
      APPLY,
    );
    expect(res.status).toBe(200);
    expect(res.body['status']).toMatchObject({ observedGeneration: 1 });
    expect(entries(res.body).find((e) => e.manager === 'controller')).toMatchObject({
      operation: 'Apply',
      subresource: 'status',
      fieldsV1: { 'f:status': { 'f:observedGeneration': {} } },
    });
  });

  it('a PUT records an Update entry under the fieldManager it names', async () => {
    const ns = await srv.namespace();
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const created = await srv.api.post(`${path}?fieldManager=creator`, configMap('w', { a: '1' }));
    expect(entries(created.body).map((e) => [e.manager, e.operation])).toEqual([
      ['creator', 'Update'],
    ]);
    const put = await srv.api.put(`${path}/w?fieldManager=editor`, {
      ...created.body,
      data: { a: '1', b: '2' },
    });
    expect(Object.fromEntries(entries(put.body).map((e) => [e.manager, e.fieldsV1]))).toEqual({
      creator: { 'f:data': { '.': {}, 'f:a': {} } },
      editor: { 'f:data': { 'f:b': {} } },
    });
  });

  it('a fieldManager longer than 128 characters is 422', async () => {
    const ns = await srv.namespace();
    const res = await srv.api.post<Status>(
      `/api/v1/namespaces/${ns}/configmaps?fieldManager=${'m'.repeat(129)}`,
      configMap('long', {}),
    );
    expect(res.status).toBe(422);
    expect(res.body.message).toMatch(
      /^CreateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: /,
    );
  });
});
