import type { KubeObject, Status } from '@listwatch/api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { serverForFile } from '../testing/test-server.js';
import { waitServed } from './crd.test-helper.js';
import type { CustomResourceDefinition } from './types.js';

// Server-side apply of custom resources merges by the CRD's structural schema, as
// apiextensions-apiserver customresource_handler.go builds each version's TypeConverter from it
// (kube-openapi schemaconv: x-kubernetes-list-type map/set/atomic, x-kubernetes-map-type).

const f = serverForFile('crd-apply');
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const APPLY = 'application/apply-patch+yaml';
const GROUP = 'lists.example.com';

const listsCrd: CustomResourceDefinition = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `widgets.${GROUP}` },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  size: { type: 'integer' },
                  ports: {
                    type: 'array',
                    'x-kubernetes-list-type': 'map',
                    'x-kubernetes-list-map-keys': ['name', 'protocol'],
                    items: {
                      type: 'object',
                      required: ['name'],
                      properties: {
                        name: { type: 'string' },
                        protocol: { type: 'string', default: 'TCP' },
                        port: { type: 'integer' },
                      },
                    },
                  },
                  args: { type: 'array', items: { type: 'string' } },
                  tags: {
                    type: 'array',
                    'x-kubernetes-list-type': 'set',
                    items: { type: 'string' },
                  },
                  selector: {
                    type: 'object',
                    'x-kubernetes-map-type': 'atomic',
                    additionalProperties: { type: 'string' },
                  },
                },
              },
              status: { type: 'object', properties: { size: { type: 'integer' } } },
            },
          },
        },
        subresources: {
          status: {},
          scale: { specReplicasPath: '.spec.size', statusReplicasPath: '.status.size' },
        },
      },
    ],
  },
};

const widget = (name: string, spec: Record<string, unknown>, labels?: Record<string, string>) => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'Widget',
  metadata: { name, ...(labels ? { labels } : {}) },
  spec,
});

let served: Promise<void> | undefined;
async function widgets(): Promise<string> {
  served ??= (async () => {
    await f.api.post(CRDS, listsCrd);
    await waitServed(f.api, listsCrd);
  })();
  await served;
  return `/apis/${GROUP}/v1/namespaces/${await f.namespace()}/widgets`;
}

const apply = <T = KubeObject>(path: string, body: unknown, manager: string, force = false) =>
  f.api.patch<T>(
    `${path}?fieldManager=${manager}${force ? '&force=true' : ''}`,
    JSON.stringify(body),
    APPLY,
  );

interface Entry {
  manager: string;
  operation: string;
  fieldsV1: Record<string, unknown>;
}
const entryOf = (o: KubeObject, manager: string) =>
  (o.metadata.managedFields as unknown as Entry[] | undefined)?.find((e) => e.manager === manager);

