import { decodeProtobuf } from '@listwatch/codec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiGroupDiscoveryList } from './aggregated.js';
import { startDiscoveryServer, type DiscoveryServer } from './discovery-server.test-helper.js';
import type { ApiGroupDocument, ApiResource, ApiResourceList } from './legacy.js';

interface V3Index {
  paths: Record<string, { serverRelativeURL: string }>;
}

// HTTP behaviour of discoveryMiddleware on a real koa server, checked with fetch.

const KUBECTL_ACCEPT =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';
const V2 = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const V2BETA1 = 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList';

let server: DiscoveryServer;

beforeAll(async () => {
  server = await startDiscoveryServer();
});

afterAll(async () => {
  await server.close();
});

function get(
  path: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<Response> {
  return fetch(`${server.url}${path}`, { method, headers, redirect: 'manual' });
}

async function json<T = unknown>(path: string, headers: Record<string, string> = {}): Promise<T> {
  const res = await get(path, headers);
  expect(res.status).toBe(200);
  return (await res.json()) as T;
}

const DOCUMENTS = [
  '/version',
  '/api',
  '/apis',
  '/api/v1',
  '/apis/apps',
  '/apis/apps/v1',
  '/apis/coordination.k8s.io/v1',
  '/apis/rbac.authorization.k8s.io/v1',
  '/openapi/v2',
  '/openapi/v3',
  '/openapi/v3/api/v1',
  '/openapi/v3/apis/apps/v1',
];

describe('discovery documents', () => {
  it('every document is JSON with Content-Type application/json', async () => {
    for (const path of DOCUMENTS) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type'), path).toBe('application/json');
      await res.json();
    }
  });

  it('/version is a version.Info for Kubernetes 1.32', async () => {
    expect(await json('/version')).toMatchObject({
      major: '1',
      minor: '32',
      gitVersion: 'v1.32.0-listwatch',
      gitTreeState: 'clean',
      compiler: 'tsc',
    });
  });

  it('/api lists v1 and the address the client reached; /apis lists each named group once', async () => {
    const address = server.url.replace('http://', '');
    expect(await json('/api')).toEqual({
      kind: 'APIVersions',
      versions: ['v1'],
      serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: address }],
    });
    const apis = await json<{ kind: string; apiVersion: string; groups: ApiGroupDocument[] }>(
      '/apis',
    );
    expect(apis.kind).toBe('APIGroupList');
    expect(apis.apiVersion).toBe('v1');
    expect(apis.groups.map((g) => [g.name, g.versions, g.preferredVersion])).toEqual(
      [
        'apps',
        'events.k8s.io',
        'authentication.k8s.io',
        'authorization.k8s.io',
        'autoscaling',
        'batch',
        'networking.k8s.io',
        'policy',
        'rbac.authorization.k8s.io',
        'coordination.k8s.io',
        'discovery.k8s.io',
      ].map((name) =>
        // autoscaling serves v2 (preferred, its storage version) and v1.
        name === 'autoscaling'
          ? [
              name,
              [
                { groupVersion: 'autoscaling/v2', version: 'v2' },
                { groupVersion: 'autoscaling/v1', version: 'v1' },
              ],
              { groupVersion: 'autoscaling/v2', version: 'v2' },
            ]
          : [
              name,
              [{ groupVersion: `${name}/v1`, version: 'v1' }],
              { groupVersion: `${name}/v1`, version: 'v1' },
            ],
      ),
    );
  });

  it('/apis/<group> is an APIGroup', async () => {
    expect(await json('/apis/apps')).toEqual({
      kind: 'APIGroup',
      apiVersion: 'v1',
      name: 'apps',
      versions: [{ groupVersion: 'apps/v1', version: 'v1' }],
      preferredVersion: { groupVersion: 'apps/v1', version: 'v1' },
    });
  });

  it('/api/v1 lists resources and subresources like kube (no apiVersion on the core list, discovery/version.go)', async () => {
    const list = await json<ApiResourceList>('/api/v1');
    expect(list.kind).toBe('APIResourceList');
    expect(list.apiVersion).toBeUndefined();
    expect(list.groupVersion).toBe('v1');
    const byName = new Map(list.resources.map((r) => [r.name, r]));
    expect(byName.get('pods')).toEqual({
      name: 'pods',
      singularName: 'pod',
      namespaced: true,
      kind: 'Pod',
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['po'],
      categories: ['all'],
      storageVersionHash: 'xPOwRZ+Yhw8=',
    });
    expect(byName.get('pods/status')).toEqual({
      name: 'pods/status',
      singularName: '',
      namespaced: true,
      kind: 'Pod',
      verbs: ['get', 'patch', 'update'],
    });
    expect(byName.get('pods/binding')).toMatchObject({ kind: 'Binding', verbs: ['create'] });
    expect(byName.get('namespaces/finalize')).toMatchObject({
      kind: 'Namespace',
      namespaced: false,
      verbs: ['update'],
    });
    expect(byName.get('secrets')).not.toHaveProperty('shortNames');
    const names = list.resources.map((r) => r.name);
    expect(names).toEqual([...names].sort());
  });

  it('/apis/<group>/<version> carries apiVersion v1', async () => {
    const list = await json<ApiResourceList>('/apis/apps/v1');
    expect(list).toMatchObject({
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: 'apps/v1',
    });
    expect(list.resources.find((r: ApiResource) => r.name === 'deployments/status')).toMatchObject({
      kind: 'Deployment',
      verbs: ['get', 'patch', 'update'],
    });
  });

  it('a trailing slash names the same document', async () => {
    expect(await json('/api/v1/')).toEqual(await json('/api/v1'));
    expect(await json('/apis/')).toEqual(await json('/apis'));
  });
});

