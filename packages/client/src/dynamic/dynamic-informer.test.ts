import type { RunningApiServer } from '@listwatch/apiserver';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import {
  newFilteredDynamicSharedInformerFactory,
  SharedInformerFactory,
} from '../cache/informer-factory.js';
import { DiscoveryClient } from '../discovery/discovery.js';
import { RestClient } from '../rest/client.js';
import { DeferredDiscoveryRESTMapper } from '../restmapper/restmapper.js';
import { createFooCRD, foo, FOO_GROUP, type Foo } from '../testing/crd.js';
import { eventually } from '../testing/eventually.js';
import { coreV1 } from '../typed/resources.js';
import { resourceRefFromGVR, type Unstructured } from './dynamic.js';
import { startTestApiServer } from '../testing/apiserver.js';

const fooGVR = { group: FOO_GROUP, version: 'v1alpha1', resource: 'foos' };

// client-go dynamic/dynamicinformer/informer.go and dynamiclister, with a CRD's objects.
describe('dynamic informers and listers by group/version/resource', () => {
  let apiserver: RunningApiServer;
  let client: RestClient;

  beforeAll(async () => {
    apiserver = await startTestApiServer();
    client = new RestClient({ server: apiserver.url });
    for (const name of ['team-a', 'team-b'])
      await client.resource(coreV1.namespaces).create({ metadata: { name } });
    await createFooCRD(client);
    const foos = client.resource<Foo>(resourceRefFromGVR(fooGVR));
    await foos.create(foo('team-a', 'one', 1));
    await foos.create(foo('team-b', 'two', 2));
  });
  afterAll(async () => {
    await client.close();
    await apiserver.close();
  });

  it("forResource lists and watches a custom resource's objects as unstructured, with a lister by namespace", async () => {
    const factory = newFilteredDynamicSharedInformerFactory(client, 0, '');
    const generic = factory.forResource(fooGVR);
    expectTypeOf(generic.lister().list()).toEqualTypeOf<Unstructured[]>();
    factory.start();
    try {
      await factory.waitForCacheSync();
      const names = generic
        .lister()
        .list()
        .map((o) => `${o.metadata.namespace}/${o.metadata.name}`);
      expect(names.sort()).toEqual(['team-a/one', 'team-b/two']);
      expect(generic.lister().namespace('team-b').get('two')['spec']).toEqual({
        deploymentName: 'two-deployment',
        replicas: 2,
      });
      // A change made after the sync reaches the cache through the watch.
      await client
        .resource(resourceRefFromGVR(fooGVR))
        .namespace('team-a')
        .patch('one', { spec: { replicas: 5 } });
      await eventually(() =>
        expect(generic.lister().namespace('team-a').get('one')['spec']).toMatchObject({
          replicas: 5,
        }),
      );
      expect(() => generic.lister().namespace('team-a').get('two')).toThrow(/not found/);
      // One informer per resource: asking again shares it.
      expect(factory.forResource(fooGVR).informer()).toBe(generic.informer());
    } finally {
      await factory.shutdown();
    }
  });

  it('a factory limited to a namespace sees only that namespace', async () => {
    const factory = newFilteredDynamicSharedInformerFactory(client, 0, 'team-b');
    const generic = factory.forResource<Foo>(fooGVR);
    factory.start();
    try {
      await factory.waitForCacheSync();
      expect(
        generic
          .lister()
          .list()
          .map((f) => f.spec?.replicas),
      ).toEqual([2]);
    } finally {
      await factory.shutdown();
    }
  });

  it('forKind finds the resource through the REST mapper and shares the forResource informer', async () => {
    const mapper = new DeferredDiscoveryRESTMapper(new DiscoveryClient(client));
    const factory = new SharedInformerFactory({ client, restMapper: mapper });
    const byKind = await factory.forKind<Foo>({ group: FOO_GROUP, kind: 'Foo' });
    expect(byKind.informer()).toBe(factory.forResource<Foo>(fooGVR).informer());
    factory.start();
    try {
      await factory.waitForCacheSync();
      expect(
        byKind
          .lister()
          .namespace('team-a')
          .list()
          .map((f) => f.metadata?.name),
      ).toEqual(['one']);
      await expect(factory.forKind({ group: FOO_GROUP, kind: 'Bar' })).rejects.toMatchObject({
        code: 404,
      });
    } finally {
      await factory.shutdown();
    }
  });
});
