import type { KubeObject } from '@listwatch/api';
import { PYTHON } from '@listwatch/testing';
import { execFile } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { e2eForFile } from './e2e.test-helper.js';

// `kubectl scale` (kubectl 1.32's scale client: discovery finds deployments/scale as
// autoscaling/v1 Scale, then a merge patch of spec.replicas, or GET + PUT with preconditions)
// and the Python client's scale calls, against the scale subresource.

const e2e = e2eForFile();

const workload = (kind: 'Deployment' | 'ReplicaSet', replicas: number): KubeObject => ({
  apiVersion: 'apps/v1',
  kind,
  metadata: { name: 'web' },
  spec: {
    replicas,
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: { containers: [{ name: 'web', image: 'nginx' }] },
    },
  },
});

async function create(kind: 'Deployment' | 'ReplicaSet', replicas: number): Promise<string> {
  const ns = await e2e.api.namespace('scale');
  const res = await e2e.api.post(
    `/apis/apps/v1/namespaces/${ns}/${kind.toLowerCase()}s`,
    workload(kind, replicas),
  );
  expect(res.status).toBe(201);
  return ns;
}

async function replicas(kind: string, ns: string): Promise<string> {
  const result = await e2e.kubectl.run([
    'get',
    kind,
    'web',
    '-n',
    ns,
    '-o',
    'jsonpath={.spec.replicas}',
  ]);
  expect(result.stderr).toBe('');
  return result.stdout;
}

describe('kubectl scale', () => {
  it('kubectl scale deployment sets spec.replicas through the scale subresource', async () => {
    const ns = await create('Deployment', 2);
    const result = await e2e.kubectl.run(['scale', 'deployment', 'web', '--replicas=5', '-n', ns]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe('deployment.apps/web scaled');
    expect(await replicas('deploy', ns)).toBe('5');
  });

  it('kubectl scale rs sets the replicaset’s spec.replicas', async () => {
    const ns = await create('ReplicaSet', 1);
    const result = await e2e.kubectl.run(['scale', 'rs', 'web', '--replicas=3', '-n', ns]);
    expect(result.stderr).toBe('');
    expect(result.stdout.trim()).toBe('replicaset.apps/web scaled');
    expect(await replicas('rs', ns)).toBe('3');
  });

  it('--current-replicas is checked against the Scale, and --resource-version is a precondition', async () => {
    const ns = await create('Deployment', 2);
    const wrong = await e2e.kubectl.run([
      'scale',
      'deployment/web',
      '--current-replicas=4',
      '--replicas=6',
      '-n',
      ns,
    ]);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toContain('Expected replicas to be 4, was 2');
    const right = await e2e.kubectl.run([
      'scale',
      'deployment/web',
      '--current-replicas=2',
      '--replicas=6',
      '-n',
      ns,
    ]);
    expect(right.stderr).toBe('');
    expect(await replicas('deploy', ns)).toBe('6');
    const stale = await e2e.kubectl.run([
      'scale',
      'deployment/web',
      '--resource-version=1',
      '--replicas=8',
      '-n',
      ns,
    ]);
    // kubectl compares the Scale's resourceVersion itself before it sends the PUT.
    expect(stale.code).not.toBe(0);
    expect(stale.stderr).toMatch(/Expected resource version to be 1, was \d+/);
    expect(await replicas('deploy', ns)).toBe('6');
  });

  it('kubectl get --raw reads the Scale', async () => {
    const ns = await create('Deployment', 3);
    const result = await e2e.kubectl.run([
      'get',
      '--raw',
      `/apis/apps/v1/namespaces/${ns}/deployments/web/scale`,
    ]);
    expect(JSON.parse(result.stdout)).toMatchObject({
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      spec: { replicas: 3 },
      status: { replicas: 0, selector: 'app=web' },
    });
  });
});

describe('the Python client', () => {
  it('patch_namespaced_deployment_scale and read_namespaced_deployment_scale work on the Scale', async () => {
    const ns = await create('Deployment', 1);
    const script = `
import sys
from kubernetes import client
c = client.Configuration(); c.host = sys.argv[1]
apps = client.AppsV1Api(client.ApiClient(c))
scaled = apps.patch_namespaced_deployment_scale("web", sys.argv[2], {"spec": {"replicas": 4}})
read = apps.read_namespaced_deployment_scale("web", sys.argv[2])
print(scaled.kind, scaled.spec.replicas, read.spec.replicas, read.status.selector)
`;
    const out = await new Promise<string>((resolve, reject) =>
      execFile(PYTHON, ['-c', script, e2e.server.url, ns], (err, stdout, stderr) =>
        err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout),
      ),
    );
    expect(out.trim()).toBe('Scale 4 4 app=web');
    expect(await replicas('deploy', ns)).toBe('4');
  });
});