describe('aggregated discovery', () => {
  it("kubectl's Accept header gets an apidiscovery.k8s.io/v2 APIGroupDiscoveryList with its own content type", async () => {
    for (const path of ['/api', '/apis']) {
      const res = await get(path, { Accept: KUBECTL_ACCEPT });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe(V2);
      expect(res.headers.get('vary')).toBe('Accept');
      const body = (await res.json()) as ApiGroupDiscoveryList;
      expect(body).toMatchObject({
        kind: 'APIGroupDiscoveryList',
        apiVersion: 'apidiscovery.k8s.io/v2',
        metadata: {},
      });
    }
  });

  it('lists the core group at /api and the named groups at /apis, with kinds, scopes, verbs and subresources', async () => {
    const core = await json<ApiGroupDiscoveryList>('/api', { Accept: V2 });
    expect(core.items).toHaveLength(1);
    expect(core.items[0]!.metadata).toEqual({});
    const v1 = core.items[0]!.versions[0]!;
    expect(v1.version).toBe('v1');
    expect(v1.freshness).toBe('Current');
    expect(v1.resources.find((r) => r.resource === 'pods')).toEqual({
      resource: 'pods',
      responseKind: { group: '', version: 'v1', kind: 'Pod' },
      scope: 'Namespaced',
      singularResource: 'pod',
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['po'],
      categories: ['all'],
      subresources: [
        {
          subresource: 'attach',
          responseKind: { group: '', version: 'v1', kind: 'PodAttachOptions' },
          verbs: ['create', 'get'],
        },
        {
          subresource: 'binding',
          responseKind: { group: '', version: 'v1', kind: 'Binding' },
          verbs: ['create'],
        },
        {
          subresource: 'exec',
          responseKind: { group: '', version: 'v1', kind: 'PodExecOptions' },
          verbs: ['create', 'get'],
        },
        {
          subresource: 'log',
          responseKind: { group: '', version: 'v1', kind: 'Pod' },
          verbs: ['get'],
        },
        {
          subresource: 'portforward',
          responseKind: { group: '', version: 'v1', kind: 'PodPortForwardOptions' },
          verbs: ['create', 'get'],
        },
        {
          subresource: 'status',
          responseKind: { group: '', version: 'v1', kind: 'Pod' },
          verbs: ['get', 'patch', 'update'],
        },
      ],
    });
    expect(v1.resources.find((r) => r.resource === 'nodes')?.scope).toBe('Cluster');
    const groups = await json<ApiGroupDiscoveryList>('/apis', { Accept: V2 });
    expect(groups.items.map((g) => g.metadata.name)).toEqual([
      'apps',
      'events.k8s.io',
      'authentication.k8s.io',
      'authorization.k8s.io',
      'autoscaling',
      'batch',
      'networking.k8s.io',
      'policy',
      'rbac.authorization.k8s.io',
      'coordination.k8s.io',
      'discovery.k8s.io',
    ]);
    expect(groups.items[0]!.versions[0]!.resources.map((r) => r.resource)).toEqual([
      'controllerrevisions',
      'daemonsets',
      'deployments',
      'replicasets',
      'statefulsets',
    ]);
  });

  it('a client that only knows v2beta1 gets v2beta1', async () => {
    const res = await get('/apis', { Accept: `${V2BETA1}, application/json` });
    expect(res.headers.get('content-type')).toBe(V2BETA1);
    expect(((await res.json()) as ApiGroupDiscoveryList).apiVersion).toBe(
      'apidiscovery.k8s.io/v2beta1',
    );
  });

  it('a plain JSON request gets the legacy document', async () => {
    const res = await get('/apis', { Accept: 'application/json, */*' });
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(((await res.json()) as { kind: string }).kind).toBe('APIGroupList');
  });

  it('a conversion the endpoint cannot do is refused with 406, unless a fallback type is acceptable', async () => {
    const table = 'application/json;as=Table;v=v1;g=meta.k8s.io';
    const refused = await get('/api/v1', { Accept: table });
    expect(refused.status).toBe(406);
    expect(await refused.json()).toMatchObject({
      kind: 'Status',
      code: 406,
      reason: 'NotAcceptable',
    });
    expect((await get('/api/v1', { Accept: V2 })).status).toBe(406);
    expect((await get('/api/v1', { Accept: `${table}, application/json` })).status).toBe(200);
  });
});

