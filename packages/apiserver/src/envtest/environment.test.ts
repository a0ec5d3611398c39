import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCrds, startTestEnvironment, type TestEnvironment } from './index.js';

const crdDir = fileURLToPath(new URL('testdata/crds', import.meta.url));

async function request(url: string, method = 'GET', body?: object): Promise<Response> {
  return fetch(url, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
}

// controller-runtime pkg/envtest (Environment.Start, CRDInstallOptions, WaitForCRDs), in-process.
describe('startTestEnvironment', () => {
  let env: TestEnvironment;
  beforeAll(async () => {
    env = await startTestEnvironment({ crdDirectoryPaths: [crdDir] });
  });
  afterAll(() => env.stop());

  it('installs the CRDs of a folder (YAML documents and JSON; other kinds and files ignored), established and served once it resolves', async () => {
    expect([...env.crdNames].sort()).toEqual(['bars.example.com', 'foos.samplecontroller.k8s.io']);
    // No wait: the Foo kind is served the moment start resolved.
    const ns = 'default';
    const foo = await request(
      `${env.url}/apis/samplecontroller.k8s.io/v1alpha1/namespaces/${ns}/foos`,
      'POST',
      {
        apiVersion: 'samplecontroller.k8s.io/v1alpha1',
        kind: 'Foo',
        metadata: { name: 'web' },
        spec: { deploymentName: 'web', replicas: 2 },
      },
    );
    expect(foo.status).toBe(201);
    // The schema is enforced: the CRD went through the API, not around it.
    const bad = await request(
      `${env.url}/apis/samplecontroller.k8s.io/v1alpha1/namespaces/${ns}/foos`,
      'POST',
      {
        apiVersion: 'samplecontroller.k8s.io/v1alpha1',
        kind: 'Foo',
        metadata: { name: 'zero' },
        spec: { replicas: 0 },
      },
    );
    expect(bad.status).toBe(422);
    expect((await request(`${env.url}/apis/example.com/v1/bars`)).status).toBe(200);
    expect(
      (await request(`${env.url}/api/v1/namespaces/default/configmaps/not-a-crd`)).status,
    ).toBe(404);
  });

  it('hands out a fresh namespace per call', async () => {
    const a = await env.createNamespace();
    const b = await env.createNamespace('reconcile-');
    expect(a).toMatch(/^test-[a-z0-9]{5}$/);
    expect(b).toMatch(/^reconcile-[a-z0-9]{5}$/);
    expect((await request(`${env.url}/api/v1/namespaces/${b}`)).status).toBe(200);
  });

  it('hands out a client config and a kubeconfig naming the server', () => {
    expect(env.config).toEqual({ server: env.url });
    expect(env.kubeconfig()).toContain(`server: '${env.url}'`);
  });
});

describe('startTestEnvironment failures', () => {
  it('an invalid CRD fails start with the apiserver’s reason', async () => {
    const crd = readCrds([`${crdDir}/bars.json`])[0] as { spec: { scope: string } };
    const invalid = { ...crd, spec: { ...crd.spec, scope: 'Galaxy' } };
    await expect(startTestEnvironment({ crds: [invalid] })).rejects.toThrow(
      /customresourcedefinitions: 422 .*scope/,
    );
  });

  it('a CRD path that does not exist fails start naming it (errorIfCrdPathMissing: false skips it)', async () => {
    await expect(startTestEnvironment({ crdDirectoryPaths: ['/no/such/crds'] })).rejects.toThrow(
      'envtest: CRD path /no/such/crds does not exist',
    );
    expect(readCrds(['/no/such/crds'], false)).toEqual([]);
  });

  it('stop closes the port', async () => {
    const env = await startTestEnvironment();
    expect((await request(`${env.url}/readyz`)).status).toBe(200);
    await env.stop();
    await expect(request(`${env.url}/readyz`)).rejects.toThrow();
  });
});
