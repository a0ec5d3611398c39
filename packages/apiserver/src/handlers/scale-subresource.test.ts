import type { KubeObject, Status } from '@listwatch/api';
import { describe, expect, it } from 'vitest';
import type { ApiResourceList } from '../discovery/legacy.js';
import type { ApiGroupDiscoveryList } from '../discovery/aggregated.js';
import { serverForFile } from '../testing/test-server.js';

// The scale subresource of deployments and replicasets as kube-apiserver serves it
// (pkg/registry/apps/deployment/storage/storage.go ScaleREST), over real HTTP.

const env = serverForFile('scale');
const namespace = () => env.namespace();

const workload = (kind: 'Deployment' | 'ReplicaSet', replicas?: number): KubeObject => ({
  apiVersion: 'apps/v1',
  kind,
  metadata: { name: 'web' },
  spec: {
    ...(replicas !== undefined ? { replicas } : {}),
    selector: {
      matchLabels: { app: 'web', tier: 'front' },
      matchExpressions: [{ key: 'track', operator: 'NotIn', values: ['canary', 'beta'] }],
    },
    template: {
      metadata: { labels: { app: 'web', tier: 'front' } },
      spec: { containers: [{ name: 'web', image: 'nginx' }] },
    },
  },
});

async function deployment(replicas?: number): Promise<{ path: string; created: KubeObject }> {
  const ns = await namespace();
  const path = `/apis/apps/v1/namespaces/${ns}/deployments/web`;
  const created = await env.api.post(
    `/apis/apps/v1/namespaces/${ns}/deployments`,
    workload('Deployment', replicas),
  );
  expect(created.status).toBe(201);
  return { path, created: created.body };
}

