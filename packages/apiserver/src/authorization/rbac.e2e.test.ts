import type { KubeObject, WatchEvent } from '@listwatch/api';
import { decodeWatchStream } from '@listwatch/codec';
import { KUBECTL } from '@listwatch/testing';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRbacCluster, type RbacCluster } from './rbac-cluster.test-helper.js';

// RBAC as kube-apiserver enforces it (plugin/pkg/auth/authorizer/rbac/rbac.go and
// pkg/apis/rbac/v1/evaluation_helpers.go), with the real kubectl as the client.

describe('an apiserver with --authorization-mode RBAC', () => {
  let cluster: RbacCluster;
  const as: RbacCluster['as'] = (...args) => cluster.as(...args);
  const send: RbacCluster['send'] = (...args) => cluster.send(...args);
  const kubectl: RbacCluster['kubectl'] = (...args) => cluster.kubectl(...args);

  beforeAll(async () => {
    cluster = await startRbacCluster();
    for (const ns of ['team', 'other'])
      expect(
        (await as('admin', 'POST', '/api/v1/namespaces', { metadata: { name: ns } })).status,
      ).toBe(201);
  });
  afterAll(() => cluster.close());

  const podReader = (namespace: string, name: string): KubeObject[] => [
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name, namespace },
      rules: [{ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods'] }],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name, namespace },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' }],
    },
  ];

  it("a user without bindings is refused with kube's words (kubectl shows them); system:masters may do anything", async () => {
    const refused = await kubectl('alice', 'get', 'pods', '-n', 'other');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(
      'Error from server (Forbidden): pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "other"',
    );
    const cluster = await as('alice', 'GET', '/apis/apps/v1/deployments');
    expect(cluster.status).toBe(403);
    expect(cluster.body.message).toBe(
      'deployments.apps is forbidden: User "alice" cannot list resource "deployments" in API group "apps" at the cluster scope',
    );
    const path = await as('alice', 'GET', '/metrics');
    expect(path.body.message).toBe('forbidden: User "alice" cannot get path "/metrics"');
    const admin = await kubectl('admin', 'get', 'namespaces', '-o', 'name');
    expect(admin.stdout).toContain('namespace/team');
  });

  it("a binding's roleRef cannot change: kubectl apply of another role is refused as kube refuses it (ValidateRoleBindingUpdate)", async () => {
    const binding = (role: string) =>
      JSON.stringify({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'frozen', namespace: 'team' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'carol' }],
      });
    const dir = cluster.dir;
    writeFileSync(`${dir}/frozen-view.json`, binding('view'));
    writeFileSync(`${dir}/frozen-edit.json`, binding('edit'));
    expect((await kubectl('admin', 'apply', '-f', `${dir}/frozen-view.json`)).code).toBe(0);
    const changed = await kubectl('admin', 'apply', '-f', `${dir}/frozen-edit.json`);
    expect(changed.code).not.toBe(0);
    expect(changed.stderr).toContain(
      'roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"ClusterRole", Name:"edit"}: cannot change roleRef',
    );
    const stored = await as(
      'admin',
      'GET',
      '/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings/frozen',
    );
    expect((stored.body as KubeObject & { roleRef: { name: string } }).roleRef.name).toBe('view');
  });

  it('anonymous requests may read health and version only (system:public-info-viewer)', async () => {
    expect((await as(undefined, 'GET', '/version')).status).toBe(200);
    expect((await send(undefined, 'GET', '/healthz')).statusCode).toBe(200);
    const pods = await as(undefined, 'GET', '/api/v1/pods');
    expect(pods.status).toBe(403);
    expect(pods.body.message).toContain('User "system:anonymous" cannot list resource "pods"');
  });

  it('a RoleBinding grants its Role in its namespace only, from the next request on', async () => {
    expect((await as('alice', 'GET', '/api/v1/namespaces/team/pods')).status).toBe(403);
    const [role, binding] = podReader('team', 'pod-reader');
    expect(
      (await as('admin', 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/team/roles', role))
        .status,
    ).toBe(201);
    expect(
      (
        await as(
          'admin',
          'POST',
          '/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings',
          binding,
        )
      ).status,
    ).toBe(201);
    await expect
      .poll(async () => (await as('alice', 'GET', '/api/v1/namespaces/team/pods')).status)
      .toBe(200);
    expect((await as('alice', 'GET', '/api/v1/namespaces/other/pods')).status).toBe(403);
    expect((await as('alice', 'GET', '/api/v1/pods')).status).toBe(403);
    expect((await as('alice', 'DELETE', '/api/v1/namespaces/team/pods/x')).status).toBe(403);
    const canI = await kubectl('alice', 'auth', 'can-i', 'list', 'pods', '-n', 'team');
    expect(canI.stdout.trim()).toBe('yes');
    const cannot = await kubectl('alice', 'auth', 'can-i', 'delete', 'pods', '-n', 'team');
    expect(cannot.stdout.trim()).toBe('no');
    const list = await kubectl('alice', 'auth', 'can-i', '--list', '-n', 'team');
    expect(list.stdout).toMatch(/^pods\s+\[\]\s+\[\]\s+\[get list watch\]$/m);
    const whoami = await kubectl(
      'alice',
      'auth',
      'whoami',
      '-o',
      'jsonpath={.status.userInfo.username}',
    );
    expect(whoami.stdout).toBe('alice');
  });

  it('a watch sees only its namespace, and ends when its RoleBinding is deleted; watching again is 403', async () => {
    const [role, binding] = podReader('team', 'watcher');
    await as('admin', 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/team/roles', role);
    await as(
      'admin',
      'POST',
      '/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings',
      binding,
    );
    await expect
      .poll(async () => (await as('alice', 'GET', '/api/v1/namespaces/team/pods')).status)
      .toBe(200);
    const res = await send('alice', 'GET', '/api/v1/namespaces/team/pods?watch=1');
    expect(res.statusCode).toBe(200);
    const events: WatchEvent[] = [];
    const ended = (async () => {
      for await (const e of decodeWatchStream(res as AsyncIterable<Uint8Array>, 'json'))
        events.push(e);
    })();
    const pod = (name: string) => ({
      metadata: { name },
      spec: { containers: [{ name: 'c', image: 'i' }] },
    });
    await as('admin', 'POST', '/api/v1/namespaces/other/pods', pod('elsewhere'));
    await as('admin', 'POST', '/api/v1/namespaces/team/pods', pod('here'));
    await expect
      .poll(() => events.map((e) => (e.object as KubeObject).metadata.name))
      .toEqual(['here']);
    // Every RoleBinding that grants it goes: the open watch ends at the next policy change.
    await as(
      'admin',
      'DELETE',
      '/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings/watcher',
    );
    await as(
      'admin',
      'DELETE',
      '/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings/pod-reader',
    );
    await ended;
    expect(events.map((e) => (e.object as KubeObject).metadata.name)).toEqual(['here']);
    expect((await as('alice', 'GET', '/api/v1/namespaces/team/pods?watch=1')).status).toBe(403);
  });

  it('impersonation needs the impersonate verb on the user and groups; the request then runs as them', async () => {
    const denied = await kubectl('alice', '--as', 'bob', 'get', 'pods', '-n', 'team');
    expect(denied.stderr).toContain(
      'users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope',
    );
    const asAlice = await kubectl('admin', '--as', 'alice', 'get', 'pods', '-n', 'other');
    expect(asAlice.stderr).toContain('User "alice" cannot list resource "pods"');
    const role = {
      metadata: { name: 'impersonate-bob' },
      rules: [
        { verbs: ['impersonate'], apiGroups: [''], resources: ['users'], resourceNames: ['bob'] },
      ],
    };
    const binding = {
      metadata: { name: 'alice-as-bob' },
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: 'impersonate-bob',
      },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' }],
    };
    await as('admin', 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', role);
    await as('admin', 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', binding);
    await expect
      .poll(
        async () =>
          (
            await kubectl(
              'alice',
              '--as',
              'bob',
              'auth',
              'whoami',
              '-o',
              'jsonpath={.status.userInfo.username}',
            )
          ).stdout,
      )
      .toBe('bob');
    const group = await kubectl('alice', '--as', 'bob', '--as-group', 'admins', 'get', 'pods');
    expect(group.stderr).toContain('groups "admins" is forbidden');
    const res = await send('admin', 'GET', '/api/v1/namespaces', undefined, {
      'impersonate-group': 'x',
    });
    expect(res.statusCode).toBe(400);
  });

  it('Impersonate-Extra-* needs impersonate on userextras/<key> named by each value (impersonation.go); the user then carries the extras', async () => {
    // kubectl 1.32 has no flag for extras: the kubeconfig's as-user-extra makes client-go send them.
    const config = join(cluster.dir, 'kubeconfig-alice-extra');
    writeFileSync(
      config,
      [
        'apiVersion: v1',
        'kind: Config',
        `clusters: [{name: c, cluster: {server: "${cluster.server.url}", certificate-authority: "${cluster.ca.certFile}"}}]`,
        `users: [{name: u, user: {token: ${cluster.token('alice')}, as: carol, as-user-extra: {scopes: [read, write], "example.com/team": [blue]}}}]`,
        'contexts: [{name: c, context: {cluster: c, user: u}}]',
        'current-context: c',
        '',
      ].join('\n'),
    );
    const run = (...args: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
        execFile(
          KUBECTL,
          args,
          { env: { PATH: process.env['PATH'] ?? '', HOME: cluster.dir, KUBECONFIG: config } },
          (err, stdout, stderr) => resolve({ code: err ? 1 : 0, stdout, stderr }),
        ),
      );
    const whoami = () => run('auth', 'whoami', '-o', 'json');
    // kubectl auth whoami and discovery hide a 403's message; get --raw shows it.
    const getPods = () => run('get', '--raw', '/api/v1/namespaces/team/pods');
    const rbac = '/apis/rbac.authorization.k8s.io/v1';
    const grant = (name: string, rules: unknown[]) => [
      as('admin', 'POST', `${rbac}/clusterroles`, { metadata: { name }, rules }),
      as('admin', 'POST', `${rbac}/clusterrolebindings`, {
        metadata: { name },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' }],
      }),
    ];
    await Promise.all(
      grant('impersonate-carol', [
        { verbs: ['impersonate'], apiGroups: [''], resources: ['users'], resourceNames: ['carol'] },
      ]),
    );
    await expect
      .poll(async () => (await getPods()).stderr)
      .toMatch(
        /Error from server \(Forbidden\): userextras.authentication.k8s.io "\w+" is forbidden: User "alice" cannot impersonate resource "userextras\/(scopes|example.com\/team)" in API group "authentication.k8s.io" at the cluster scope/,
      );
    await Promise.all(
      grant('impersonate-extras', [
        {
          verbs: ['impersonate'],
          apiGroups: ['authentication.k8s.io'],
          resources: ['userextras/scopes'],
          resourceNames: ['read'],
        },
        {
          verbs: ['impersonate'],
          apiGroups: ['authentication.k8s.io'],
          resources: ['userextras/example.com/team'],
        },
      ]),
    );
    // One value of the key is not enough: each value is checked.
    await expect
      .poll(async () => (await getPods()).stderr)
      .toContain('userextras.authentication.k8s.io "write" is forbidden');
    await as('admin', 'PUT', `${rbac}/clusterroles/impersonate-extras`, {
      metadata: { name: 'impersonate-extras' },
      rules: [
        {
          verbs: ['impersonate'],
          apiGroups: ['authentication.k8s.io'],
          resources: ['userextras/scopes', 'userextras/example.com/team'],
        },
      ],
    });
    await expect.poll(async () => (await whoami()).code).toBe(0);
    const review = JSON.parse((await whoami()).stdout) as {
      status: { userInfo: { username: string; extra?: Record<string, string[]> } };
    };
    expect(review.status.userInfo.username).toBe('carol');
    expect(review.status.userInfo.extra).toEqual({
      scopes: ['read', 'write'],
      'example.com/team': ['blue'],
    });
  });

  it('the aggregated view ClusterRole, bound to a group, reads workloads everywhere but not secrets', async () => {
    const binding = {
      metadata: { name: 'viewers' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'devs' }],
    };
    expect(
      (await as('admin', 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', binding))
        .status,
    ).toBe(201);
    await expect
      .poll(async () => (await as('bob', 'GET', '/apis/apps/v1/deployments')).status)
      .toBe(200);
    expect((await as('bob', 'GET', '/api/v1/namespaces/team/configmaps')).status).toBe(200);
    expect((await as('bob', 'GET', '/api/v1/secrets')).status).toBe(403);
    expect(
      (
        await as('bob', 'POST', '/api/v1/namespaces/team/configmaps', {
          metadata: { name: 'x' },
        })
      ).status,
    ).toBe(403);
    const roles = await kubectl('admin', 'get', 'clusterroles', '-o', 'name');
    expect(roles.stdout).toContain('clusterrole.rbac.authorization.k8s.io/cluster-admin');
  });

  it('a binding to a role that does not exist grants nothing and says so: the 403 and a SelfSubjectRulesReview name the missing role (rbac.go Authorize, selfsubjectrulesreview/rest.go)', async () => {
    const rbac = '/apis/rbac.authorization.k8s.io/v1/namespaces/dangling';
    expect(
      (await as('admin', 'POST', '/api/v1/namespaces', { metadata: { name: 'dangling' } })).status,
    ).toBe(201);
    const binding = {
      metadata: { name: 'to-missing' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'missing' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'bob' }],
    };
    expect((await as('admin', 'POST', `${rbac}/rolebindings`, binding)).status).toBe(201);
    const rulesReview = async () =>
      (
        await as('bob', 'POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', {
          spec: { namespace: 'dangling' },
        })
      ).body['status'] as { incomplete: boolean; evaluationError?: string };
    await expect
      .poll(async () => (await rulesReview()).evaluationError)
      .toBe('role.rbac.authorization.k8s.io "missing" not found');
    expect((await rulesReview()).incomplete).toBe(false);
    // bob's group reads pods everywhere (the view test above), never secrets.
    const refused = await kubectl('bob', 'get', 'secrets', '-n', 'dangling');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr.trim()).toBe(
      'Error from server (Forbidden): secrets is forbidden: User "bob" cannot list resource "secrets" in API group "" in the namespace "dangling": RBAC: role.rbac.authorization.k8s.io "missing" not found',
    );
    // Once the role exists the binding grants it, and nothing is left unresolved.
    const role = {
      metadata: { name: 'missing' },
      rules: [{ verbs: ['list'], apiGroups: [''], resources: ['secrets'] }],
    };
    expect((await as('admin', 'POST', `${rbac}/roles`, role)).status).toBe(201);
    await expect
      .poll(async () => (await as('bob', 'GET', '/api/v1/namespaces/dangling/secrets')).status)
      .toBe(200);
    expect((await rulesReview()).evaluationError).toBeUndefined();
  });
});
