import type { KubeObject, Status, WatchEvent } from '@listwatch/api';
import { decodeCbor, decodeWatchStream, encodeCbor } from '@listwatch/codec';
import { connect, constants } from 'node:http2';
import WebSocket from 'ws';
import { describe, expect, it } from 'vitest';
import { SqliteStorage } from '@listwatch/storage';
import { tempDir } from '@listwatch/testing';
import { join } from 'node:path';
import { client, openWatch, serverForFile, testServer } from '../testing/test-server.js';
import { foo, fooCrd, waitServed } from './crd.test-helper.js';
import type { CustomResourceDefinition } from './types.js';

const f = serverForFile('crd');
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

describe('CustomResourceDefinitions (apiextensions-apiserver customresource_handler.go)', () => {
  it('a created CRD gets NamesAccepted and Established and its resource is served', async () => {
    const crd = fooCrd({ group: 'a.example.com' });
    const created = await f.api.post<CustomResourceDefinition>(CRDS, crd);
    expect(created.status).toBe(201);
    expect(created.body.status?.storedVersions).toEqual(['v1']);
    await waitServed(f.api, crd);
    const got = await f.api.get<CustomResourceDefinition>(`${CRDS}/foos.a.example.com`);
    const types = got.body.status?.conditions?.map((c) => [c.type, c.status, c.reason]);
    expect(types).toEqual(
      expect.arrayContaining([
        ['NamesAccepted', 'True', 'NoConflicts'],
        ['Established', 'True', 'InitialNamesAccepted'],
      ]),
    );
    expect(got.body.status?.acceptedNames?.kind).toBe('Foo');
    const ns = await f.namespace();
    const path = `/apis/a.example.com/v1/namespaces/${ns}/foos`;
    const made = await f.api.post(path, foo('one', { deploymentName: 'd' }, 'a.example.com'));
    expect(made.status).toBe(201);
    expect(made.body.metadata.generation).toBe(1);
    const list = await f.api.get<{ items: KubeObject[]; kind: string }>(path);
    expect(list.body.kind).toBe('FooList');
    expect(list.body.items.map((i) => i.metadata.name)).toEqual(['one']);
  });

  it('custom objects are validated against the schema: 422 with field paths in kube words', async () => {
    const crd = fooCrd({ group: 'b.example.com' });
    await f.api.post(CRDS, crd);
    await waitServed(f.api, crd);
    const ns = await f.namespace();
    const path = `/apis/b.example.com/v1/namespaces/${ns}/foos`;
    const bad = await f.api.post<Status>(
      path,
      foo(
        'bad',
        { deploymentName: '', replicas: 'three', color: 'green', tags: ['a', 'a'] },
        'b.example.com',
      ),
    );
    expect(bad.status).toBe(422);
    expect(bad.body.reason).toBe('Invalid');
    expect(bad.body.details?.kind).toBe('Foo');
    expect(bad.body.details?.group).toBe('b.example.com');
    const fields = bad.body.details?.causes?.map((c) => c.field).sort();
    expect(fields).toEqual(['spec.color', 'spec.deploymentName', 'spec.replicas', 'spec.tags[1]']);
    expect(bad.body.message).toContain('spec.replicas in body must be of type integer: "string"');
    expect(bad.body.message).toContain(
      'spec.color: Unsupported value: "green": supported values: "red", "blue"',
    );
    const tooMany = await f.api.post<Status>(
      path,
      foo('big', { deploymentName: 'd', replicas: 11 }, 'b.example.com'),
    );
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.message).toContain(
      'spec.replicas in body should be less than or equal to 10',
    );
    const missing = await f.api.post<Status>(path, foo('none', {}, 'b.example.com'));
    expect(missing.body.details?.causes).toEqual([
      { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.deploymentName' },
    ]);
    const intOrString = await f.api.post(
      path,
      foo('port', { deploymentName: 'd', port: 'http' }, 'b.example.com'),
    );
    expect(intOrString.status).toBe(201);
    const badPort = await f.api.post<Status>(
      path,
      foo('port2', { deploymentName: 'd', port: true }, 'b.example.com'),
    );
    expect(badPort.status).toBe(422);
  });

  it('unknown fields are pruned (a warning, or 400 with fieldValidation=Strict) and defaults applied', async () => {
    const crd = fooCrd({ group: 'c.example.com' });
    await f.api.post(CRDS, crd);
    await waitServed(f.api, crd);
    const ns = await f.namespace();
    const path = `/apis/c.example.com/v1/namespaces/${ns}/foos`;
    const body = {
      ...foo(
        'p',
        { deploymentName: 'd', unknown: 1, extra: { kept: { deep: true } } },
        'c.example.com',
      ),
      top: 'level',
    };
    (body.metadata as Record<string, unknown>)['nmae'] = 'typo';
    const created = await f.api.post(path, body);
    expect(created.status).toBe(201);
    expect(created.body['spec']).toEqual({
      deploymentName: 'd',
      replicas: 1,
      extra: { kept: { deep: true } },
    });
    expect(created.body['top']).toBeUndefined();
    expect(created.body.metadata).not.toHaveProperty('nmae');
    expect(created.headers.get('warning')).toContain('unknown field \\"spec.unknown\\"');
    const strict = await f.api.post<Status>(`${path}?fieldValidation=Strict`, {
      ...body,
      metadata: { name: 'q' },
    });
    expect(strict.status).toBe(400);
    expect(strict.body.message).toContain('strict decoding error: unknown field "spec.unknown"');
    const read = await f.api.get(`${path}/p`);
    expect(read.body['spec']).toEqual(created.body['spec']);
  });

  it('status is a subresource: the main resource ignores it, generation follows spec only', async () => {
    const crd = fooCrd({ group: 'd.example.com' });
    await f.api.post(CRDS, crd);
    await waitServed(f.api, crd);
    const ns = await f.namespace();
    const path = `/apis/d.example.com/v1/namespaces/${ns}/foos`;
    const created = await f.api.post(path, {
      ...foo('s', { deploymentName: 'd' }, 'd.example.com'),
      status: { availableReplicas: 5 },
    });
    expect(created.body['status']).toBeUndefined();
    const status = await f.api.patch(`${path}/s/status`, { status: { availableReplicas: 2 } });
    expect(status.status).toBe(200);
    expect(status.body['status']).toEqual({ availableReplicas: 2 });
    expect(status.body.metadata.generation).toBe(1);
    const spec = await f.api.patch(`${path}/s`, {
      spec: { replicas: 3 },
      status: { availableReplicas: 9 },
    });
    expect(spec.body.metadata.generation).toBe(2);
    expect(spec.body['status']).toEqual({ availableReplicas: 2 });
    const labels = await f.api.patch(`${path}/s`, { metadata: { labels: { a: 'b' } } });
    expect(labels.body.metadata.generation).toBe(2);
  });

  it('the scale subresource reads and writes the CRD paths', async () => {
    const crd = fooCrd({ group: 'e.example.com' });
    await f.api.post(CRDS, crd);
    await waitServed(f.api, crd);
    const ns = await f.namespace();
    const path = `/apis/e.example.com/v1/namespaces/${ns}/foos`;
    await f.api.post(path, foo('sc', { deploymentName: 'd', replicas: 2 }, 'e.example.com'));
    await f.api.patch(`${path}/sc/status`, {
      status: { availableReplicas: 1, selector: 'app=sc' },
    });
    const scale = await f.api.get(`${path}/sc/scale`);
    expect(scale.status).toBe(200);
    expect(scale.body).toMatchObject({
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      spec: { replicas: 2 },
      status: { replicas: 1, selector: 'app=sc' },
    });
    const put = await f.api.put(`${path}/sc/scale`, { ...scale.body, spec: { replicas: 5 } });
    expect(put.status).toBe(200);
    expect((await f.api.get(`${path}/sc`)).body['spec']).toMatchObject({ replicas: 5 });
    const tooMany = await f.api.put<Status>(`${path}/sc/scale`, {
      ...scale.body,
      metadata: { name: 'sc' },
      spec: { replicas: 50 },
    });
    expect(tooMany.status).toBe(422);
  });

  it('Table output has the printer columns; field selectors take selectableFields', async () => {
    const crd = fooCrd({ group: 'g.example.com' });
    await f.api.post(CRDS, crd);
    await waitServed(f.api, crd);
    const ns = await f.namespace();
    const path = `/apis/g.example.com/v1/namespaces/${ns}/foos`;
    await f.api.post(
      path,
      foo('red', { deploymentName: 'dr', color: 'red', replicas: 4 }, 'g.example.com'),
    );
    await f.api.post(path, foo('blue', { deploymentName: 'db', color: 'blue' }, 'g.example.com'));
    const table = await f.api.get<{
      columnDefinitions: { name: string; type: string }[];
      rows: { cells: unknown[] }[];
    }>(`${path}?fieldSelector=spec.color%3Dred`, {
      Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io',
    });
    expect(table.status).toBe(200);
    expect(table.body.columnDefinitions.map((c) => [c.name, c.type])).toEqual([
      ['Name', 'string'],
      ['Deployment', 'string'],
      ['Replicas', 'integer'],
      ['Age', 'date'],
    ]);
    expect(table.body.rows.map((r) => r.cells.slice(0, 3))).toEqual([['red', 'dr', 4]]);
    const unsupported = await f.api.get<Status>(`${path}?fieldSelector=spec.deploymentName%3Dx`);
    expect(unsupported.status).toBe(400);
  });

  it('discovery and OpenAPI gain the resource with new ETags, and lose it when the CRD goes', async () => {
    const before = await f.api.get('/apis', {
      Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
    });
    const crd = fooCrd({ group: 'h.example.com' });
    await f.api.post(CRDS, crd);
    await waitServed(f.api, crd);
    const after = await f.api.get<{ items: { metadata: { name: string } }[] }>('/apis', {
      Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
    });
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
    expect(after.body.items.map((g) => g.metadata.name)).toContain('h.example.com');
    const resources = await f.api.get<{
      resources: {
        name: string;
        shortNames?: string[];
        categories?: string[];
        namespaced: boolean;
      }[];
    }>('/apis/h.example.com/v1');
    expect(resources.body.resources).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          name: 'foos',
          namespaced: true,
          shortNames: ['fox'],
          categories: ['all'],
        }),
      ]),
    );
    const v3 = await f.api.get<{
      components: { schemas: Record<string, { properties: Record<string, unknown> }> };
    }>('/openapi/v3/apis/h.example.com/v1');
    expect(v3.status).toBe(200);
    const schema = Object.entries(v3.body.components.schemas).find(([name]) =>
      name.endsWith('.v1.Foo'),
    )?.[1];
    expect(Object.keys(schema?.properties ?? {}).sort()).toEqual([
      'apiVersion',
      'kind',
      'metadata',
      'spec',
      'status',
    ]);
    const v2 = await f.api.get<{
      definitions: Record<string, { properties?: Record<string, unknown> }>;
    }>('/openapi/v2');
    const v2Foo = Object.entries(v2.body.definitions).find(
      ([name]) => name === 'com.example.h.v1.Foo',
    )?.[1];
    expect(v2Foo?.properties?.['spec']).toMatchObject({
      type: 'object',
      required: ['deploymentName'],
    });
    const deleted = await f.api.delete(`${CRDS}/foos.h.example.com`);
    expect(deleted.status).toBe(200);
    await eventuallyStatus(f.api, '/apis/h.example.com/v1', 404);
    expect((await f.api.get('/openapi/v3/apis/h.example.com/v1')).status).toBe(404);
    expect((await f.api.get(`${CRDS}/foos.h.example.com`)).status).toBe(404);
  });

  it('deleting a CRD ends its open watches, deletes its objects; recreating it serves afresh', async () => {
    const crd = fooCrd({ group: 'i.example.com' });
    await f.api.post(CRDS, crd);
    await waitServed(f.api, crd);
    const ns = await f.namespace();
    const path = `/apis/i.example.com/v1/namespaces/${ns}/foos`;
    await f.api.post(path, foo('w', { deploymentName: 'd' }, 'i.example.com'));
    const watch = openWatch(f.server.url, `${path}?watch=true`);
    expect((await watch.take(1)).map((e) => e.type)).toEqual(['ADDED']);
    await f.api.delete(`${CRDS}/foos.i.example.com`);
    await waitFor(() => watch.ended);
    await watch.close();
    await eventuallyStatus(f.api, `${CRDS}/foos.i.example.com`, 404);
    expect(
      (await f.server.storage.list(`${f.server.storage.prefix}/i.example.com/foos/`)).items,
    ).toEqual([]);
    await f.api.post(CRDS, crd);
    await waitServed(f.api, crd);
    const list = await f.api.get<{ items: KubeObject[] }>(path);
    expect(list.body.items).toEqual([]);
  });

  it('a deleted CRD waits for its objects’ finalizers: Terminating, served but for create, gone once they are (crd_finalizer.go)', async () => {
    const crd = fooCrd({ group: 'l.example.com' });
    await f.api.post(CRDS, crd);
    await waitServed(f.api, crd);
    const ns = await f.namespace();
    const path = `/apis/l.example.com/v1/namespaces/${ns}/foos`;
    const held = foo('held', { deploymentName: 'd' }, 'l.example.com');
    held.metadata.finalizers = ['example.com/hold'];
    expect((await f.api.post(path, held)).status).toBe(201);
    expect((await f.api.delete(`${CRDS}/foos.l.example.com`)).status).toBe(200);
    // The cleanup deletes the object, which its finalizer keeps (marked, still readable).
    const marked = await waitFor(async () => {
      const got = await f.api.get(`${path}/held`);
      return got.status === 200 && got.body.metadata.deletionTimestamp ? got.body : undefined;
    });
    expect(marked.metadata.finalizers).toEqual(['example.com/hold']);
    const terminating = await f.api.get<CustomResourceDefinition>(`${CRDS}/foos.l.example.com`);
    expect(terminating.status).toBe(200);
    expect(terminating.body.metadata.finalizers).toContain(
      'customresourcecleanup.apiextensions.k8s.io',
    );
    expect(terminating.body.status?.conditions?.find((c) => c.type === 'Terminating')?.status).toBe(
      'True',
    );
    // customresource_handler.go: every verb but create is served while the CRD terminates.
    expect((await f.api.get(path)).status).toBe(200);
    const refused = await f.api.post<Status>(
      path,
      foo('new', { deploymentName: 'd' }, 'l.example.com'),
    );
    expect(refused.status).toBe(405);
    expect(refused.body.message).toBe(
      'create not allowed while custom resource definition is terminating',
    );
    const released = await f.api.patch(`${path}/held`, { metadata: { finalizers: null } });
    expect(released.status).toBe(200);
    await eventuallyStatus(f.api, `${CRDS}/foos.l.example.com`, 404);
    expect(
      (await f.server.storage.list(`${f.server.storage.prefix}/l.example.com/foos/`)).items,
    ).toEqual([]);
  });

  it('a CRD whose names another CRD of the group has accepted gets NamesAccepted False and is not served', async () => {
    const first = fooCrd({ group: 'j.example.com' });
    await f.api.post(CRDS, first);
    await waitServed(f.api, first);
    const second = fooCrd({ group: 'j.example.com', plural: 'bars', kind: 'Foo' });
    expect((await f.api.post(CRDS, second)).status).toBe(201);
    const conditions = await waitFor(async () => {
      const got = await f.api.get<CustomResourceDefinition>(`${CRDS}/bars.j.example.com`);
      const c = got.body.status?.conditions?.find((x) => x.type === 'NamesAccepted');
      return c ? got.body.status?.conditions : undefined;
    });
    expect(conditions?.find((c) => c.type === 'NamesAccepted')).toMatchObject({
      status: 'False',
      reason: 'SingularConflict',
      message: '"foo" is already in use',
    });
    expect(conditions?.find((c) => c.type === 'Established')).toMatchObject({
      status: 'False',
      reason: 'NotAccepted',
    });
    expect((await f.api.get('/apis/j.example.com/v1/bars')).status).toBe(404);
  });

  it('an invalid CRD is 422 with kube field paths', async () => {
    const crd = fooCrd({ group: 'k.example.com' });
    const versions = crd.spec.versions;
    const bad = {
      ...crd,
      metadata: { name: 'wrong.k.example.com' },
      spec: {
        ...crd.spec,
        scope: 'Everywhere',
        versions: [
          {
            ...versions[0],
            storage: false,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: { spec: { properties: { a: { type: 'array' } } } },
              },
            },
          },
        ],
      },
    };
    const res = await f.api.post<Status>(CRDS, bad);
    expect(res.status).toBe(422);
    expect(res.body.details?.kind).toBe('CustomResourceDefinition');
    expect(res.body.details?.causes?.map((c) => c.field)).toEqual(
      expect.arrayContaining([
        'metadata.name',
        'spec.scope',
        'spec.versions',
        'spec.versions[0].schema.openAPIV3Schema.properties[spec].type',
        'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[a].items',
      ]),
    );
  });
});

