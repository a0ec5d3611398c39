import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApiServer } from '../server.js';
import { eventually, startE2eServer, uniqueName } from './e2e.test-helper.js';

// @kubernetes/client-node 1.4 against a real apiserver: its generated typed clients, and
// makeInformer's list + watch. The server ends watches that set no timeoutSeconds after
// --min-request-timeout × (1 + rand) — 1–2 s here — so the informer has to re-watch, as it does
// against kube-apiserver every 30–60 minutes.

let server: RunningApiServer;
let kc: k8s.KubeConfig;
let core: k8s.CoreV1Api;
let apps: k8s.AppsV1Api;

beforeAll(async () => {
  server = await startE2eServer({ minRequestTimeoutSeconds: 1 });
  kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'listwatch', server: server.url, skipTLSVerify: true }],
    users: [{ name: 'developer' }],
    contexts: [{ name: 'listwatch', cluster: 'listwatch', user: 'developer' }],
    currentContext: 'listwatch',
  });
  core = kc.makeApiClient(k8s.CoreV1Api);
  apps = kc.makeApiClient(k8s.AppsV1Api);
});

afterAll(async () => {
  await server.close();
});

async function namespace(prefix: string): Promise<string> {
  const name = uniqueName(prefix);
  await core.createNamespace({ body: { metadata: { name } } });
  return name;
}

/** The HTTP code a typed call was rejected with. */
async function rejection(call: Promise<unknown>): Promise<number> {
  try {
    await call;
  } catch (err) {
    if (err instanceof k8s.ApiException) return err.code;
    throw err;
  }
  throw new Error('the call succeeded');
}

const mergePatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);

describe('the typed CoreV1Api', () => {
  it('server-side applies a ConfigMap (PatchStrategy.ServerSideApply) and reads its managedFields', async () => {
    const ns = await namespace('ssa');
    const apply = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.ServerSideApply);
    const body = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'applied' },
      data: { a: '1' },
    };
    const created = await core.patchNamespacedConfigMap(
      { name: 'applied', namespace: ns, body, fieldManager: 'node-app' },
      apply,
    );
    expect(created.data).toEqual({ a: '1' });
    expect(created.metadata?.managedFields).toEqual([
      expect.objectContaining({
        manager: 'node-app',
        operation: 'Apply',
        apiVersion: 'v1',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { 'f:a': {} } },
      }),
    ]);
    const conflict = core.patchNamespacedConfigMap(
      {
        name: 'applied',
        namespace: ns,
        body: { ...body, data: { a: '2' } },
        fieldManager: 'other',
      },
      apply,
    );
    expect(await rejection(conflict)).toBe(409);
    const forced = await core.patchNamespacedConfigMap(
      {
        name: 'applied',
        namespace: ns,
        body: { ...body, data: { a: '2' } },
        fieldManager: 'other',
        force: true,
      },
      apply,
    );
    expect(forced.data).toEqual({ a: '2' });
  });

  it('creates, lists, reads, merge-patches and deletes a ConfigMap', async () => {
    const ns = await namespace('core');
    const created = await core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'settings', labels: { app: 'demo' } }, data: { mode: 'fast' } },
    });
    expect(created.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.metadata?.resourceVersion).toMatch(/^\d+$/);
    expect(created.metadata?.creationTimestamp).toBeInstanceOf(Date);

    const list = await core.listNamespacedConfigMap({ namespace: ns, labelSelector: 'app=demo' });
    expect(list.kind).toBe('ConfigMapList');
    expect(list.items.map((cm) => cm.metadata?.name)).toEqual(['settings']);
    expect(Number(list.metadata?.resourceVersion)).toBeGreaterThanOrEqual(
      Number(created.metadata?.resourceVersion),
    );

    const read = await core.readNamespacedConfigMap({ name: 'settings', namespace: ns });
    expect(read.data).toEqual({ mode: 'fast' });

    const patched = await core.patchNamespacedConfigMap(
      { name: 'settings', namespace: ns, body: { data: { size: 'large' } } },
      mergePatch,
    );
    expect(patched.data).toEqual({ mode: 'fast', size: 'large' });
    expect(Number(patched.metadata?.resourceVersion)).toBeGreaterThan(
      Number(read.metadata?.resourceVersion),
    );

    // A replace from a stale read loses the optimistic-concurrency race.
    const stale = { ...read, data: { mode: 'slow' } };
    expect(
      await rejection(
        core.replaceNamespacedConfigMap({ name: 'settings', namespace: ns, body: stale }),
      ),
    ).toBe(409);

    await core.deleteNamespacedConfigMap({ name: 'settings', namespace: ns });
    expect(await rejection(core.readNamespacedConfigMap({ name: 'settings', namespace: ns }))).toBe(
      404,
    );
  });

  it('reports a missing object as an ApiException with the Status body', async () => {
    try {
      await core.readNamespacedConfigMap({ name: 'nope', namespace: 'default' });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(k8s.ApiException);
      const e = err as k8s.ApiException<string>;
      expect(e.code).toBe(404);
      expect(JSON.parse(e.body)).toMatchObject({
        kind: 'Status',
        reason: 'NotFound',
        message: 'configmaps "nope" not found',
      });
    }
  });
});

