import * as k8s from '@kubernetes/client-node';
import { TestCa } from '@listwatch/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRbacCluster, type RbacCluster } from '../authorization/rbac-cluster.test-helper.js';
import type { RunningApiServer } from '../server.js';

// @kubernetes/client-node 1.4 as an authenticated client: a client certificate or a bearer token
// from its KubeConfig, typed APIs and its Watch, against --client-ca-file, --token-auth-file and
// RBAC, as against kube-apiserver.

describe('@kubernetes/client-node with certificates and tokens against an RBAC apiserver', () => {
  const ca = new TestCa();
  const foreign = new TestCa();
  let cluster: RbacCluster;
  let server: RunningApiServer;

  function configAs(user: Omit<k8s.User, 'name'>): k8s.KubeConfig {
    const kc = new k8s.KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: server.url, caFile: ca.certFile }],
      users: [{ name: 'u', ...user }],
      contexts: [{ name: 't', cluster: 'c', user: 'u' }],
      currentContext: 't',
    });
    return kc;
  }
  const certUser = (cert: { certFile: string; keyFile: string }) => ({
    certFile: cert.certFile,
    keyFile: cert.keyFile,
  });
  /** The HTTP code of a failed typed call (client-node's ApiException). */
  const codeOf = (call: Promise<unknown>) =>
    call.then(
      () => 200,
      (err: unknown) => (err as { code?: number }).code,
    );

  beforeAll(async () => {
    cluster = await startRbacCluster({ clientCA: ca.cert, anonymousAuth: false }, ca);
    server = cluster.server;
    const admin = configAs(certUser(ca.client('admin', ['system:masters'])));
    await admin
      .makeApiClient(k8s.CoreV1Api)
      .createNamespace({ body: { metadata: { name: 'team' } } });
    await admin.makeApiClient(k8s.RbacAuthorizationV1Api).createNamespacedRoleBinding({
      namespace: 'team',
      body: {
        metadata: { name: 'alice-edit' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
        subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' }],
      },
    });
  });
  afterAll(async () => {
    await cluster.close();
    foreign.remove();
  });

  it('a client certificate in system:masters lists namespaces and watches ConfigMaps', async () => {
    const kc = configAs(certUser(ca.client('root', ['system:masters'])));
    const core = kc.makeApiClient(k8s.CoreV1Api);
    expect((await core.listNamespace()).items.map((n) => n.metadata?.name)).toContain('team');
    const seen = new Promise<string>((resolve, reject) => {
      void new k8s.Watch(kc)
        .watch(
          '/api/v1/configmaps',
          {},
          (type, object: k8s.V1ConfigMap) => {
            if (object.metadata?.name === 'by-root') resolve(type);
          },
          (err) => (err ? reject(err as Error) : undefined),
        )
        .then(async (req) => {
          await core.createNamespacedConfigMap({
            namespace: 'team',
            body: { metadata: { name: 'by-root' } },
          });
          await seen.finally(() => req.abort());
        });
    });
    expect(await seen).toBe('ADDED');
  });

  it('a bearer token acts as its user: its namespace allowed, the cluster scope 403', async () => {
    const core = configAs({ token: 'alice-token' }).makeApiClient(k8s.CoreV1Api);
    await core.createNamespacedConfigMap({
      namespace: 'team',
      body: { metadata: { name: 'alices' } },
    });
    expect(
      (await core.listNamespacedConfigMap({ namespace: 'team' })).items.length,
    ).toBeGreaterThan(0);
    const error = await core.listConfigMapForAllNamespaces().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 403 });
    expect(JSON.parse((error as { body: string }).body)).toMatchObject({
      reason: 'Forbidden',
      message:
        'configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" at the cluster scope',
    });
  });

  it.each([
    ['a wrong token', () => ({ token: 'not-a-token' })],
    [
      'an expired certificate',
      () =>
        certUser(
          ca.client('late', [], { notBefore: '20200101000000Z', notAfter: '20200102000000Z' }),
        ),
    ],
    [
      'a certificate from another CA',
      () => certUser(foreign.client('mallory', ['system:masters'])),
    ],
  ])('%s is 401', async (_what, user) => {
    expect(await codeOf(configAs(user()).makeApiClient(k8s.CoreV1Api).listNamespace())).toBe(401);
  });
});