describe('field validation of CRDs', () => {
  it('an unknown field in a CRD, a schema keyword included, is dropped with a warning or refused when strict', async () => {
    const crd = fooCrd({ group: 'fv.example.com' });
    const schema = crd.spec.versions[0]!.schema!.openAPIV3Schema as {
      properties: { spec: Record<string, unknown> };
    };
    schema.properties.spec['minProperty'] = 1;
    const strict = await f.api.post<Status>(`${CRDS}?fieldValidation=Strict`, {
      ...crd,
      spec: { ...crd.spec, scoop: 1 },
    });
    expect(strict.status).toBe(400);
    expect(strict.body.message).toContain(
      'strict decoding error: unknown field "spec.versions[0].schema.openAPIV3Schema.properties.spec.minProperty", unknown field "spec.scoop"',
    );
    const warned = await f.api.post<CustomResourceDefinition>(CRDS, crd);
    expect(warned.status).toBe(201);
    expect(warned.headers.get('warning')).toContain(
      'spec.versions[0].schema.openAPIV3Schema.properties.spec.minProperty',
    );
    const stored = warned.body.spec.versions[0]!.schema!.openAPIV3Schema as typeof schema;
    expect(stored.properties.spec['minProperty']).toBeUndefined();
  });
});

describe('protected groups and built-ins', () => {
  it('a CRD in a k8s.io group needs the api-approved.kubernetes.io annotation', async () => {
    const crd = fooCrd({ group: 'widgets.k8s.io' });
    const refused = await f.api.post<Status>(CRDS, crd);
    expect(refused.status).toBe(422);
    expect(refused.body.details?.causes?.map((c) => c.field)).toEqual([
      'metadata.annotations[api-approved.kubernetes.io]',
    ]);
    const approved = await f.api.post(CRDS, {
      ...crd,
      metadata: {
        ...crd.metadata,
        annotations: { 'api-approved.kubernetes.io': 'unapproved, testing only' },
      },
    });
    expect(approved.status).toBe(201);
  });

  it('a CRD naming a built-in resource never replaces it', async () => {
    const crd = fooCrd({ group: 'rbac.authorization.k8s.io', plural: 'roles', kind: 'Role' });
    crd.spec.versions[0]!.subresources = {};
    crd.metadata.annotations = { 'api-approved.kubernetes.io': 'unapproved, testing only' };
    expect((await f.api.post(CRDS, crd)).status).toBe(201);
    await waitFor(async () => {
      const got = await f.api.get<CustomResourceDefinition>(
        `${CRDS}/roles.rbac.authorization.k8s.io`,
      );
      return got.body.status?.conditions?.some((c) => c.type === 'Established') || undefined;
    });
    const ns = await f.namespace();
    const role = await f.api.post(`/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`, {
      metadata: { name: 'r' },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
    });
    expect(role.status).toBe(201);
    expect(role.body['rules']).toHaveLength(1);
  });
});

