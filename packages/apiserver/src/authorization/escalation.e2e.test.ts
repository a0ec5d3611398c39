import { eventually } from '@listwatch/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  binding,
  RBAC,
  rbacPath,
  role,
  startRbacCluster,
  type RbacCluster,
} from './rbac-cluster.test-helper.js';

// RBAC escalation prevention as kube-apiserver enforces it (pkg/registry/rbac/escalation_check.go,
// validation/rule.go ConfirmNoEscalation and the policybased storages), with the real kubectl.

let cluster: RbacCluster;

const HELD_IN_TEAM = [
  // What alice may do in `team`: write roles and bindings, read pods.
  {
    verbs: ['create', 'get', 'update', 'patch'],
    apiGroups: [RBAC],
    resources: ['roles', 'rolebindings'],
  },
  { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] },
];

/** `kubectl create role secret-reader --verb=get --resource=secrets` as alice. */
const createSecretReader = (namespace: string) =>
  cluster.kubectl(
    'alice',
    'create',
    'role',
    'secret-reader',
    '--verb=get',
    '--resource=secrets',
    '-n',
    namespace,
  );

/** Grants alice more in `team` (as admin), and waits until the authorizer has it. */
async function grant(name: string, rules: Record<string, unknown>[], namespace = 'team') {
  expect(
    (await cluster.as('admin', 'POST', rbacPath('roles', namespace), role(name, namespace, rules)))
      .status,
  ).toBe(201);
  const b = binding(name, namespace, { kind: 'Role', name }, ['alice']);
  expect((await cluster.as('admin', 'POST', rbacPath('rolebindings', namespace), b)).status).toBe(
    201,
  );
  const probe = rules[0] as {
    verbs: string[];
    apiGroups: string[];
    resources: string[];
    resourceNames?: string[];
  };
  const named = probe.resourceNames?.[0] ? `/${probe.resourceNames[0]}` : '';
  const what = `${probe.resources[0]!}.${probe.apiGroups[0]!}${named}`;
  await eventually(async () => {
    const can = await cluster.kubectl(
      'alice',
      'auth',
      'can-i',
      probe.verbs[0]!,
      what,
      '-n',
      namespace,
    );
    return can.stdout.trim() === 'yes' ? true : undefined;
  }, `alice may ${probe.verbs[0]!} ${what}`);
}

beforeAll(async () => {
  cluster = await startRbacCluster();
  for (const ns of ['team', 'other'])
    expect(
      (await cluster.as('admin', 'POST', '/api/v1/namespaces', { metadata: { name: ns } })).status,
    ).toBe(201);
  await grant('rbac-writer', HELD_IN_TEAM);
});
afterAll(async () => {
  await cluster.close();
});

