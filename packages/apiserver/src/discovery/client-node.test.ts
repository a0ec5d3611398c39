import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDiscoveryServer, type DiscoveryServer } from './discovery-server.test-helper.js';

// @kubernetes/client-node 1.4 reads discovery through its generated, typed clients.

let server: DiscoveryServer;
let kc: k8s.KubeConfig;

beforeAll(async () => {
  server = await startDiscoveryServer();
  kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'listwatch', server: server.url, skipTLSVerify: true }],
    users: [{ name: 'anonymous' }],
    contexts: [{ name: 'listwatch', cluster: 'listwatch', user: 'anonymous' }],
    currentContext: 'listwatch',
  });
});

afterAll(async () => {
  await server.close();
});

describe('@kubernetes/client-node against discovery', () => {
  it('VersionApi.getCode reads the server version', async () => {
    const info = await kc.makeApiClient(k8s.VersionApi).getCode();
    expect(info).toMatchObject({ major: '1', minor: '32', gitVersion: 'v1.32.0-listwatch' });
    expect(info.platform).toMatch(/^\w+\/\w+$/);
  });

  it('CoreApi.getAPIVersions lists v1 and where the server is reached', async () => {
    const versions = await kc.makeApiClient(k8s.CoreApi).getAPIVersions();
    expect(versions.versions).toEqual(['v1']);
    expect(versions.serverAddressByClientCIDRs).toEqual([
      { clientCIDR: '0.0.0.0/0', serverAddress: server.url.replace('http://', '') },
    ]);
  });

  it('ApisApi.getAPIVersions lists every named group with its preferred version', async () => {
    const list = await kc.makeApiClient(k8s.ApisApi).getAPIVersions();
    expect(list.groups.map((g) => [g.name, g.preferredVersion?.groupVersion])).toEqual([
      ['apps', 'apps/v1'],
      ['events.k8s.io', 'events.k8s.io/v1'],
      ['authentication.k8s.io', 'authentication.k8s.io/v1'],
      ['authorization.k8s.io', 'authorization.k8s.io/v1'],
      ['autoscaling', 'autoscaling/v2'],
      ['batch', 'batch/v1'],
      ['networking.k8s.io', 'networking.k8s.io/v1'],
      ['policy', 'policy/v1'],
      ['rbac.authorization.k8s.io', 'rbac.authorization.k8s.io/v1'],
      ['coordination.k8s.io', 'coordination.k8s.io/v1'],
      ['discovery.k8s.io', 'discovery.k8s.io/v1'],
    ]);
  });

  it('the typed group and resource-list clients decode their documents', async () => {
    const apps = await kc.makeApiClient(k8s.AppsApi).getAPIGroup();
    expect(apps.versions).toEqual([{ groupVersion: 'apps/v1', version: 'v1' }]);
    const core = await kc.makeApiClient(k8s.CoreV1Api).getAPIResources();
    const pods = core.resources.find((r) => r.name === 'pods');
    expect(pods).toMatchObject({
      kind: 'Pod',
      namespaced: true,
      shortNames: ['po'],
      storageVersionHash: 'xPOwRZ+Yhw8=',
    });
    const appsV1 = await kc.makeApiClient(k8s.AppsV1Api).getAPIResources();
    expect(appsV1.resources.map((r) => r.name)).toEqual([
      'controllerrevisions',
      'daemonsets',
      'daemonsets/status',
      'deployments',
      'deployments/scale',
      'deployments/status',
      'replicasets',
      'replicasets/scale',
      'replicasets/status',
      'statefulsets',
      'statefulsets/scale',
      'statefulsets/status',
    ]);
  });
});
