import type { KubeList, KubeObject, Status } from '@listwatch/api';
import { describe, expect, it } from 'vitest';
import { openWatch, serverForFile } from '../testing/test-server.js';

// Graceful deletion of pods as kube-apiserver does it (pkg/registry/core/pod/strategy.go
// CheckGracefulDelete, k8s.io/apiserver pkg/registry/rest/delete.go BeforeDelete,
// registry/generic/registry/store.go Delete), over real HTTP.

const env = serverForFile('graceful');
const namespace = () => env.namespace();

interface PodOptions {
  node?: string;
  grace?: number;
  phase?: string;
  finalizers?: string[];
}

/** Creates a pod (bound to `node` if given, with a status phase if given); returns its path. */
async function pod(ns: string, name: string, options: PodOptions = {}): Promise<string> {
  const base = `/api/v1/namespaces/${ns}/pods`;
  const created = await env.api.post(base, {
    metadata: { name, ...(options.finalizers ? { finalizers: options.finalizers } : {}) },
    spec: {
      ...(options.node ? { nodeName: options.node } : {}),
      ...(options.grace !== undefined ? { terminationGracePeriodSeconds: options.grace } : {}),
      containers: [{ name: 'c', image: 'nginx' }],
    },
  });
  expect(created.status).toBe(201);
  if (options.phase) {
    const status = await env.api.put(`${base}/${name}/status`, {
      ...created.body,
      status: { phase: options.phase },
    });
    expect(status.status).toBe(200);
  }
  return `${base}/${name}`;
}

/** Seconds from now to an RFC 3339 time. */
function secondsUntil(time: string | undefined): number {
  return (Date.parse(time ?? '') - Date.now()) / 1000;
}

