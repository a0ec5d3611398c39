import type { RunningApiServer } from '@listwatch/apiserver';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { DiscoveryClient } from '../discovery/discovery.js';
import { RestClient } from '../rest/client.js';
import { createFooCRD, foo, FOO_GROUP, type Foo } from '../testing/crd.js';
import { proxyTo, TestServer } from '../testing/test-server.js';
import { coreV1 } from '../typed/resources.js';
import {
  DeferredDiscoveryRESTMapper,
  isNoMatchError,
  NoKindMatchError,
  NoResourceMatchError,
} from './restmapper.js';
import { startTestApiServer } from '../testing/apiserver.js';

// client-go restmapper/discovery.go and discovery/discovery_client.go, against our apiserver.
describe('the discovery-backed REST mapper', () => {
  let apiserver: RunningApiServer;
  let proxy: TestServer;
  let client: RestClient;

  beforeAll(async () => {
    apiserver = await startTestApiServer();
    proxy = await TestServer.start();
    proxy.handle(proxyTo(apiserver.url));
    client = new RestClient({ server: `http://127.0.0.1:${proxy.port}` });
    await client.resource(coreV1.namespaces).create({ metadata: { name: 'mapper' } });
  });
  afterAll(async () => {
    await client.close();
    await proxy.close();
    await apiserver.close();
  });

  const discoveryRequests = () =>
    proxy.requests
      .filter((r) => r.url === '/api' || r.url.startsWith('/api/v1') || r.url.startsWith('/apis'))
      .filter((r) => !r.url.includes('/namespaces'));

  it('maps kind to resource and back, with scope and the preferred version', async () => {
    const mapper = new DeferredDiscoveryRESTMapper(new DiscoveryClient(client));
    expect(await mapper.restMapping({ group: 'apps', kind: 'Deployment' })).toEqual({
      resource: { group: 'apps', version: 'v1', resource: 'deployments' },
      groupVersionKind: { group: 'apps', version: 'v1', kind: 'Deployment' },
      scope: 'namespace',
    });
    expect((await mapper.restMapping({ group: '', kind: 'Node' })).scope).toBe('root');
    expect(await mapper.kindFor({ resource: 'pods' })).toEqual({
      group: '',
      version: 'v1',
      kind: 'Pod',
    });
    expect(await mapper.resourceFor({ resource: 'pod' })).toEqual({
      group: '',
      version: 'v1',
      resource: 'pods',
    });
    expect(await mapper.resourceFor({ resource: 'deploy' })).toEqual({
      group: 'apps',
      version: 'v1',
      resource: 'deployments',
    });
    // Two groups serve `events`: the core group comes first, as in kubectl.
    expect(await mapper.resourcesFor({ resource: 'events' })).toEqual([
      { group: '', version: 'v1', resource: 'events' },
      { group: 'events.k8s.io', version: 'v1', resource: 'events' },
    ]);
    expect(await mapper.resourceFor({ resource: 'events', group: 'events.k8s.io' })).toEqual({
      group: 'events.k8s.io',
      version: 'v1',
      resource: 'events',
    });
    // Subresources are not resources of their own.
    await expect(mapper.resourceFor({ resource: 'pods/status' })).rejects.toBeInstanceOf(
      NoResourceMatchError,
    );
  });

  it('aggregated discovery (2 requests) and the legacy documents (one per group version) agree', async () => {
    const count = () => discoveryRequests().length;
    let start = count();
    const aggregated = await new DiscoveryClient(client).serverGroupsAndResources();
    const aggregatedRequests = count() - start;
    start = count();
    const legacy = await new DiscoveryClient(client, {
      aggregated: false,
    }).serverGroupsAndResources();
    const legacyRequests = count() - start;
    expect(aggregatedRequests).toBe(2);
    expect(legacyRequests).toBeGreaterThan(10);
    const flatten = (groups: typeof legacy) =>
      groups.flatMap((g) =>
        g.versions.flatMap((v) =>
          (g.resources.get(v) ?? [])
            .map((r) => `${g.name}/${v} ${r.name} ${r.kind} ${r.namespaced} ${r.singularName}`)
            .sort(),
        ),
      );
    expect(flatten(aggregated)).toEqual(flatten(legacy));
    expect(aggregated.map((g) => [g.name, g.preferredVersion])).toEqual(
      legacy.map((g) => [g.name, g.preferredVersion]),
    );
  });

  it('a server without aggregated discovery is read through the legacy documents', async () => {
    // An older apiserver: it ignores the aggregated media type and answers APIVersions/APIGroupList.
    const old = await TestServer.start();
    const forward = proxyTo(apiserver.url);
    old.handle((req, res) =>
      forward({ ...req, headers: { ...req.headers, accept: 'application/json' } }, res),
    );
    const oldClient = new RestClient({ server: `http://127.0.0.1:${old.port}` });
    try {
      const mapper = new DeferredDiscoveryRESTMapper(new DiscoveryClient(oldClient));
      expect(await mapper.resourceFor({ resource: 'deploy' })).toEqual({
        group: 'apps',
        version: 'v1',
        resource: 'deployments',
      });
      expect(old.requests.map((r) => r.url)).toContain('/apis/apps/v1');
    } finally {
      await oldClient.close();
      await old.close();
    }
  });

  it('a refetch revalidates each document with its ETag (If-None-Match) and keeps what did not change', async () => {
    const discovery = new DiscoveryClient(client);
    const first = await discovery.serverGroupsAndResources();
    const firstAnswers = discoveryRequests().slice(-2);
    expect(firstAnswers.map((r) => r.headers['if-none-match'])).toEqual([undefined, undefined]);
    discovery.invalidate();
    const second = await discovery.serverGroupsAndResources();
    const revalidations = discoveryRequests().slice(-2);
    expect(revalidations.map((r) => r.url).sort()).toEqual(['/api', '/apis']);
    expect(revalidations.every((r) => typeof r.headers['if-none-match'] === 'string')).toBe(true);
    expect(second).toEqual(first);
    expect(discovery.generation).toBe(2);
  });

  it('a CustomResourceDefinition created after the first lookup is found: the miss refetches discovery once', async () => {
    const discovery = new DiscoveryClient(client);
    const mapper = new DeferredDiscoveryRESTMapper(discovery);
    await mapper.kindFor({ resource: 'pods' });
    expect(discovery.generation).toBe(1);

    await createFooCRD(client);
    const mapping = await mapper.restMapping({ group: FOO_GROUP, kind: 'Foo' });
    expect(mapping).toEqual({
      resource: { group: FOO_GROUP, version: 'v1alpha1', resource: 'foos' },
      groupVersionKind: { group: FOO_GROUP, version: 'v1alpha1', kind: 'Foo' },
      scope: 'namespace',
    });
    expect(discovery.generation).toBe(2);
    expect(await mapper.resourceFor({ resource: 'fo' })).toEqual(mapping.resource);

    // A found kind costs no request; a kind nobody serves, one refetch and a 404 NoKindMatchError.
    await mapper.restMapping({ group: FOO_GROUP, kind: 'Foo' });
    expect(discovery.generation).toBe(2);
    const missing = await mapper
      .restMapping({ group: FOO_GROUP, kind: 'Bar' })
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(NoKindMatchError);
    expect(isNoMatchError(missing)).toBe(true);
    expect((missing as NoKindMatchError).code).toBe(404);
    expect((missing as Error).message).toBe(`no matches for kind "Bar" in group "${FOO_GROUP}"`);
    expect(discovery.generation).toBe(3);

    // The mapping is a reference the client and informers take, typed by the caller.
    const ref = await mapper.resourceRefFor<Foo>({ group: FOO_GROUP, kind: 'Foo' });
    const foos = client.resource(ref).namespace('mapper');
    expectTypeOf(await foos.get('x').catch(() => foo('mapper', 'x'))).toEqualTypeOf<Foo>();
    await foos.create(foo('mapper', 'one', 2));
    expect((await foos.list()).items.map((f) => [f.metadata?.name, f.spec?.replicas])).toEqual([
      ['one', 2],
    ]);
  });
});