describe('server-side apply of custom resources by their list types', () => {
  it('two managers applying different entries of an x-kubernetes-list-type=map list keep both, each owning its entry by its keys', async () => {
    const path = await widgets();
    const a = await apply(`${path}/w1`, widget('w1', { ports: [{ name: 'http', port: 80 }] }), 'a');
    expect(a.status).toBe(201);
    const b = await apply(
      `${path}/w1`,
      widget('w1', { ports: [{ name: 'metrics', protocol: 'UDP', port: 9090 }] }),
      'b',
    );
    expect(b.status).toBe(200);
    expect(b.body['spec']).toEqual({
      ports: [
        { name: 'http', protocol: 'TCP', port: 80 },
        { name: 'metrics', protocol: 'UDP', port: 9090 },
      ],
    });
    // The key a default fills in (protocol: TCP) is part of the item's key, as getAssociativeKeyDefault.
    expect(entryOf(b.body, 'a')?.fieldsV1).toEqual({
      'f:spec': {
        'f:ports': {
          'k:{"name":"http","protocol":"TCP"}': {
            '.': {},
            'f:name': {},
            'f:port': {},
          },
        },
      },
    });
    expect(entryOf(b.body, 'b')?.fieldsV1).toEqual({
      'f:spec': {
        'f:ports': {
          'k:{"name":"metrics","protocol":"UDP"}': {
            '.': {},
            'f:name': {},
            'f:port': {},
            'f:protocol': {},
          },
        },
      },
    });
    // a drops its entry: b's stays.
    const dropped = await apply(`${path}/w1`, widget('w1', { ports: [] }), 'a');
    expect(dropped.body['spec']).toEqual({
      ports: [{ name: 'metrics', protocol: 'UDP', port: 9090 }],
    });
  });

  it('a list without x-kubernetes-list-type is atomic: another manager’s different list is a conflict, and with force replaces it whole', async () => {
    const path = await widgets();
    await apply(`${path}/w2`, widget('w2', { args: ['--a', '--b'] }), 'a');
    const conflict = await apply<Status>(`${path}/w2`, widget('w2', { args: ['--c'] }), 'b');
    expect(conflict.status).toBe(409);
    expect(conflict.body.message).toBe(
      'Apply failed with 1 conflict: conflict with "a": .spec.args',
    );
    const forced = await apply(`${path}/w2`, widget('w2', { args: ['--c'] }), 'b', true);
    expect(forced.status).toBe(200);
    expect(forced.body['spec']).toEqual({ args: ['--c'] });
    expect(entryOf(forced.body, 'b')?.fieldsV1).toEqual({ 'f:spec': { 'f:args': {} } });
    expect(entryOf(forced.body, 'a')).toBeUndefined();
  });

  it('an x-kubernetes-list-type=set list and labels merge per value and key; an atomic map is owned whole', async () => {
    const path = await widgets();
    await apply(
      `${path}/w3`,
      widget('w3', { tags: ['x'], selector: { app: 'a' } }, { team: 'one' }),
      'a',
    );
    const b = await apply(`${path}/w3`, widget('w3', { tags: ['y'] }, { tier: 'two' }), 'b');
    expect(b.body['spec']).toEqual({ tags: ['x', 'y'], selector: { app: 'a' } });
    expect(b.body.metadata.labels).toEqual({ team: 'one', tier: 'two' });
    expect(entryOf(b.body, 'a')?.fieldsV1).toEqual({
      'f:metadata': { 'f:labels': { 'f:team': {} } },
      'f:spec': { 'f:selector': {}, 'f:tags': { 'v:"x"': {} } },
    });
    const atomic = await apply<Status>(
      `${path}/w3`,
      widget('w3', { selector: { app: 'a', extra: 'b' } }),
      'b',
    );
    expect(atomic.status).toBe(409);
    expect(atomic.body.details?.causes).toEqual([
      { reason: 'FieldManagerConflict', message: 'conflict with "a"', field: '.spec.selector' },
    ]);
  });

  it('managers applying disjoint entries of a map list end with the same object in either order (property)', async () => {
    const path = await widgets();
    const names = fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), {
      minLength: 2,
      maxLength: 6,
    });
    let n = 0;
    await fc.assert(
      fc.asyncProperty(names, fc.integer({ min: 1, max: 5 }), async (all, cut) => {
        const split = Math.min(cut, all.length - 1);
        const first = all.slice(0, split).map((name, i) => ({ name, port: i + 1 }));
        const second = all.slice(split).map((name, i) => ({ name, port: i + 100 }));
        const results: unknown[] = [];
        for (const order of [
          ['one', 'two'],
          ['two', 'one'],
        ]) {
          const name = `p${n++}`;
          for (const manager of order) {
            const ports = manager === 'one' ? first : second;
            const res = await apply(`${path}/${name}`, widget(name, { ports }), manager);
            expect(res.status).toBeLessThan(300);
          }
          const got = await f.api.get(`${path}/${name}`);
          const ports = (got.body['spec'] as { ports: { name: string }[] }).ports;
          results.push([...ports].sort((x, y) => x.name.localeCompare(y.name)));
        }
        expect(results[0]).toEqual(results[1]);
        expect((results[0] as unknown[]).length).toBe(all.length);
      }),
      { numRuns: 15 },
    );
  });
});

describe('server-side apply of a custom resource’s Scale', () => {
  it('an apply of the Scale owns the CRD’s specReplicasPath on the object, and the object’s applier then conflicts on it', async () => {
    const path = await widgets();
    await apply(`${path}/s1`, widget('s1', { size: 2, tags: ['x'] }), 'creator');
    const scale = (replicas: number) => ({
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      metadata: { name: 's1' },
      spec: { replicas },
    });
    const conflict = await apply<Status>(`${path}/s1/scale`, scale(5), 'hpa');
    expect(conflict.status).toBe(409);
    expect(conflict.body.message).toBe(
      'Apply failed with 1 conflict: conflict with "creator": .spec.replicas',
    );
    const forced = await apply(`${path}/s1/scale`, scale(5), 'hpa', true);
    expect(forced.status).toBe(200);
    expect(forced.body).toMatchObject({ kind: 'Scale', spec: { replicas: 5 } });
    const got = (await f.api.get(`${path}/s1`)).body;
    expect(got['spec']).toEqual({ size: 5, tags: ['x'] });
    const hpa = (
      got.metadata.managedFields as unknown as (Entry & { subresource?: string })[]
    ).find((e) => e.manager === 'hpa');
    expect(hpa).toMatchObject({
      operation: 'Apply',
      apiVersion: `${GROUP}/v1`,
      subresource: 'scale',
      fieldsV1: { 'f:spec': { 'f:size': {} } },
    });
    expect(entryOf(got, 'creator')?.fieldsV1).toEqual({
      'f:spec': { 'f:tags': { 'v:"x"': {} } },
    });
    const back = await apply<Status>(
      `${path}/s1`,
      widget('s1', { size: 1, tags: ['x'] }),
      'creator',
    );
    expect(back.status).toBe(409);
    expect(back.body.message).toBe(
      'Apply failed with 1 conflict: conflict with "hpa" with subresource "scale": .spec.size',
    );
  });
});
