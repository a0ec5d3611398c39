import { decodeProtobuf, decodeWatchStream, PROTOBUF_LENGTH_PREFIXED } from '@listwatch/codec';
import { describe, expect, it } from 'vitest';
import { e2eForFile } from './e2e.test-helper.js';

// application/vnd.kubernetes.protobuf through real clients: kubectl 1.32's typed clients send
// protobuf for `create deployment` and `create service` and do not fall back to JSON; its
// resource builder asks `application/vnd.kubernetes.protobuf,application/json` for reads.

const e2e = e2eForFile();

describe('kubectl with protobuf', () => {
  it('`kubectl create deployment web --image=nginx` creates the Deployment kubectl sent', async () => {
    const ns = await e2e.api.namespace('pb-deploy');
    const created = await e2e.kubectl.run([
      'create',
      'deployment',
      'web',
      '--image=nginx',
      '--replicas=0',
      '-n',
      ns,
      '-v=8',
    ]);
    // The typed client sends protobuf and reads the protobuf answer.
    const types = created.stderr
      .split('\n')
      .filter((l) => /Content-Type: application\/vnd\.kubernetes\.protobuf$/.test(l));
    expect(types).toHaveLength(2);
    expect(created.stdout.trim()).toBe('deployment.apps/web created');
    const deployment = (await e2e.api.get(`/apis/apps/v1/namespaces/${ns}/deployments/web`)).body;
    // replicas is a pointer: the explicit 0 kubectl sent stays 0.
    expect(deployment['spec']).toMatchObject({
      replicas: 0,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'nginx', image: 'nginx' }] },
      },
    });
  });

  it('`kubectl create service clusterip web --tcp=80:8080` creates the Service with its port', async () => {
    const ns = await e2e.api.namespace('pb-svc');
    const created = await e2e.kubectl.run([
      'create',
      'service',
      'clusterip',
      'web',
      '--tcp=80:8080',
      '-n',
      ns,
    ]);
    expect(created.stderr).toBe('');
    expect(created.stdout.trim()).toBe('service/web created');
    const service = (await e2e.api.get(`/api/v1/namespaces/${ns}/services/web`)).body;
    expect(service['spec']).toMatchObject({
      type: 'ClusterIP',
      selector: { app: 'web' },
      ports: [{ name: '80-8080', port: 80, protocol: 'TCP', targetPort: 8080 }],
    });
  });

  it('`kubectl get pods -o yaml` reads the pods', async () => {
    const ns = await e2e.api.namespace('pb-get');
    const res = await e2e.api.post(`/api/v1/namespaces/${ns}/pods`, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', labels: { app: 'x' } },
      spec: { containers: [{ name: 'c', image: 'nginx' }] },
    });
    expect(res.status).toBe(201);
    const got = await e2e.kubectl.run(['get', 'pods', '-n', ns, '-o', 'yaml']);
    expect(got.code).toBe(0);
    expect(got.stdout).toMatch(/kind: List/);
    expect(got.stdout).toMatch(/name: p\n/);
    expect(got.stdout).toMatch(/app: x/);
  });
});

describe('kubectl with /openapi/v2 in protobuf', () => {
  it('`kubectl explain --output=plaintext-openapiv2` prints a field from the protobuf document', async () => {
    const explained = await e2e.kubectl.run([
      'explain',
      'deployment.spec.replicas',
      '--output=plaintext-openapiv2',
    ]);
    expect(explained.stderr).toBe('');
    expect(explained.stdout).toMatch(/KIND:\s+Deployment/);
    expect(explained.stdout).toMatch(/FIELD:\s+replicas <integer>/);
  });

  it('`kubectl apply -f` of a `kind: List` file creates every item', async () => {
    const ns = await e2e.api.namespace('pb-list');
    const file = e2e.kubectl.write(
      'list.yaml',
      [
        'apiVersion: v1',
        'kind: List',
        'items:',
        '- apiVersion: v1',
        '  kind: ConfigMap',
        '  metadata: {name: one}',
        '  data: {a: "1"}',
        '- apiVersion: v1',
        '  kind: ConfigMap',
        '  metadata: {name: two}',
        '',
      ].join('\n'),
    );
    const applied = await e2e.kubectl.run(['apply', '-n', ns, '-f', file]);
    expect(applied.stderr).toBe('');
    expect(applied.stdout.trim().split('\n')).toEqual([
      'configmap/one created',
      'configmap/two created',
    ]);
  });
});

describe('protobuf over HTTP', () => {
  it('a GET answers protobuf to a client that asks for it, and JSON for kinds it has no protobuf for', async () => {
    const ns = await e2e.api.namespace('pb-http');
    await e2e.api.post(`/api/v1/namespaces/${ns}/configmaps`, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c' },
      data: { a: '1' },
    });
    const res = await fetch(`${e2e.server.url}/api/v1/namespaces/${ns}/configmaps/c`, {
      headers: { Accept: 'application/vnd.kubernetes.protobuf, application/json' },
    });
    expect(res.headers.get('content-type')).toBe('application/vnd.kubernetes.protobuf');
    const decoded = decodeProtobuf(new Uint8Array(await res.arrayBuffer()));
    expect(decoded).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' } });

    const list = await fetch(`${e2e.server.url}/api/v1/namespaces/${ns}/configmaps`, {
      headers: { Accept: 'application/vnd.kubernetes.protobuf' },
    });
    expect(list.headers.get('content-type')).toBe('application/vnd.kubernetes.protobuf');
    const items = decodeProtobuf(new Uint8Array(await list.arrayBuffer()))['items'] as unknown[];
    expect(items).toHaveLength(1);
  });

  it('an error answers a protobuf Status to a protobuf client', async () => {
    const res = await fetch(`${e2e.server.url}/api/v1/namespaces/default/configmaps/missing`, {
      headers: { Accept: 'application/vnd.kubernetes.protobuf' },
    });
    expect(res.status).toBe(404);
    expect(decodeProtobuf(new Uint8Array(await res.arrayBuffer()))).toMatchObject({
      kind: 'Status',
      code: 404,
      reason: 'NotFound',
    });
  });

  it('a body of arbitrary bytes sent as protobuf is a 400 Status', async () => {
    for (const body of [Buffer.from('not protobuf'), Buffer.from('6b387300ffffff', 'hex')]) {
      const res = await fetch(`${e2e.server.url}/api/v1/namespaces/default/configmaps`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/vnd.kubernetes.protobuf' },
        body,
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ kind: 'Status', code: 400, reason: 'BadRequest' });
    }
  });

  it('a watch with `;stream=watch` delivers length-prefixed WatchEvents', async () => {
    const ns = await e2e.api.namespace('pb-watch');
    const abort = new AbortController();
    const res = await fetch(
      `${e2e.server.url}/api/v1/namespaces/${ns}/configmaps?watch=true&timeoutSeconds=30`,
      {
        headers: { Accept: 'application/vnd.kubernetes.protobuf;stream=watch' },
        signal: abort.signal,
      },
    );
    expect(res.headers.get('content-type')).toBe(
      'application/vnd.kubernetes.protobuf;stream=watch',
    );
    const body = res.body;
    if (!body) throw new Error('no body');
    await e2e.api.post(`/api/v1/namespaces/${ns}/configmaps`, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'w' },
    });
    for await (const event of decodeWatchStream(body, PROTOBUF_LENGTH_PREFIXED)) {
      expect(event.type).toBe('ADDED');
      expect(event.object).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'w' } });
      break;
    }
    abort.abort();
  });
});