describe('graceful deletion of pods', () => {
  it('deleting a pod bound to a node marks it for deletion after its grace period (30 s by default) and answers the pod with 200', async () => {
    const ns = await namespace();
    const path = await pod(ns, 'web', { node: 'node-a' });
    const res = await env.api.delete(path);
    expect(res.status).toBe(200);
    expect(res.body.kind).toBe('Pod');
    expect(res.body.metadata.deletionGracePeriodSeconds).toBe(30);
    expect(secondsUntil(res.body.metadata.deletionTimestamp)).toBeGreaterThan(28);
    expect(secondsUntil(res.body.metadata.deletionTimestamp)).toBeLessThanOrEqual(30);
    const stored = (await env.api.get(path)).body;
    expect(stored.metadata).toMatchObject({
      deletionTimestamp: res.body.metadata.deletionTimestamp,
      deletionGracePeriodSeconds: 30,
    });
    expect(stored.metadata.generation).toBeUndefined();
  });

  it("the grace period is DeleteOptions' gracePeriodSeconds, else the pod's terminationGracePeriodSeconds; a negative one is 1 s", async () => {
    const ns = await namespace();
    const own = await pod(ns, 'own', { node: 'node-a', grace: 120 });
    expect((await env.api.delete(own)).body.metadata.deletionGracePeriodSeconds).toBe(120);
    const asked = await pod(ns, 'asked', { node: 'node-a', grace: 120 });
    const res = await env.api.delete(asked, { gracePeriodSeconds: 5 });
    expect(res.body.metadata.deletionGracePeriodSeconds).toBe(5);
    expect(secondsUntil(res.body.metadata.deletionTimestamp)).toBeLessThanOrEqual(5);
    const query = await pod(ns, 'query', { node: 'node-a' });
    expect((await env.api.delete(`${query}?gracePeriodSeconds=7`)).body.metadata).toMatchObject({
      deletionGracePeriodSeconds: 7,
    });
    const negative = await pod(ns, 'negative', { node: 'node-a' });
    expect(
      (await env.api.delete(negative, { gracePeriodSeconds: -5 })).body.metadata
        .deletionGracePeriodSeconds,
    ).toBe(1);
    const negativeOwn = await pod(ns, 'negative-own', { node: 'node-a', grace: -3 });
    expect((await env.api.delete(negativeOwn)).body.metadata.deletionGracePeriodSeconds).toBe(1);
  });

  it('a pod already being deleted keeps its deadline when deleted again with as long a grace period; a shorter one moves the deadline back', async () => {
    const ns = await namespace();
    const path = await pod(ns, 'web', { node: 'node-a' });
    const first = (await env.api.delete(path, { gracePeriodSeconds: 60 })).body;
    const again = await env.api.delete(path);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first);
    expect((await env.api.delete(path, { gracePeriodSeconds: 90 })).body).toEqual(first);
    const shorter = (await env.api.delete(path, { gracePeriodSeconds: 10 })).body;
    expect(shorter.metadata.deletionGracePeriodSeconds).toBe(10);
    expect(
      Date.parse(first.metadata.deletionTimestamp ?? '') -
        Date.parse(shorter.metadata.deletionTimestamp ?? ''),
    ).toBe(50_000);
  });

  it('a delete with gracePeriodSeconds 0 (the kubelet’s confirmation) removes the pod: watchers see it marked with 0 s, then deleted', async () => {
    const ns = await namespace();
    const path = await pod(ns, 'web', { node: 'node-a' });
    const marked = (await env.api.delete(path)).body;
    const watch = openWatch(
      env.server.url,
      `/api/v1/namespaces/${ns}/pods?watch=1&resourceVersion=${marked.metadata.resourceVersion}`,
    );
    try {
      const gone = await env.api.delete(path, { gracePeriodSeconds: 0 });
      expect(gone.status).toBe(200);
      expect(gone.body.kind).toBe('Pod');
      expect(gone.body.metadata.deletionGracePeriodSeconds).toBe(0);
      expect((await env.api.get(path)).status).toBe(404);
      const events = await watch.take(2);
      expect(
        events.map((e) => [e.type, (e.object as KubeObject).metadata.deletionGracePeriodSeconds]),
      ).toEqual([
        ['MODIFIED', 0],
        ['DELETED', 0],
      ]);
    } finally {
      await watch.close();
    }
  });

  it('only a pod bound to a node and not finished is deleted gracefully: an unbound or finished pod, a zero grace period, or another kind goes at once', async () => {
    const ns = await namespace();
    const bound = await pod(ns, 'bound', { node: 'node-a' });
    expect((await env.api.delete(bound)).body.metadata.deletionGracePeriodSeconds).toBe(30);
    expect((await env.api.get(bound)).status).toBe(200);
    const paths = [
      await pod(ns, 'unbound'),
      await pod(ns, 'succeeded', { node: 'node-a', phase: 'Succeeded' }),
      await pod(ns, 'failed', { node: 'node-a', phase: 'Failed' }),
    ];
    for (const path of paths) {
      const res = await env.api.delete(path);
      expect(res.status, path).toBe(200);
      expect(res.body.kind).toBe('Pod');
      expect((await env.api.get(path)).status, path).toBe(404);
    }
    const forced = await pod(ns, 'forced', { node: 'node-a' });
    expect((await env.api.delete(forced, { gracePeriodSeconds: 0 })).status).toBe(200);
    expect((await env.api.get(forced)).status).toBe(404);
    const cm = `/api/v1/namespaces/${ns}/configmaps/c`;
    await env.api.post(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'c' } });
    const res = await env.api.delete<Status>(cm, { gracePeriodSeconds: 30 });
    expect(res.body).toMatchObject({ kind: 'Status', status: 'Success' });
    expect((await env.api.get(cm)).status).toBe(404);
  });

  it('a pod being deleted keeps its deletionTimestamp and grace period through status and spec writes, and stays', async () => {
    const ns = await namespace();
    const path = await pod(ns, 'web', { node: 'node-a' });
    const marked = (await env.api.delete(path)).body;
    const status = await env.api.put(`${path}/status`, {
      ...marked,
      status: { phase: 'Running' },
    });
    expect(status.status).toBe(200);
    const labelled = await env.api.put(path, {
      ...status.body,
      metadata: {
        ...status.body.metadata,
        labels: { a: 'b' },
        deletionTimestamp: undefined,
        deletionGracePeriodSeconds: undefined,
      },
    });
    expect(labelled.status).toBe(200);
    expect(labelled.body.metadata).toMatchObject({
      labels: { a: 'b' },
      deletionTimestamp: marked.metadata.deletionTimestamp,
      deletionGracePeriodSeconds: 30,
    });
    expect((await env.api.get(path)).status).toBe(200);
  });

  it('a pod with finalizers is deleted gracefully too; once its kubelet confirms it waits for its finalizers, and the last one removed deletes it', async () => {
    const ns = await namespace();
    const path = await pod(ns, 'web', { node: 'node-a', finalizers: ['example.com/hold'] });
    expect((await env.api.delete(path)).body.metadata).toMatchObject({
      finalizers: ['example.com/hold'],
      deletionGracePeriodSeconds: 30,
    });
    const confirmed = await env.api.delete(path, { gracePeriodSeconds: 0 });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.metadata).toMatchObject({
      finalizers: ['example.com/hold'],
      deletionGracePeriodSeconds: 0,
    });
    const current = (await env.api.get(path)).body;
    expect(
      (await env.api.put(path, { ...current, metadata: { ...current.metadata, finalizers: [] } }))
        .status,
    ).toBe(200);
    expect((await env.api.get(path)).status).toBe(404);
  });

  it('a dry run answers the marked pod and writes nothing; a precondition that does not hold is 409', async () => {
    const ns = await namespace();
    const path = await pod(ns, 'web', { node: 'node-a' });
    const dry = await env.api.delete(`${path}?dryRun=All`);
    expect(dry.status).toBe(200);
    expect(dry.body.metadata.deletionGracePeriodSeconds).toBe(30);
    expect((await env.api.get(path)).body.metadata.deletionTimestamp).toBeUndefined();
    const wrong = await env.api.delete<Status>(path, { preconditions: { uid: 'other' } });
    expect(wrong.status).toBe(409);
    expect((await env.api.get(path)).body.metadata.deletionTimestamp).toBeUndefined();
  });

  it('deletecollection marks the bound pods and removes the unbound ones', async () => {
    const ns = await namespace();
    await pod(ns, 'bound', { node: 'node-a' });
    await pod(ns, 'unbound');
    const res = await env.api.delete<KubeList>(`/api/v1/namespaces/${ns}/pods`);
    expect(res.status).toBe(200);
    const left = (await env.api.get<KubeList>(`/api/v1/namespaces/${ns}/pods`)).body.items;
    expect(left.map((p) => [p.metadata.name, p.metadata.deletionGracePeriodSeconds])).toEqual([
      ['bound', 30],
    ]);
  });
});
