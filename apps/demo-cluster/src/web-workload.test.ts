import { isApiError } from '@listwatch/api';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ensureFooCrd, foos, type Foo } from './controllers/samplecontroller/foo-controller.js';
import { startTestApiServer, type TestApiServer } from './testing/test-apiserver.js';
import { ensureFoo, exampleFoo } from './web-workload.js';

let api: TestApiServer;
beforeAll(async () => {
  api = await startTestApiServer();
});
afterAll(() => api?.close());

// Behind a balancer the replica asked may not serve a CRD another replica just established:
// its 404 is the moment before that replica's CRD informer catches up
// (apiextensions-apiserver's crdHandler serves only the CRDs it has seen).
it('ensureFoo retries a 404 until the Foo CRD is served, then creates the Foo once; an existing Foo is left as it is', async () => {
  const namespace = await api.namespace();
  const creating = ensureFoo(api.client, exampleFoo(namespace, 'late', 2));
  await new Promise((r) => setTimeout(r, 300));
  await ensureFooCrd(api.client);
  await creating;
  const fooClient = api.client.resource<Foo>(foos).namespace(namespace);
  const created = await fooClient.get('late');
  expect(created.spec?.replicas).toBe(2);
  await ensureFoo(api.client, exampleFoo(namespace, 'late', 5));
  expect((await fooClient.get('late')).metadata.resourceVersion).toBe(
    created.metadata.resourceVersion,
  );
});

it('ensureFoo gives up with the 404 once its time is out when no CRD serves Foos', async () => {
  const other = await startTestApiServer();
  try {
    const err: unknown = await ensureFoo(other.client, exampleFoo('default'), 300).catch(
      (e: unknown) => e,
    );
    expect(isApiError(err) && err.code).toBe(404);
  } finally {
    await other.close();
  }
});