describe('discovery in protobuf', () => {
  it('the legacy documents are served in protobuf to a client that asks for it, each its JSON (endpoints/discovery)', async () => {
    const PROTOBUF = 'application/vnd.kubernetes.protobuf';
    for (const path of ['/api', '/apis', '/api/v1', '/apis/apps', '/apis/apps/v1']) {
      const res = await get(path, { Accept: `${PROTOBUF}, application/json` });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe(PROTOBUF);
      expect(res.headers.get('etag')).toMatch(/^"[0-9A-F]{128}"$/);
      const decoded = decodeProtobuf(new Uint8Array(await res.arrayBuffer()));
      const { apiVersion: _ignored, ...fromJson } = decoded as Record<string, unknown>;
      const expected = await json<Record<string, unknown>>(path);
      delete expected['apiVersion'];
      expect(fromJson).toEqual(expected);
    }
  });

  it('the aggregated documents stay JSON: a protobuf range for them falls through to the JSON one', async () => {
    const res = await get('/apis', {
      Accept: `application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,${V2}`,
    });
    expect(res.headers.get('content-type')).toBe(V2);
  });
});

describe('caching', () => {
  it('every document has a quoted ETag and answers a matching If-None-Match with an empty 304', async () => {
    for (const path of DOCUMENTS) {
      const first = await get(path);
      const etag = first.headers.get('etag');
      expect(etag, path).toMatch(/^"[0-9A-F]{128}"$/);
      const again = await get(path, { 'If-None-Match': etag ?? '' });
      expect(again.status, path).toBe(304);
      expect(await again.text()).toBe('');
      expect(again.headers.get('etag')).toBe(etag);
      const changed = await get(path, { 'If-None-Match': '"0000"' });
      expect(changed.status, path).toBe(200);
    }
  });

  it('the aggregated and legacy forms of /apis have different ETags and are cached apart (Vary: Accept)', async () => {
    const aggregated = await get('/apis', { Accept: KUBECTL_ACCEPT });
    const legacy = await get('/apis', { Accept: 'application/json' });
    expect(aggregated.headers.get('etag')).not.toBe(legacy.headers.get('etag'));
    expect(legacy.headers.get('vary')).toBe('Accept');
    const revalidated = await get('/apis', {
      Accept: KUBECTL_ACCEPT,
      'If-None-Match': aggregated.headers.get('etag') ?? '',
    });
    expect(revalidated.status).toBe(304);
  });

  it('Cache-Control is what kube sends: public for aggregated discovery, no-cache otherwise', async () => {
    expect((await get('/apis', { Accept: V2 })).headers.get('cache-control')).toBe('public');
    expect((await get('/api/v1')).headers.get('cache-control')).toBe('no-cache, private');
    expect((await get('/openapi/v3')).headers.get('cache-control')).toBe('no-cache, private');
  });
});

