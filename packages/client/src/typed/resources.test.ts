import type { V1Deployment, V1Pod } from '@kubernetes/client-node';
import { findBuiltinResource, type KubeList } from '@listwatch/api';
import type { RunningApiServer } from '@listwatch/apiserver';
import type { Deployment } from 'kubernetes-types/apps/v1.js';
import type { ConfigMap, Namespace, Pod } from 'kubernetes-types/core/v1.js';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { SharedInformerFactory } from '../cache/informer-factory.js';
import type { Lister } from '../cache/lister.js';
import type { SharedIndexInformer } from '../cache/shared-informer.js';
import { RestClient } from '../rest/client.js';
import type { ResourceClient } from '../rest/resource-client.js';
import { eventually } from '../testing/eventually.js';
import type { SelfSubjectAccessReview } from 'kubernetes-types/authorization/v1.js';
import { appsV1, authorizationV1, coreV1, typedResource, typedResources } from './resources.js';
import { startTestApiServer } from '../testing/apiserver.js';

// Compile-time checks run with `pnpm typecheck` (tsc over the test files): a wrong type there
// fails the build, as tsd would; each `@ts-expect-error` fails it if the error goes away.

const pod = (namespace: string, name: string): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace, labels: { app: 'web' } },
  spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
});

describe('typed resources (kubernetes-types)', () => {
  let apiserver: RunningApiServer;
  let client: RestClient;

  beforeAll(async () => {
    apiserver = await startTestApiServer();
    client = new RestClient({ server: apiserver.url });
    await client.resource(coreV1.namespaces).create({ metadata: { name: 'typed' } });
  });
  afterAll(async () => {
    await client.close();
    await apiserver.close();
  });

  it('every kind the apiserver serves has a typed reference with its discovery name and scope', async () => {
    const accept = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
    interface Discovery {
      items: {
        metadata: { name?: string };
        versions: {
          version: string;
          resources: { resource: string; scope: string; responseKind: { kind: string } }[];
        }[];
      }[];
    }
    const served: string[] = [];
    for (const path of ['/api', '/apis']) {
      const list = await client.request<Discovery>({ method: 'GET', path, accept });
      for (const group of list.items)
        for (const version of group.versions)
          for (const r of version.resources)
            served.push(
              `${group.metadata.name ?? ''}/${version.version} ${r.responseKind.kind} ${r.resource} ${r.scope}`,
            );
    }
    const typed = typedResources.map(
      (r) =>
        `${r.group}/${r.version} ${r.kind} ${r.plural} ${r.namespaced ? 'Namespaced' : 'Cluster'}`,
    );
    expect(served.length).toBeGreaterThan(30);
    expect(typed.sort()).toEqual(served.sort());
  });

  it("client.resource(coreV1.pods).namespace(ns).list() returns Pods: the list's items are kubernetes-types' Pod", async () => {
    const pods = client.resource(coreV1.pods).namespace('typed');
    expectTypeOf(pods).toEqualTypeOf<ResourceClient<Pod>>();
    const created = await pods.create(pod('typed', 'web-1'));
    expectTypeOf(created).toEqualTypeOf<Pod>();
    const list = await pods.list();
    expectTypeOf(list).toEqualTypeOf<KubeList<Pod>>();
    expectTypeOf(list.items).toEqualTypeOf<Pod[]>();
    // @ts-expect-error a Pod's spec has no replicas
    void list.items[0]?.spec?.replicas;
    // Never called: only compiled.
    const _wrongKind = (cm: ConfigMap) =>
      // @ts-expect-error the client of pods does not create a ConfigMap
      pods.create(cm);
    void _wrongKind;
    expect(list.items.map((p) => p.spec?.containers[0]?.image)).toEqual(['nginx:1.27']);
    expect(list.items[0]?.metadata?.uid).toBe(created.metadata?.uid);
  });

  it('a review is created through its typed reference and comes back answered, not stored', async () => {
    const reviews = client.resource(authorizationV1.selfsubjectaccessreviews);
    expectTypeOf(reviews).toEqualTypeOf<ResourceClient<SelfSubjectAccessReview>>();
    const answer = await reviews.create({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes: { namespace: 'typed', verb: 'list', resource: 'pods' } },
    });
    expect(answer.spec?.resourceAttributes?.resource).toBe('pods');
    // The server's default authorizer allows everything.
    expect(answer.status?.allowed).toBe(true);
    await expect(reviews.list()).rejects.toMatchObject({ code: 405 });
  });

  it('an informer and its lister made from a typed reference hold Deployments', async () => {
    const factory = new SharedInformerFactory({ client, namespace: 'typed' });
    const informer = factory.informerFor(appsV1.deployments);
    expectTypeOf(informer).toEqualTypeOf<SharedIndexInformer<Deployment>>();
    expectTypeOf(informer.lister()).toEqualTypeOf<Lister<Deployment>>();
    expectTypeOf(informer.getIndexer().list()).toEqualTypeOf<Deployment[]>();
    factory.start();
    try {
      await client.resource(appsV1.deployments).create({
        metadata: { name: 'web', namespace: 'typed' },
        spec: {
          replicas: 3,
          selector: { matchLabels: { app: 'web' } },
          template: {
            metadata: { labels: { app: 'web' } },
            spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
          },
        },
      });
      const deployment = await eventually(() => informer.lister().namespace('typed').get('web'));
      expectTypeOf(deployment).toEqualTypeOf<Deployment>();
      expect(deployment.spec?.replicas).toBe(3);
      expect(deployment.spec?.template.spec?.containers[0]?.name).toBe('app');
    } finally {
      await factory.shutdown();
    }
  });

  it("@kubernetes/client-node's model classes (optional metadata, Date timestamps) satisfy the generics", async () => {
    const pods = client.resource<V1Pod>(findBuiltinResource('pods')!).namespace('typed');
    expectTypeOf(pods).toEqualTypeOf<ResourceClient<V1Pod>>();
    const list = await pods.list();
    expectTypeOf(list.items).toEqualTypeOf<V1Pod[]>();
    expect(list.items.map((p) => p.metadata?.name)).toEqual(['web-1']);
    const factory = new SharedInformerFactory({ client, namespace: 'typed' });
    const informer = factory.informerFor<V1Deployment>(findBuiltinResource('deployments')!);
    expectTypeOf(informer.lister()).toEqualTypeOf<Lister<V1Deployment>>();
    factory.start();
    try {
      const d = await eventually(() => informer.lister().namespace('typed').get('web'));
      expect(d.spec?.replicas).toBe(3);
    } finally {
      await factory.shutdown();
    }
  });

  it('an untyped reference keeps the KubeObject default, and typedResource types any reference', () => {
    const untyped = client.resource(findBuiltinResource('configmaps')!);
    expectTypeOf(untyped).toEqualTypeOf<ResourceClient>();
    const namespaces = typedResource<Namespace>({
      group: '',
      version: 'v1',
      kind: 'Namespace',
      plural: 'namespaces',
      namespaced: false,
    });
    expectTypeOf(client.resource(namespaces)).toEqualTypeOf<ResourceClient<Namespace>>();
    expect(namespaces).toEqual({ ...coreV1.namespaces });
  });
});