describe('creating and updating Roles and ClusterRoles', () => {
  it("`kubectl create role` with a permission alice lacks is refused in kube's words; one she holds is created", async () => {
    const refused = await createSecretReader('team');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(
      'roles.rbac.authorization.k8s.io "secret-reader" is forbidden: user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}',
    );
    expect(
      (await cluster.as('admin', 'GET', `${rbacPath('roles', 'team')}/secret-reader`)).status,
    ).toBe(404);
    const held = await cluster.kubectl(
      'alice',
      'create',
      'role',
      'pod-reader',
      '--verb=get,list',
      '--resource=pods',
      '-n',
      'team',
    );
    expect(held.stderr).toBe('');
    expect(held.stdout).toContain('role.rbac.authorization.k8s.io/pod-reader created');
  });

  it('the 403 lists every missing rule, compacted and sorted, as a Status with reason Forbidden', async () => {
    const res = await cluster.as(
      'alice',
      'POST',
      rbacPath('roles', 'team'),
      role('wide', 'team', [
        { verbs: ['get', 'delete'], apiGroups: [''], resources: ['pods', 'secrets'] },
        { verbs: ['get'], apiGroups: ['apps'], resources: ['deployments'], resourceNames: ['web'] },
      ]),
    );
    expect(res.status).toBe(403);
    expect(res.body.reason).toBe('Forbidden');
    expect(res.body.message).toBe(
      [
        'roles.rbac.authorization.k8s.io "wide" is forbidden: user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:',
        '{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}',
        '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "delete"]}',
        '{APIGroups:["apps"], Resources:["deployments"], ResourceNames:["web"], Verbs:["get"]}',
      ].join('\n'),
    );
    expect(res.body['details']).toEqual({ name: 'wide', group: RBAC, kind: 'roles' });
  });

  it('a rule without verbs grants nothing, so it escalates nothing: validation refuses it, 422 (BreakdownRule ranges over no verbs)', async () => {
    const res = await cluster.as(
      'alice',
      'POST',
      rbacPath('roles', 'team'),
      role('verbless', 'team', [{ apiGroups: [''], resources: ['secrets'] }]),
    );
    expect(res.status).toBe(422);
    expect(res.body['details']).toMatchObject({
      causes: [
        {
          reason: 'FieldValueRequired',
          field: 'rules[0].verbs',
          message: 'Required value: verbs must contain at least one value',
        },
      ],
    });
  });

  it('a permission the granted rules repeat is listed once (an aggregated role repeats verbs)', async () => {
    const res = await cluster.as(
      'alice',
      'POST',
      rbacPath('roles', 'team'),
      role('overlap', 'team', [
        { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['secrets'] },
        { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['secrets', 'configmaps'] },
        { verbs: ['get', 'list', 'watch', 'delete'], apiGroups: [''], resources: ['secrets'] },
      ]),
    );
    expect(res.status).toBe(403);
    expect(res.body.message).toBe(
      [
        'roles.rbac.authorization.k8s.io "overlap" is forbidden: user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:',
        '{APIGroups:[""], Resources:["configmaps"], Verbs:["get" "list" "watch"]}',
        '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list" "watch" "delete"]}',
      ].join('\n'),
    );
  });

  it('alice holds her rules in her namespace only: the same role elsewhere escalates', async () => {
    await grant(
      'writer-other',
      [{ verbs: ['create'], apiGroups: [RBAC], resources: ['roles'] }],
      'other',
    );
    const res = await cluster.as(
      'alice',
      'POST',
      rbacPath('roles', 'other'),
      role('r', 'other', [HELD_IN_TEAM[1]!]),
    );
    expect(res.status).toBe(403);
    expect(res.body.message).toContain(
      '{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}',
    );
  });

  it('an update or patch that adds a rule not held is refused; one that only changes finalizers is not', async () => {
    const path = `${rbacPath('roles', 'team')}/pod-reader`;
    const patch = await cluster.send(
      'alice',
      'PATCH',
      path,
      { rules: [{ verbs: ['*'], apiGroups: [''], resources: ['pods'] }] },
      {
        'content-type': 'application/merge-patch+json',
      },
    );
    expect(patch.statusCode).toBe(403);
    const current = (await cluster.as('alice', 'GET', path)).body;
    const put = await cluster.as('alice', 'PUT', path, {
      ...current,
      rules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }],
    });
    expect(put.status).toBe(403);
    expect(put.body.message).toContain('{APIGroups:[""], Resources:["configmaps"], Verbs:["get"]}');
    // IsOnlyMutatingGCFields: anyone who may update may add or drop finalizers.
    const gc = await cluster.as('alice', 'PUT', path, {
      ...current,
      metadata: { ...current.metadata, finalizers: ['example.com/keep'] },
    });
    expect(gc.status).toBe(200);
  });

  it('with `escalate` on roles alice may create any role (kubectl create role succeeds)', async () => {
    await grant('escalator', [{ verbs: ['escalate'], apiGroups: [RBAC], resources: ['roles'] }]);
    const created = await createSecretReader('team');
    expect(created.stderr).toBe('');
    expect(created.stdout).toContain('role.rbac.authorization.k8s.io/secret-reader created');
  });

  it('a refusal names the bindings alice holds that could not be resolved (ConfirmNoEscalation resolution errors)', async () => {
    expect(
      (await cluster.as('admin', 'POST', '/api/v1/namespaces', { metadata: { name: 'stale' } }))
        .status,
    ).toBe(201);
    await grant('stale-writer', HELD_IN_TEAM, 'stale');
    const dangling = binding('to-gone', 'stale', { kind: 'Role', name: 'gone' }, ['alice']);
    expect(
      (await cluster.as('admin', 'POST', rbacPath('rolebindings', 'stale'), dangling)).status,
    ).toBe(201);
    await eventually(async () => {
      const review = await cluster.as(
        'alice',
        'POST',
        '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews',
        { spec: { namespace: 'stale' } },
      );
      return (review.body['status'] as { evaluationError?: string }).evaluationError;
    }, 'the dangling binding is seen');
    const refused = await createSecretReader('stale');
    expect(refused.stderr.trim()).toBe(
      'Error from server (Forbidden): roles.rbac.authorization.k8s.io "secret-reader" is forbidden: user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}; resolution errors: [role.rbac.authorization.k8s.io "gone" not found]',
    );
  });

  it('system:masters may grant anything; a ClusterRole with an aggregationRule needs cluster-admin', async () => {
    const everything = role('everything', undefined, [
      { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
    ]);
    expect((await cluster.as('admin', 'POST', rbacPath('clusterroles'), everything)).status).toBe(
      201,
    );
    // bob may create ClusterRoles and holds nothing else: an empty one is fine, an aggregated not.
    const writer = role('clusterrole-writer', undefined, [
      { verbs: ['create'], apiGroups: [RBAC], resources: ['clusterroles'] },
    ]);
    await cluster.as('admin', 'POST', rbacPath('clusterroles'), writer);
    const b = binding(
      'clusterrole-writer',
      undefined,
      { kind: 'ClusterRole', name: 'clusterrole-writer' },
      ['bob'],
    );
    await cluster.as('admin', 'POST', rbacPath('clusterrolebindings'), b);
    await expect
      .poll(
        async () =>
          (await cluster.as('bob', 'POST', rbacPath('clusterroles'), role('empty', undefined, [])))
            .status,
      )
      .toBe(201);
    const aggregated = {
      ...role('gatherer', undefined, []),
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { gather: 'true' } }] },
    };
    const res = await cluster.as('bob', 'POST', rbacPath('clusterroles'), aggregated);
    expect(res.status).toBe(403);
    expect(res.body.message).toBe(
      'clusterroles.rbac.authorization.k8s.io "gatherer" is forbidden: must have cluster-admin privileges to use the aggregationRule',
    );
  });
});

