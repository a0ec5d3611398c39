import type { KubeObject, Status } from '@listwatch/api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { serverForFile } from '../testing/test-server.js';

// Ownership of replicas through the scale subresource, over real HTTP: a Scale write is tracked
// on the Scale and its spec.replicas moved onto the parent (scaleUpdatedObjectInfo in
// pkg/registry/apps/deployment/storage/storage.go with
// k8s.io/apimachinery/pkg/util/managedfields/scalehandler.go), and server-side apply of a Scale
// (`kubectl apply --server-side --subresource=scale`).

const env = serverForFile('scale-apply');
const APPLY = 'application/apply-patch+yaml';

const podTemplate = {
  metadata: { labels: { app: 'web' } },
  spec: { containers: [{ name: 'web', image: 'nginx' }] },
};

const kinds = [
  {
    plural: 'deployments',
    base: '/apis/apps/v1',
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    spec: { selector: { matchLabels: { app: 'web' } }, template: podTemplate },
  },
  {
    plural: 'replicasets',
    base: '/apis/apps/v1',
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    spec: { selector: { matchLabels: { app: 'web' } }, template: podTemplate },
  },
  {
    plural: 'statefulsets',
    base: '/apis/apps/v1',
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    spec: {
      serviceName: 'web',
      selector: { matchLabels: { app: 'web' } },
      template: podTemplate,
    },
  },
  {
    plural: 'replicationcontrollers',
    base: '/api/v1',
    apiVersion: 'v1',
    kind: 'ReplicationController',
    spec: { selector: { app: 'web' }, template: podTemplate },
  },
] as const;

type Kind = (typeof kinds)[number];

interface Entry {
  manager: string;
  operation: string;
  apiVersion: string;
  time?: string;
  fieldsV1: Record<string, unknown>;
  subresource?: string;
}
const entries = (o: KubeObject) => (o.metadata.managedFields ?? []) as unknown as Entry[];
const find = (o: KubeObject, manager: string, subresource?: string) =>
  entries(o).find((e) => e.manager === manager && e.subresource === subresource);
const ownsReplicas = (e: Entry | undefined) =>
  JSON.stringify(e?.fieldsV1 ?? {}).includes('"f:replicas"');

async function applied(k: Kind, name: string, replicas: number, manager = 'creator') {
  const ns = await env.namespace();
  const path = `${k.base}/namespaces/${ns}/${k.plural}/${name}`;
  const object = {
    apiVersion: k.apiVersion,
    kind: k.kind,
    metadata: { name },
    spec: { ...k.spec, replicas },
  };
  const res = await env.api.patch(`${path}?fieldManager=${manager}`, JSON.stringify(object), APPLY);
  expect(res.status).toBe(201);
  return path;
}

const scaleConfig = (name: string, replicas: number) =>
  JSON.stringify({
    apiVersion: 'autoscaling/v1',
    kind: 'Scale',
    metadata: { name },
    spec: { replicas },
  });

describe.each(kinds)('managedFields through $plural/scale', (k) => {
  it('a merge patch of the Scale (kubectl scale) makes its manager the owner of spec.replicas, as an Update with subresource scale in the parent’s apiVersion', async () => {
    const path = await applied(k, 'merge', 2);
    const res = await env.api.patch(`${path}/scale?fieldManager=scaler`, { spec: { replicas: 4 } });
    expect(res.status).toBe(200);
    expect(res.body.metadata.managedFields).toBeUndefined();
    const parent = (await env.api.get(path)).body;
    expect(parent['spec']).toMatchObject({ replicas: 4 });
    const scaler = find(parent, 'scaler', 'scale');
    expect(scaler).toMatchObject({
      operation: 'Update',
      apiVersion: k.apiVersion,
      fieldsV1: { 'f:spec': { 'f:replicas': {} } },
    });
    // The applier's replicas were "stolen": it keeps the rest of its fields.
    const creator = find(parent, 'creator');
    expect(creator?.operation).toBe('Apply');
    expect(ownsReplicas(creator)).toBe(false);
    expect(JSON.stringify(creator?.fieldsV1)).toContain('"f:selector"');
  });

  it('an apply of a Scale owns spec.replicas; the parent’s applier then conflicts on it, naming the scale manager', async () => {
    const path = await applied(k, 'apply', 2);
    const conflict = await env.api.patch<Status>(
      `${path}/scale?fieldManager=hpa`,
      scaleConfig('apply', 6),
      APPLY,
    );
    // The parent's applier owns spec.replicas, which the Scale stands for.
    expect(conflict.status).toBe(409);
    expect(conflict.body.message).toBe(
      'Apply failed with 1 conflict: conflict with "creator": .spec.replicas',
    );
    const forced = await env.api.patch(
      `${path}/scale?fieldManager=hpa&force=true`,
      scaleConfig('apply', 6),
      APPLY,
    );
    expect(forced.status).toBe(200);
    expect(forced.body).toMatchObject({ kind: 'Scale', spec: { replicas: 6 } });
    const parent = (await env.api.get(path)).body;
    expect(parent['spec']).toMatchObject({ replicas: 6 });
    expect(find(parent, 'hpa', 'scale')).toMatchObject({
      operation: 'Apply',
      apiVersion: k.apiVersion,
      fieldsV1: { 'f:spec': { 'f:replicas': {} } },
    });
    expect(ownsReplicas(find(parent, 'creator'))).toBe(false);
    // The creator applying other replicas now conflicts with the Scale's applier.
    const back = await env.api.patch<Status>(
      `${path}?fieldManager=creator`,
      JSON.stringify({
        apiVersion: k.apiVersion,
        kind: k.kind,
        metadata: { name: 'apply' },
        spec: { ...k.spec, replicas: 1 },
      }),
      APPLY,
    );
    expect(back.status).toBe(409);
    expect(back.body.message).toBe(
      'Apply failed with 1 conflict: conflict with "hpa" with subresource "scale": .spec.replicas',
    );
    // Applying the same Scale again changes nothing: the resourceVersion stays.
    const before = parent.metadata.resourceVersion;
    const again = await env.api.patch(
      `${path}/scale?fieldManager=hpa`,
      scaleConfig('apply', 6),
      APPLY,
    );
    expect(again.status).toBe(200);
    expect((await env.api.get(path)).body.metadata.resourceVersion).toBe(before);
  });
});