describe('the scale subresource', () => {
  it('GET deployments/{name}/scale is an autoscaling/v1 Scale: the identity metadata, spec.replicas, status.replicas and the selector as a string', async () => {
    const { path, created } = await deployment(3);
    await env.api.put(`${path}/status`, { ...created, status: { replicas: 2 } });
    const current = (await env.api.get(path)).body;
    const res = await env.api.get(`${path}/scale`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: {
        name: 'web',
        namespace: current.metadata.namespace,
        uid: current.metadata.uid,
        resourceVersion: current.metadata.resourceVersion,
        creationTimestamp: current.metadata.creationTimestamp,
      },
      spec: { replicas: 3 },
      status: { replicas: 2, selector: 'app=web,tier=front,track notin (beta,canary)' },
    });
  });

  it('a deployment without spec.replicas scales from 1 (v1 defaulting), and 0 replicas is an empty spec', async () => {
    const { path } = await deployment();
    expect((await env.api.get(`${path}/scale`)).body['spec']).toEqual({ replicas: 1 });
    const zero = await env.api.patch(`${path}/scale`, { spec: { replicas: 0 } });
    expect(zero.status).toBe(200);
    expect(zero.body['spec']).toEqual({});
    expect(zero.body['status']).toEqual({
      replicas: 0,
      selector: 'app=web,tier=front,track notin (beta,canary)',
    });
    expect((await env.api.get(path)).body['spec']).toMatchObject({ replicas: 0 });
  });

  it('PUT of a Scale sets spec.replicas of the deployment and bumps its generation; the reply is the new Scale', async () => {
    const { path } = await deployment(2);
    const scale = (await env.api.get(`${path}/scale`)).body;
    const res = await env.api.put(`${path}/scale`, { ...scale, spec: { replicas: 5 } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ kind: 'Scale', spec: { replicas: 5 } });
    const after = (await env.api.get(path)).body;
    expect(after['spec']).toMatchObject({ replicas: 5 });
    expect(after.metadata.generation).toBe(2);
    expect(res.body.metadata.resourceVersion).toBe(after.metadata.resourceVersion);
  });

  it('a Scale whose resourceVersion is not current is 409 Conflict and changes nothing; without one the update is unconditional', async () => {
    const { path } = await deployment(2);
    const stale = (await env.api.get(`${path}/scale`)).body;
    await env.api.patch(path, { metadata: { labels: { touched: 'yes' } } });
    const conflict = await env.api.put<Status>(`${path}/scale`, {
      ...stale,
      spec: { replicas: 7 },
    });
    expect(conflict.status).toBe(409);
    expect(conflict.body).toMatchObject({ kind: 'Status', reason: 'Conflict' });
    expect(conflict.body.message).toBe(
      'Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your changes to the latest version and try again',
    );
    expect((await env.api.get(path)).body['spec']).toMatchObject({ replicas: 2 });
    const { resourceVersion: _rv, ...meta } = stale.metadata;
    const unconditional = await env.api.put(`${path}/scale`, {
      ...stale,
      metadata: meta,
      spec: { replicas: 7 },
    });
    expect(unconditional.status).toBe(200);
    expect((await env.api.get(path)).body['spec']).toMatchObject({ replicas: 7 });
  });

  it('a merge patch of a replicaset scale (what kubectl scale sends) sets its spec.replicas', async () => {
    const ns = await namespace();
    const base = `/apis/apps/v1/namespaces/${ns}/replicasets`;
    expect((await env.api.post(base, workload('ReplicaSet', 1))).status).toBe(201);
    const res = await env.api.patch(`${base}/web/scale`, { spec: { replicas: 4 } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ kind: 'Scale', spec: { replicas: 4 } });
    expect((await env.api.get(`${base}/web`)).body['spec']).toMatchObject({ replicas: 4 });
    const json = await env.api.patch(
      `${base}/web/scale`,
      [{ op: 'replace', path: '/spec/replicas', value: 6 }],
      'application/json-patch+json',
    );
    expect(json.body['spec']).toEqual({ replicas: 6 });
    const strategic = await env.api.patch(
      `${base}/web/scale`,
      { spec: { replicas: 3 } },
      'application/strategic-merge-patch+json',
    );
    expect(strategic.body['spec']).toEqual({ replicas: 3 });
  });

  it('a patch that sets a stale resourceVersion is 409; a dry run answers the new Scale and writes nothing', async () => {
    const { path, created } = await deployment(2);
    await env.api.patch(path, { metadata: { labels: { touched: 'yes' } } });
    const stale = await env.api.patch(`${path}/scale`, {
      metadata: { resourceVersion: created.metadata.resourceVersion },
      spec: { replicas: 9 },
    });
    expect(stale.status).toBe(409);
    const dry = await env.api.patch(`${path}/scale?dryRun=All`, { spec: { replicas: 9 } });
    expect(dry.status).toBe(200);
    expect(dry.body['spec']).toEqual({ replicas: 9 });
    expect((await env.api.get(path)).body['spec']).toMatchObject({ replicas: 2 });
  });

  it('negative replicas are 422 Invalid on Scale.autoscaling; a uid that is not the deployment’s is 409 on deployments/scale', async () => {
    const { path } = await deployment(2);
    const negative = await env.api.patch<Status>(`${path}/scale`, { spec: { replicas: -1 } });
    expect(negative.status).toBe(422);
    expect(negative.body.message).toBe(
      'Scale.autoscaling "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0',
    );
    const scale = (await env.api.get(`${path}/scale`)).body;
    const uid = await env.api.put<Status>(`${path}/scale`, {
      ...scale,
      metadata: { ...scale.metadata, uid: 'someone-else' },
    });
    expect(uid.status).toBe(409);
    expect(uid.body.message).toBe(
      `Operation cannot be fulfilled on deployments/scale.apps "web": Precondition failed: UID in precondition: someone-else, UID in object meta: ${scale.metadata.uid}`,
    );
    expect((await env.api.get(path)).body['spec']).toMatchObject({ replicas: 2 });
  });

  it('a Scale body of another kind, or with replicas that are not an int32, is 400', async () => {
    const { path } = await deployment(2);
    const wrongKind = await env.api.put<Status>(`${path}/scale`, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: { replicas: 3 },
    });
    expect(wrongKind.status).toBe(400);
    expect(wrongKind.body.message).toBe(
      'the API version in the data (apps/v1) does not match the expected API version (autoscaling/v1)',
    );
    const huge = await env.api.put<Status>(`${path}/scale`, {
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      metadata: { name: 'web' },
      spec: { replicas: 2 ** 31 },
    });
    expect(huge.status).toBe(400);
    expect(huge.body.message).toBe(
      'Scale in version "v1" cannot be handled as a Scale: json: cannot unmarshal number 2147483648 into Go struct field ScaleSpec.spec.replicas of type int32',
    );
  });

  it('the scale of a missing deployment is 404 for the deployment; kinds without one, and unknown subresources, are 404 for the path', async () => {
    const ns = await namespace();
    const missing = await env.api.get<Status>(
      `/apis/apps/v1/namespaces/${ns}/deployments/api/scale`,
    );
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe('deployments.apps "api" not found');
    const missingPatch = await env.api.patch<Status>(
      `/apis/apps/v1/namespaces/${ns}/deployments/api/scale`,
      { spec: { replicas: 2 } },
    );
    expect(missingPatch.status).toBe(404);
    expect(missingPatch.body.message).toBe('deployments.apps "api" not found');
    await env.api.post(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'c' } });
    for (const path of [
      `/api/v1/namespaces/${ns}/configmaps/c/scale`,
      `/apis/apps/v1/namespaces/${ns}/deployments/api/rollback-ish`,
    ]) {
      const res = await env.api.get<Status>(path);
      expect(res.status, path).toBe(404);
      expect(res.body.message).toBe('the server could not find the requested resource');
    }
  });

  it('discovery lists deployments/scale and replicasets/scale as autoscaling/v1 Scale with get, patch and update', async () => {
    const legacy = (await env.api.get<ApiResourceList>('/apis/apps/v1')).body;
    for (const name of ['deployments/scale', 'replicasets/scale']) {
      expect(legacy.resources.find((r) => r.name === name)).toEqual({
        name,
        singularName: '',
        namespaced: true,
        group: 'autoscaling',
        version: 'v1',
        kind: 'Scale',
        verbs: ['get', 'patch', 'update'],
      });
    }
    const aggregated = (
      await env.api.get<ApiGroupDiscoveryList>('/apis', {
        Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
      })
    ).body;
    const apps = aggregated.items.find((g) => g.metadata.name === 'apps');
    const resources = apps?.versions[0]?.resources ?? [];
    for (const resource of ['deployments', 'replicasets']) {
      expect(
        resources
          .find((r) => r.resource === resource)
          ?.subresources?.find((s) => s.subresource === 'scale'),
      ).toEqual({
        subresource: 'scale',
        responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
        verbs: ['get', 'patch', 'update'],
      });
    }
  });
});
