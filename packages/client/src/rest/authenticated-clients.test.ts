import { ApiError, findBuiltinResource, silentLogger } from '@listwatch/api';
import { startApiServer, type RunningApiServer } from '@listwatch/apiserver';
import { MemoryStorage } from '@listwatch/storage';
import { TestCa, tempDir } from '@listwatch/testing';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeConfig } from '../clientcmd/kubeconfig.js';
import { RestClient } from './client.js';

// Our client as an authenticated user of an apiserver with --client-ca-file, --token-auth-file
// and --authorization-mode RBAC: credentials from a kubeconfig as client-go takes them, and the
// apiserver's 401/403 surfacing as ApiErrors with kube's words.

const namespaces = findBuiltinResource('namespaces')!;
const configmaps = findBuiltinResource('configmaps')!;

describe('our client with certificates and tokens against an RBAC apiserver', () => {
  const ca = new TestCa();
  const foreign = new TestCa();
  const dir = tempDir('listwatch-client-auth-');
  let server: RunningApiServer;
  const clients: RestClient[] = [];

  /** A client from a kubeconfig whose user is `user` (kubeconfig YAML of `users[].user`). */
  function clientAs(user: string): RestClient {
    const client = RestClient.fromKubeConfig(
      KubeConfig.fromString(`
current-context: t
clusters: [{name: c, cluster: {server: '${server.url}', certificate-authority: '${ca.certFile}'}}]
users: [{name: u, user: ${user}}]
contexts: [{name: t, context: {cluster: c, user: u}}]
`),
      { logger: silentLogger },
    );
    clients.push(client);
    return client;
  }
  const certUser = (cert: { certFile: string; keyFile: string }) =>
    `{client-certificate: '${cert.certFile}', client-key: '${cert.keyFile}'}`;

  beforeAll(async () => {
    const tokens = join(dir.path, 'tokens.csv');
    writeFileSync(tokens, 'alice-token,alice,2\n');
    const serving = ca.server();
    server = await startApiServer({
      storage: new MemoryStorage({ compactionInterval: 0 }),
      port: 0,
      logger: silentLogger,
      tlsCert: serving.cert,
      tlsKey: serving.key,
      clientCA: ca.cert,
      tokenAuthFile: tokens,
      anonymousAuth: false,
      authorizationMode: ['RBAC'],
    });
    const admin = clientAs(certUser(ca.client('admin', ['system:masters'])));
    await admin
      .resource(namespaces)
      .create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } });
    await admin
      .resource({
        group: 'rbac.authorization.k8s.io',
        version: 'v1',
        plural: 'rolebindings',
        namespaced: true,
      })
      .namespace('team')
      .create({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'alice-edit' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
        subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' }],
      });
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await server.close();
    ca.remove();
    foreign.remove();
    dir.remove();
  });

  it('a client certificate in system:masters lists and watches cluster-wide', async () => {
    const admin = clientAs(certUser(ca.client('root', ['system:masters'])));
    const list = await admin.resource(namespaces).list();
    expect(list.items.map((n) => n.metadata.name)).toContain('team');
    const watch = await admin
      .resource(configmaps)
      .watch({ resourceVersion: list.metadata.resourceVersion! });
    await admin
      .resource(configmaps)
      .namespace('team')
      .create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'seen-by-root' },
      });
    for await (const event of watch) {
      expect(event).toMatchObject({
        type: 'ADDED',
        object: { metadata: { name: 'seen-by-root' } },
      });
      break;
    }
  });

  it('a bearer token acts as its user: allowed in its namespace, 403 at the cluster scope in kube words', async () => {
    const alice = clientAs('{token: alice-token}');
    const own = alice.resource(configmaps).namespace('team');
    await own.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'alices' },
    });
    expect((await own.list()).items.map((c) => c.metadata.name)).toContain('alices');
    const error = await alice
      .resource(configmaps)
      .list()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toMatchObject({
      code: 403,
      reason: 'Forbidden',
      message:
        'configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" at the cluster scope',
    });
    const watchError = await alice
      .resource(configmaps)
      .watch({})
      .catch((e: unknown) => e);
    expect((watchError as ApiError).status.code).toBe(403);
  });

  it.each([
    ['a wrong token', () => '{token: not-a-token}'],
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
    ['no credentials (anonymous auth off)', () => '{}'],
  ])('%s is 401 Unauthorized, never served', async (_what, user) => {
    const error = await clientAs(user())
      .resource(namespaces)
      .list()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toMatchObject({ code: 401, reason: 'Unauthorized' });
  });
});
