import { eventually, KubectlSession } from '@listwatch/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Kubelet } from './controllers/kubelet.js';
import { isPodReady, resources, type Pod } from './controllers/objects.js';
import { startTestApiServer, type TestApiServer } from './testing/test-apiserver.js';

// `kubectl logs` against an apiserver and one of the demo's simulated kubelets: the apiserver
// finds the pod's node, dials the address and port its Node reports (status.addresses,
// status.daemonEndpoints.kubeletEndpoint.Port) and streams the kubelet's /containerLogs answer
// (kube's pkg/registry/core/pod/rest/log.go and pod/strategy.go LogLocation).

let api: TestApiServer;
let kubelet: Kubelet;
const abort = new AbortController();
let running: Promise<void>;
let session: KubectlSession;
let ns: string;

const pod = (name: string, containers: string[], nodeName?: string): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: {
    ...(nodeName ? { nodeName } : {}),
    containers: containers.map((c) => ({ name: c, image: `${c}:1.0` })),
  },
});

const kubectl = (args: string[]) => session.run(['-n', ns, ...args]);

beforeAll(async () => {
  api = await startTestApiServer();
  session = new KubectlSession(api.server.url);
  kubelet = new Kubelet({
    client: api.client,
    nodeName: 'logs-node',
    index: 7,
    logIntervalMs: 100,
  });
  await kubelet.register();
  running = kubelet.run(abort.signal);
  ns = await api.namespace();
  const pods = api.client.resource<Pod>(resources.pods).namespace(ns);
  await pods.create(pod('one', ['app'], 'logs-node'));
  await pods.create(pod('two', ['app', 'sidecar'], 'logs-node'));
  await pods.create(pod('unbound', ['app']));
  await eventually(
    async () => ((await pods.list()).items.filter(isPodReady).length === 2 ? true : undefined),
    'both bound pods to run',
  );
  // A few lines of output from each container (the kubelet prints one each 100 ms).
  const lines = async (path: string) =>
    (await (await fetch(`${api.server.url}/api/v1/namespaces/${ns}/pods/${path}`)).text())
      .trimEnd()
      .split('\n').length;
  for (const path of ['one/log', 'two/log?container=app', 'two/log?container=sidecar'])
    await eventually(
      async () => ((await lines(path)) >= 5 ? true : undefined),
      `5 lines of ${path}`,
    );
});

afterAll(async () => {
  abort.abort();
  await running;
  await api?.close();
  session?.dispose();
});

describe('kubectl logs', () => {
  it('prints the container output the kubelet serves, as plain text', async () => {
    const result = await kubectl(['logs', 'one']);
    expect(result.stderr).toBe('');
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('starting app (image app:1.0) in pod one');
    expect(lines[1]).toBe('app: served request 1');
    expect(lines.length).toBeGreaterThanOrEqual(5);
  });

  it('-c picks the container, --tail the last lines, --timestamps an RFC 3339 time on each', async () => {
    const result = await kubectl(['logs', 'two', '-c', 'sidecar', '--tail=2', '--timestamps']);
    expect(result.stderr).toBe('');
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    for (const line of lines)
      expect(line).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z sidecar: served request \d+$/);
  });

  it('kubectl picks the first of several containers itself, and says so', async () => {
    const result = await kubectl(['logs', 'two', '--tail=1']);
    expect(result.stderr).toContain('Defaulted container "app" out of: app, sidecar');
    expect(result.stdout).toMatch(/^app: served request \d+\n$/);
  });

  it('-f streams new lines as the container prints them, until kubectl stops', async () => {
    const child = session.spawn(['-n', ns, 'logs', '-f', 'one', '--tail=1']);
    const first = () => Number(/served request (\d+)/.exec(child.stdout)?.[1] ?? Number.NaN);
    await expect.poll(() => child.lines.length, { timeout: 10_000 }).toBeGreaterThan(3);
    const numbers = [...child.stdout.matchAll(/served request (\d+)/g)].map((m) => Number(m[1]));
    // Consecutive lines, arriving one by one.
    expect(numbers).toEqual(numbers.map((_, i) => first() + i));
    await child.stop();
  });

  it("--previous of a container that never restarted is the kubelet's 400", async () => {
    const result = await kubectl(['logs', 'one', '--previous']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(
      'Error from server (BadRequest): previous terminated container "app" in pod "one" not found',
    );
  });
});

describe('GET pods/log', () => {
  const get = (path: string) => fetch(`${api.server.url}/api/v1/namespaces/${ns}/pods/${path}`);

  it('a pod of several containers needs a container name: 400 naming them', async () => {
    const res = await get('two/log');
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      reason: 'BadRequest',
      message: 'a container name must be specified for pod two, choose one of: [app sidecar]',
    });
  });

  it('a container the pod does not have is a 400, a pod that does not exist a 404', async () => {
    const wrong = await get('one/log?container=db');
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ message: 'container db is not valid for pod one' });
    const missing = await get('nope/log');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({
      reason: 'NotFound',
      message: 'pods "nope" not found',
    });
  });

  it('a pod no node runs yet has an empty log (LocationStreamer without a location)', async () => {
    const res = await get('unbound/log');
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
  });

  it('negative tailLines and both sinceSeconds and sinceTime are 422 on PodLogOptions', async () => {
    const res = await get('one/log?tailLines=-1&sinceSeconds=5&sinceTime=2026-01-01T00:00:00Z');
    expect(res.status).toBe(422);
    const status = (await res.json()) as {
      details: { kind: string; causes: { field?: string }[] };
    };
    expect(status.details.kind).toBe('PodLogOptions');
    // The second cause is about the whole object: its empty field is omitted (omitempty).
    expect(status.details.causes.map((c) => c.field)).toEqual(['tailLines', undefined]);
  });

  it('limitBytes cuts the output', async () => {
    const res = await get('one/log?limitBytes=10');
    expect(res.headers.get('content-type')).toContain('text/plain');
    expect(await res.text()).toBe('starting a');
  });
});
