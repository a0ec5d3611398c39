import type { KubeObject } from '@listwatch/api';
import { describe, expect, it } from 'vitest';
import { serverForFile } from '../testing/test-server.js';

// metadata.generation as kube-apiserver 1.32 keeps it: only the strategies that own one set it
// (pkg/registry/apps/deployment/strategy.go, replicaset/strategy.go); rest/create.go leaves it as
// sent, rest/update.go BeforeUpdate keeps the stored one. ConfigMaps, Secrets, Pods (before
// PodObservedGenerationTracking, 1.33), Namespaces, Services and Nodes have none.

const env = serverForFile('generation');
const namespace = () => env.namespace();

const workload = (kind: string): KubeObject => ({
  apiVersion: 'apps/v1',
  kind,
  metadata: { name: 'web' },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: { containers: [{ name: 'web', image: 'nginx' }] },
    },
  },
});

describe('metadata.generation', () => {
  it('ConfigMaps, Secrets, Pods, Namespaces and Services have none, whether created, updated or patched', async () => {
    const ns = await namespace();
    const objects: [string, KubeObject][] = [
      [`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'c' }, data: { a: 'b' } }],
      [`/api/v1/namespaces/${ns}/secrets`, { metadata: { name: 's' }, data: { a: 'Yg==' } }],
      [
        `/api/v1/namespaces/${ns}/pods`,
        { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      ],
      [
        `/api/v1/namespaces/${ns}/services`,
        { metadata: { name: 'svc' }, spec: { ports: [{ port: 80 }] } },
      ],
      ['/api/v1/namespaces', { metadata: { name: `${ns}-other` } }],
    ];
    for (const [base, object] of objects) {
      const created = await env.api.post(base, object);
      expect(created.status, base).toBe(201);
      expect(created.body.metadata.generation, base).toBeUndefined();
      const path = `${base}/${object.metadata.name}`;
      const updated = await env.api.put(path, {
        ...created.body,
        metadata: { ...created.body.metadata, labels: { changed: 'yes' } },
        ...(object['data'] ? { data: { a: 'Yw==' } } : {}),
      });
      expect(updated.status, path).toBe(200);
      expect(updated.body.metadata.generation, path).toBeUndefined();
      const patched = await env.api.patch(path, { metadata: { annotations: { x: 'y' } } });
      expect(patched.body.metadata.generation, path).toBeUndefined();
    }
  });

  it('a generation sent on create is kept for kinds without one of their own, and no update changes it', async () => {
    const ns = await namespace();
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    const created = await env.api.post(base, { metadata: { name: 'c', generation: 5 } });
    expect(created.body.metadata.generation).toBe(5);
    const updated = await env.api.put(`${base}/c`, {
      ...created.body,
      metadata: { ...created.body.metadata, generation: 9 },
      data: { a: 'b' },
    });
    expect(updated.body.metadata.generation).toBe(5);
  });

  it.each(['Deployment', 'ReplicaSet'])(
    '%s starts at 1 whatever the client sends, counts each spec change, and not status or label writes',
    async (kind) => {
      const ns = await namespace();
      const base = `/apis/apps/v1/namespaces/${ns}/${kind.toLowerCase()}s`;
      const body = workload(kind);
      const created = await env.api.post(base, {
        ...body,
        metadata: { ...body.metadata, generation: 7 },
      });
      expect(created.body.metadata.generation).toBe(1);
      const path = `${base}/web`;
      const status = await env.api.put(`${path}/status`, {
        ...created.body,
        status: { replicas: 1 },
      });
      expect(status.body.metadata.generation).toBe(1);
      const labelled = await env.api.patch(path, { metadata: { labels: { a: 'b' } } });
      expect(labelled.body.metadata.generation).toBe(1);
      const scaled = await env.api.patch(path, { spec: { replicas: 3 } });
      expect(scaled.body.metadata.generation).toBe(2);
      // The same spec in another key order is no change (apiequality.Semantic.DeepEqual).
      const spec = scaled.body['spec'] as Record<string, unknown>;
      const reordered = Object.fromEntries(Object.entries(spec).reverse());
      const same = await env.api.put(path, { ...scaled.body, spec: reordered });
      expect(same.body.metadata.generation).toBe(2);
      const sent = await env.api.put(path, {
        ...same.body,
        metadata: { ...same.body.metadata, generation: 40 },
      });
      expect(sent.body.metadata.generation).toBe(2);
    },
  );

  it('an annotation change bumps a Deployment (its ReplicaSets copy annotations), not a ReplicaSet', async () => {
    const ns = await namespace();
    for (const [kind, expected] of [
      ['Deployment', 2],
      ['ReplicaSet', 1],
    ] as const) {
      const base = `/apis/apps/v1/namespaces/${ns}/${kind.toLowerCase()}s`;
      expect((await env.api.post(base, workload(kind))).status).toBe(201);
      const annotated = await env.api.patch(`${base}/web`, {
        metadata: { annotations: { note: 'x' } },
      });
      expect(annotated.body.metadata.generation, kind).toBe(expected);
    }
  });

  it('a Deployment /status write sets its annotations (the controller records the revision there) without a new generation; a ReplicaSet /status write keeps its own', async () => {
    const ns = await namespace();
    for (const [kind, expected] of [
      ['Deployment', { 'deployment.kubernetes.io/revision': '1' }],
      ['ReplicaSet', undefined],
    ] as const) {
      const base = `/apis/apps/v1/namespaces/${ns}/${kind.toLowerCase()}s`;
      const created = await env.api.post(base, workload(kind));
      const written = await env.api.put(`${base}/web/status`, {
        ...created.body,
        metadata: {
          ...created.body.metadata,
          annotations: { 'deployment.kubernetes.io/revision': '1' },
          labels: { changed: 'no' },
        },
        spec: { ...(created.body['spec'] as object), replicas: 9 },
        status: { replicas: 1 },
      });
      expect(written.status, kind).toBe(200);
      expect(written.body.metadata.annotations, kind).toEqual(expected);
      expect(written.body.metadata.labels, kind).toBeUndefined();
      expect(written.body.metadata.generation, kind).toBe(1);
      expect((written.body['spec'] as { replicas: number }).replicas, kind).toBe(1);
    }
  });

  it('marking a Deployment for deletion (finalizers pending) bumps its generation once', async () => {
    const ns = await namespace();
    const base = `/apis/apps/v1/namespaces/${ns}/deployments`;
    const body = workload('Deployment');
    await env.api.post(base, {
      ...body,
      metadata: { ...body.metadata, finalizers: ['example.com/x'] },
    });
    const marked = await env.api.delete(`${base}/web`);
    expect(marked.body.metadata.generation).toBe(2);
    const again = await env.api.delete(`${base}/web`);
    expect(again.body.metadata.generation).toBe(2);
  });
});