describe('OpenAPI', () => {
  it('the v3 index points at each group/version document by the hash of its body', async () => {
    const index = await json<V3Index>('/openapi/v3');
    expect(Object.keys(index.paths)).toEqual([
      'api/v1',
      'apis/apps/v1',
      'apis/authentication.k8s.io/v1',
      'apis/authorization.k8s.io/v1',
      'apis/autoscaling/v1',
      'apis/autoscaling/v2',
      'apis/batch/v1',
      'apis/coordination.k8s.io/v1',
      'apis/discovery.k8s.io/v1',
      'apis/events.k8s.io/v1',
      'apis/networking.k8s.io/v1',
      'apis/policy/v1',
      'apis/rbac.authorization.k8s.io/v1',
    ]);
    for (const [key, { serverRelativeURL }] of Object.entries(index.paths)) {
      expect(serverRelativeURL).toMatch(new RegExp(`^/openapi/v3/${key}\\?hash=[0-9A-F]{128}$`));
      const res = await get(serverRelativeURL);
      expect(res.status).toBe(200);
      expect(res.headers.get('etag')).toBe(`"${serverRelativeURL.split('hash=')[1]}"`);
      // Addressed by content: cacheable forever (kube-openapi handler3).
      expect(res.headers.get('cache-control')).toBe('public, immutable');
      expect(Date.parse(res.headers.get('expires') ?? '')).toBeGreaterThan(Date.now());
    }
  });

  it('a stale hash is redirected to the current one', async () => {
    const index = await json<V3Index>('/openapi/v3');
    const res = await get('/openapi/v3/api/v1?hash=STALE');
    expect(res.status).toBe(301);
    expect(res.headers.get('location')).toBe(index.paths['api/v1']?.serverRelativeURL);
  });

  it('v2 is served as JSON, and in gnostic protobuf to a client that asks for it (kube-openapi handler)', async () => {
    const swagger = await json<{
      swagger: string;
      definitions: Record<string, Record<string, unknown>>;
    }>('/openapi/v2', { Accept: 'application/json' });
    expect(swagger.swagger).toBe('2.0');
    expect(
      swagger.definitions['io.k8s.api.core.v1.Pod']?.['x-kubernetes-group-version-kind'],
    ).toEqual([{ group: '', kind: 'Pod', version: 'v1' }]);
    // A described reference is a `$ref` beside the description, as kube's v2 documents write it.
    expect(swagger.definitions['io.k8s.api.core.v1.Pod']?.['properties']).toMatchObject({
      spec: { $ref: '#/definitions/io.k8s.api.core.v1.PodSpec' },
    });
    for (const type of [
      'application/com.github.proto-openapi.spec.v2@v1.0+protobuf',
      'application/com.github.proto-openapi.spec.v2.v1.0+protobuf',
    ]) {
      const protobuf = await get('/openapi/v2', { Accept: type });
      expect(protobuf.status).toBe(200);
      expect(protobuf.headers.get('content-type')).toBe(
        'application/com.github.proto-openapi.spec.v2.v1.0+protobuf',
      );
      const bytes = Buffer.from(await protobuf.arrayBuffer());
      // openapi_v2.Document: swagger = 1 is the first field.
      expect(bytes.subarray(0, 5).toString('latin1')).toBe('\x0a\x032.0');
      expect(bytes.includes(Buffer.from('io.k8s.api.core.v1.Pod'))).toBe(true);
    }
    expect((await get('/openapi/v2', { Accept: 'application/yaml' })).status).toBe(406);
  });

  it('an unknown group/version document is a 404 Status', async () => {
    const res = await get('/openapi/v3/apis/foo/v1');
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ kind: 'Status', code: 404 });
  });
});

describe('routing', () => {
  it("an unknown group or version is a 404 metav1.Status, like kube-apiserver's", async () => {
    for (const path of ['/apis/foo/v1', '/apis/foo', '/apis/apps/v2', '/api/v2']) {
      const res = await get(path);
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type')).toBe('application/json');
      expect(await res.json()).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'the server could not find the requested resource',
        reason: 'NotFound',
        details: {},
        code: 404,
      });
    }
  });

  it('resource paths and anything else are passed on to the next middleware', async () => {
    const before = server.passedOn.length;
    for (const path of [
      '/api/v1/pods',
      '/apis/apps/v1/namespaces/x/deployments',
      '/healthz',
      '/apis/foo/v1/bars',
    ]) {
      expect((await get(path)).status).toBe(404);
    }
    expect(server.passedOn.slice(before)).toEqual([
      'GET /api/v1/pods',
      'GET /apis/apps/v1/namespaces/x/deployments',
      'GET /healthz',
      'GET /apis/foo/v1/bars',
    ]);
  });

  it('discovery documents are read-only: other methods are 405 MethodNotAllowed', async () => {
    const res = await get('/api', {}, 'POST');
    expect(res.status).toBe(405);
    expect(await res.json()).toMatchObject({
      kind: 'Status',
      reason: 'MethodNotAllowed',
      code: 405,
    });
  });

  it('HEAD is answered with the headers of GET', async () => {
    const head = await get('/version', {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers.get('etag')).toBe((await get('/version')).headers.get('etag'));
  });
});