describe('creating and updating RoleBindings and ClusterRoleBindings', () => {
  it('`kubectl create rolebinding` to a role with rules alice lacks is refused; with `bind` on that role it is allowed, and only for it', async () => {
    const refused = await cluster.kubectl(
      'alice',
      'create',
      'rolebinding',
      'bob-views',
      '--clusterrole=view',
      '--user=bob',
      '-n',
      'team',
    );
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(
      'rolebindings.rbac.authorization.k8s.io "bob-views" is forbidden: user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:',
    );
    expect(refused.stderr).toContain(
      '{APIGroups:[""], Resources:["configmaps"], Verbs:["get" "list" "watch"]}',
    );
    // `bind`, limited by resourceNames to the view ClusterRole, in this namespace.
    await grant('binder', [
      { verbs: ['bind'], apiGroups: [RBAC], resources: ['clusterroles'], resourceNames: ['view'] },
    ]);
    const bound = await cluster.kubectl(
      'alice',
      'create',
      'rolebinding',
      'bob-views',
      '--clusterrole=view',
      '--user=bob',
      '-n',
      'team',
    );
    expect(bound.stderr).toBe('');
    expect(bound.stdout).toContain('rolebinding.rbac.authorization.k8s.io/bob-views created');
    const edit = await cluster.kubectl(
      'alice',
      'create',
      'rolebinding',
      'bob-edits',
      '--clusterrole=edit',
      '--user=bob',
      '-n',
      'team',
    );
    expect(edit.stderr).toContain(
      'rolebindings.rbac.authorization.k8s.io "bob-edits" is forbidden',
    );
    // bob now reads configmaps in team (the binding took effect).
    await expect
      .poll(
        async () => (await cluster.as('bob', 'GET', '/api/v1/namespaces/team/configmaps')).status,
      )
      .toBe(200);
  });

  it('binding a role whose rules alice holds needs no bind; a missing role is 404', async () => {
    const ok = await cluster.as(
      'alice',
      'POST',
      rbacPath('rolebindings', 'team'),
      binding('pods-for-bob', 'team', { kind: 'Role', name: 'pod-reader' }, ['bob']),
    );
    expect(ok.status).toBe(201);
    const missing = await cluster.as(
      'alice',
      'POST',
      rbacPath('rolebindings', 'team'),
      binding('nothing', 'team', { kind: 'Role', name: 'no-such-role' }, ['bob']),
    );
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe('roles.rbac.authorization.k8s.io "no-such-role" not found');
  });

  it('changing a binding to a role with rules not held is refused; changing its subjects is not', async () => {
    const path = `${rbacPath('rolebindings', 'team')}/pods-for-bob`;
    const current = (await cluster.as('alice', 'GET', path)).body;
    const put = await cluster.as('alice', 'PUT', path, {
      ...current,
      roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'everything' },
    });
    expect(put.status).toBe(403);
    expect(put.body.message).toContain(
      'rolebindings.rbac.authorization.k8s.io "pods-for-bob" is forbidden: user "alice"',
    );
    const subjects = await cluster.as('alice', 'PUT', path, {
      ...current,
      subjects: [{ apiGroup: RBAC, kind: 'User', name: 'carol' }],
    });
    expect(subjects.status).toBe(200);
  });

  it('a ClusterRoleBinding needs the rules cluster-wide: holding them in a namespace is not enough', async () => {
    await cluster.as(
      'admin',
      'POST',
      rbacPath('clusterroles'),
      role('crb-writer', undefined, [
        { verbs: ['create'], apiGroups: [RBAC], resources: ['clusterrolebindings'] },
      ]),
    );
    await cluster.as(
      'admin',
      'POST',
      rbacPath('clusterrolebindings'),
      binding('crb-writer', undefined, { kind: 'ClusterRole', name: 'crb-writer' }, ['alice']),
    );
    await cluster.as(
      'admin',
      'POST',
      rbacPath('clusterroles'),
      role('pod-lister', undefined, [{ verbs: ['list'], apiGroups: [''], resources: ['pods'] }]),
    );
    const crb = binding('bob-lists', undefined, { kind: 'ClusterRole', name: 'pod-lister' }, [
      'bob',
    ]);
    await expect
      .poll(async () => {
        const res = await cluster.as('alice', 'POST', rbacPath('clusterrolebindings'), crb);
        return res.body.message ?? res.status;
      })
      .toBe(
        'clusterrolebindings.rbac.authorization.k8s.io "bob-lists" is forbidden: user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["pods"], Verbs:["list"]}',
      );
    // The same ClusterRole in a RoleBinding in team is within what she holds there.
    const rb = binding('bob-lists', 'team', { kind: 'ClusterRole', name: 'pod-lister' }, ['bob']);
    expect((await cluster.as('alice', 'POST', rbacPath('rolebindings', 'team'), rb)).status).toBe(
      201,
    );
  });
});