describe('the typed AppsV1Api', () => {
  it('creates, lists, patches and deletes a Deployment', async () => {
    const ns = await namespace('apps');
    const body: k8s.V1Deployment = {
      metadata: { name: 'web' },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] },
        },
      },
    };
    const created = await apps.createNamespacedDeployment({ namespace: ns, body });
    expect(created.metadata?.generation).toBe(1);
    expect(created.spec?.template.spec?.containers[0]?.image).toBe('nginx:1.27');

    const list = await apps.listNamespacedDeployment({ namespace: ns });
    expect(list.items.map((d) => d.metadata?.name)).toEqual(['web']);

    const scaled = await apps.patchNamespacedDeployment(
      { name: 'web', namespace: ns, body: { spec: { replicas: 5 } } },
      mergePatch,
    );
    expect(scaled.spec?.replicas).toBe(5);
    expect(scaled.metadata?.generation).toBe(2);

    await apps.deleteNamespacedDeployment({ name: 'web', namespace: ns });
    expect((await apps.listNamespacedDeployment({ namespace: ns })).items).toEqual([]);
  });
});

describe('makeInformer', () => {
  it('lists, then calls add, update and delete for writes made through the API', async () => {
    const ns = await namespace('informer');
    await core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'existing' }, data: { v: '0' } },
    });
    const events: string[] = [];
    const informer = k8s.makeInformer(kc, `/api/v1/namespaces/${ns}/configmaps`, () =>
      core.listNamespacedConfigMap({ namespace: ns }),
    );
    informer.on('add', (cm: k8s.V1ConfigMap) => events.push(`add ${cm.metadata?.name}`));
    informer.on('update', (cm: k8s.V1ConfigMap) =>
      events.push(`update ${cm.metadata?.name} ${cm.data?.['v']}`),
    );
    informer.on('delete', (cm: k8s.V1ConfigMap) => events.push(`delete ${cm.metadata?.name}`));
    await informer.start();
    try {
      expect(events).toEqual(['add existing']);
      await core.createNamespacedConfigMap({
        namespace: ns,
        body: { metadata: { name: 'new' }, data: { v: '1' } },
      });
      await core.patchNamespacedConfigMap(
        { name: 'new', namespace: ns, body: { data: { v: '2' } } },
        mergePatch,
      );
      await core.deleteNamespacedConfigMap({ name: 'existing', namespace: ns });
      await eventually(() => (events.length >= 4 ? true : undefined), 'the informer callbacks');
      expect(events).toEqual(['add existing', 'add new', 'update new 2', 'delete existing']);
      expect(informer.list(ns).map((cm) => cm.metadata?.name)).toEqual(['new']);
      expect(informer.get('new', ns)?.data).toEqual({ v: '2' });
    } finally {
      await informer.stop();
    }
  });

  it('survives the server ending its watch and resumes from the last resourceVersion, without a relist', async () => {
    const ns = await namespace('resume');
    let connects = 0;
    let lists = 0;
    const events: string[] = [];
    const informer = k8s.makeInformer(kc, `/api/v1/namespaces/${ns}/configmaps`, () => {
      lists++;
      return core.listNamespacedConfigMap({ namespace: ns });
    });
    informer.on('connect', () => connects++);
    informer.on('add', (cm: k8s.V1ConfigMap) => events.push(`add ${cm.metadata?.name}`));
    informer.on('error', (err: unknown) => events.push(`error ${String(err)}`));
    await informer.start();
    try {
      await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'a' } } });
      await eventually(() => (events.includes('add a') ? true : undefined), 'add a');
      // The server ends the watch (min-request-timeout 1 s × (1 + rand)); the informer re-watches.
      await eventually(() => (connects >= 2 ? true : undefined), 'a second watch');
      await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'b' } } });
      await eventually(() => (events.includes('add b') ? true : undefined), 'add b');
      expect(events).toEqual(['add a', 'add b']);
      expect(lists).toBe(1);
      expect(informer.list(ns).map((cm) => cm.metadata?.name)).toEqual(['a', 'b']);
    } finally {
      await informer.stop();
    }
  });
});