describe('apply on /scale: request rules', () => {
  it('an apply of another kind is 400, fieldManager is required (422), and a field Scale lacks is 400', async () => {
    const path = await applied(kinds[0], 'rules', 1);
    const noManager = await env.api.patch<Status>(`${path}/scale`, scaleConfig('rules', 2), APPLY);
    expect(noManager.status).toBe(422);
    const wrongKind = await env.api.patch<Status>(
      `${path}/scale?fieldManager=m`,
      JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', spec: { replicas: 2 } }),
      APPLY,
    );
    expect(wrongKind.status).toBe(400);
    expect(wrongKind.body.message).toBe('invalid object type: apps/v1, Kind=Deployment');
    const unknown = await env.api.patch<Status>(
      `${path}/scale?fieldManager=m`,
      JSON.stringify({ apiVersion: 'autoscaling/v1', kind: 'Scale', spec: { replicaz: 2 } }),
      APPLY,
    );
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toContain('.spec.replicaz: field not declared in schema');
    const dry = await env.api.patch(
      `${path}/scale?fieldManager=m&force=true&dryRun=All`,
      scaleConfig('rules', 9),
      APPLY,
    );
    expect(dry.status).toBe(200);
    expect(dry.body['spec']).toEqual({ replicas: 9 });
    const parent = (await env.api.get(path)).body;
    expect(parent['spec']).toMatchObject({ replicas: 1 });
    expect(JSON.stringify(parent.metadata.managedFields)).not.toContain('"manager":"m"');
    const negative = await env.api.patch<Status>(
      `${path}/scale?fieldManager=m&force=true`,
      scaleConfig('rules', -1),
      APPLY,
    );
    expect(negative.status).toBe(422);
    expect(negative.body.details?.kind).toBe('Scale');
  });

  it('whatever sequence of scale applies by two managers with force, the parent has the last replicas, owned by who applied that value since it was last changed, a zero always changing it (property)', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.constantFrom('a', 'b'), fc.integer({ min: 0, max: 20 })), {
          minLength: 1,
          maxLength: 5,
        }),
        async (steps) => {
          const name = `p${n++}`;
          const path = await applied(kinds[0], name, 1);
          // The model: a forced apply of another value takes the field; of the same value shares
          // it. But a Scale's spec.replicas is omitempty (autoscaling/v1 ScaleSpec): a live 0 reads
          // as absent, so an apply of 0 over 0 changes it and takes it too.
          let owners = new Set(['creator']);
          let value = 1;
          for (const [manager, replicas] of steps) {
            if (replicas !== value || replicas === 0) owners = new Set();
            owners.add(manager);
            value = replicas;
            const res = await env.api.patch(
              `${path}/scale?fieldManager=${manager}&force=true`,
              scaleConfig(name, replicas),
              APPLY,
            );
            expect(res.status).toBe(200);
          }
          const parent = (await env.api.get(path)).body;
          expect((parent['spec'] as { replicas: number }).replicas).toBe(value);
          const owning = entries(parent)
            .filter(ownsReplicas)
            .map((e) => e.manager)
            .sort();
          expect(owning).toEqual([...owners].sort());
        },
      ),
      { numRuns: 12 },
    );
  });
});