describe('custom objects over every transport and codec', () => {
  it('CBOR bodies and lists, h2c and WebSocket (JSON and CBOR) watches serve custom objects', async () => {
    const crd = fooCrd({ group: 'tx.example.com' });
    await f.api.post(CRDS, crd);
    await waitServed(f.api, crd);
    const ns = await f.namespace();
    const path = `/apis/tx.example.com/v1/namespaces/${ns}/foos`;
    const created = await fetch(`${f.server.url}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/cbor', Accept: 'application/cbor' },
      body: encodeCbor(foo('cb', { deploymentName: 'd', bogus: 1 }, 'tx.example.com')),
    });
    expect(created.status).toBe(201);
    const body = decodeCbor(new Uint8Array(await created.arrayBuffer())) as KubeObject;
    expect(body['spec']).toEqual({ deploymentName: 'd', replicas: 1 });
    const list = await fetch(`${f.server.url}${path}`, { headers: { Accept: 'application/cbor' } });
    expect(
      (decodeCbor(new Uint8Array(await list.arrayBuffer())) as { items: KubeObject[] }).items,
    ).toHaveLength(1);

    const watchPath = `${path}?watch=true&resourceVersion=0`;
    const session = connect(f.server.url);
    try {
      const events = await new Promise<WatchEvent[]>((resolve, reject) => {
        const stream = session.request({ [constants.HTTP2_HEADER_PATH]: watchPath });
        stream.on('error', reject);
        void (async () => {
          for await (const e of decodeWatchStream(stream as AsyncIterable<Uint8Array>, 'json')) {
            stream.close();
            resolve([e]);
            return;
          }
        })().catch(reject);
      });
      expect((events[0]!.object as KubeObject).metadata.name).toBe('cb');
    } finally {
      session.close();
    }
    for (const accept of ['application/json', 'application/cbor']) {
      const ws = new WebSocket(`${f.server.url.replace('http', 'ws')}${watchPath}`, {
        origin: 'http://localhost',
        headers: { Accept: accept },
      });
      const data = await new Promise<Buffer>((resolve, reject) => {
        ws.once('message', (message) => resolve(message as Buffer));
        ws.once('error', reject);
      });
      ws.close();
      const event = (
        accept === 'application/cbor' ? decodeCbor(data) : JSON.parse(data.toString())
      ) as WatchEvent;
      expect([event.type, (event.object as KubeObject).kind]).toEqual(['ADDED', 'Foo']);
    }
  });
});

describe('defaulting on read', () => {
  it('a default added to the schema later shows on objects read back, as kube defaults what it reads from etcd', async () => {
    const crd = fooCrd({ group: 'r.example.com' });
    expect((await f.api.post(CRDS, crd)).status).toBe(201);
    await waitServed(f.api, crd);
    const ns = await f.namespace();
    const path = `/apis/r.example.com/v1/namespaces/${ns}/foos`;
    await f.api.post(path, foo('old', { deploymentName: 'd' }, 'r.example.com'));
    const stored = await f.api.get<CustomResourceDefinition>(`${CRDS}/foos.r.example.com`);
    const schema = stored.body.spec.versions[0]!.schema!.openAPIV3Schema as {
      properties: { spec: { properties: Record<string, Record<string, unknown>> } };
    };
    schema.properties.spec.properties['color'] = {
      type: 'string',
      enum: ['red', 'blue'],
      default: 'blue',
    };
    expect((await f.api.put(`${CRDS}/foos.r.example.com`, stored.body)).status).toBe(200);
    await waitFor(async () => {
      const got = await f.api.get(`${path}/old`);
      return (got.body['spec'] as Record<string, unknown>)['color'] === 'blue' || undefined;
    });
    const list = await f.api.get<{ items: KubeObject[] }>(path);
    expect(list.body.items[0]?.['spec']).toEqual({
      deploymentName: 'd',
      replicas: 1,
      color: 'blue',
    });
  });
});

describe('versions of a CRD (conversion None)', () => {
  it('objects are stored in the storage version and read, listed and watched in the version asked for', async () => {
    const crd = fooCrd({ group: 'm.example.com' });
    const v1 = crd.spec.versions[0]!;
    crd.spec.versions = [{ ...v1, name: 'v1beta1', storage: false, deprecated: true }, v1];
    expect((await f.api.post(CRDS, crd)).status).toBe(201);
    await waitServed(f.api, crd);
    const ns = await f.namespace();
    const beta = `/apis/m.example.com/v1beta1/namespaces/${ns}/foos`;
    const stable = `/apis/m.example.com/v1/namespaces/${ns}/foos`;
    const watch = openWatch(f.server.url, `${beta}?watch=true`);
    const created = await f.api.post(beta, {
      ...foo('mv', { deploymentName: 'd' }, 'm.example.com'),
      apiVersion: 'm.example.com/v1beta1',
    });
    expect(created.status).toBe(201);
    expect(created.body.apiVersion).toBe('m.example.com/v1beta1');
    const raw = await f.server.storage.get(
      `${f.server.storage.prefix}/m.example.com/foos/${ns}/mv`,
    );
    expect(raw?.apiVersion).toBe('m.example.com/v1');
    expect((await f.api.get(`${stable}/mv`)).body.apiVersion).toBe('m.example.com/v1');
    const patched = await f.api.patch(`${beta}/mv`, { spec: { replicas: 2 } });
    expect(patched.status).toBe(200);
    expect(patched.body.apiVersion).toBe('m.example.com/v1beta1');
    await f.api.patch(`${stable}/mv`, { spec: { replicas: 3 } });
    const events = await watch.take(3);
    expect(events.map((e) => [e.type, (e.object as KubeObject).apiVersion])).toEqual([
      ['ADDED', 'm.example.com/v1beta1'],
      ['MODIFIED', 'm.example.com/v1beta1'],
      ['MODIFIED', 'm.example.com/v1beta1'],
    ]);
    await watch.close();
    const list = await f.api.get<{ apiVersion: string; items: KubeObject[] }>(beta);
    // customresource_handler.go: every request to a deprecated version is warned about.
    expect(list.headers.get('warning')).toBe(
      '299 - "m.example.com/v1beta1 Foo is deprecated; use m.example.com/v1 Foo"',
    );
    expect((await f.api.get(stable)).headers.get('warning')).toBeNull();
    expect(list.body.apiVersion).toBe('m.example.com/v1beta1');
    expect(list.body.items.map((i) => i.apiVersion)).toEqual(['m.example.com/v1beta1']);
  });

  it('webhook conversion is refused with a 422 saying it is not supported', async () => {
    const crd = fooCrd({ group: 'n.example.com' });
    const res = await f.api.post<Status>(CRDS, {
      ...crd,
      spec: {
        ...crd.spec,
        conversion: {
          strategy: 'Webhook',
          webhook: {
            clientConfig: { url: 'https://example.com/convert' },
            conversionReviewVersions: ['v1'],
          },
        },
      },
    });
    expect(res.status).toBe(422);
    expect(res.body.details?.causes).toEqual([
      {
        reason: 'FieldValueForbidden',
        field: 'spec.conversion.strategy',
        message:
          'Forbidden: Webhook conversion is not supported by this server; use None (versions differ only in apiVersion)',
      },
    ]);
  });
});

describe('custom resources on sqlite', () => {
  it('CRDs and their objects survive a restart, served before the server is ready', async () => {
    const dir = tempDir('listwatch-crd-');
    const file = join(dir.path, 'state.db');
    const crd = fooCrd({ group: 'sqlite.example.com', scope: 'Cluster' });
    const path = '/apis/sqlite.example.com/v1/foos';
    try {
      const first = await testServer(new SqliteStorage({ file, compactionInterval: 0 }));
      try {
        await client(first.url).post(CRDS, crd);
        await waitServed(client(first.url), crd);
        const made = await client(first.url).post(
          path,
          foo('kept', { deploymentName: 'd' }, 'sqlite.example.com'),
        );
        expect(made.status).toBe(201);
        expect(made.body.metadata.namespace).toBeUndefined();
      } finally {
        await first.close();
      }
      const second = await testServer(new SqliteStorage({ file, compactionInterval: 0 }));
      try {
        expect((await fetch(`${second.url}/readyz`)).status).toBe(200);
        const list = await client(second.url).get<{ items: KubeObject[] }>(path);
        expect(list.body.items.map((o) => o.metadata.name)).toEqual(['kept']);
      } finally {
        await second.close();
      }
    } finally {
      dir.remove();
    }
  });
});

async function waitFor<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error('gave up waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function eventuallyStatus(
  api: { get: (path: string) => Promise<{ status: number }> },
  path: string,
  status: number,
): Promise<void> {
  await waitFor(async () => (await api.get(path)).status === status);
}
