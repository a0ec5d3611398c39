import fc from 'fast-check';
import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RBAC, startRbacCluster, type RbacCluster } from './rbac-cluster.test-helper.js';

// RBAC objects as a hostile or careless administrator writes them: every Role, ClusterRole and
// binding is stored or refused with a 4xx, and what is stored grants exactly what RBAC's rules
// say (plugin/pkg/auth/authorizer/rbac/rbac.go RuleAllows), as the real requests and
// SelfSubjectAccessReview both answer.

const VERBS = ['get', 'list', 'create', 'delete', 'watch', '*', 'GET', ''];
const RESOURCES = ['configmaps', 'secrets', 'pods', '*', 'configmaps/status', 'Configmaps'];
const GROUPS = ['', '*', 'apps', 'v1'];
const NAMESPACES = ['fuzz-a', 'fuzz-b'];

interface Rule {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  resourceNames?: string[];
}

const rule: fc.Arbitrary<Rule> = fc.record(
  {
    verbs: fc.subarray(VERBS, { minLength: 1 }),
    apiGroups: fc.subarray(GROUPS, { minLength: 1 }),
    resources: fc.subarray(RESOURCES, { minLength: 1 }),
    resourceNames: fc.subarray(['x', 'y']),
  },
  { requiredKeys: ['verbs', 'apiGroups', 'resources'] },
);

/** A grant: rules in a Role of one namespace, or a ClusterRole bound there or cluster-wide. */
const grant = fc.record({
  rules: fc.array(rule, { minLength: 1, maxLength: 3 }),
  scope: fc.constantFrom<'role' | 'clusterrole-in-ns' | 'cluster'>(
    'role',
    'clusterrole-in-ns',
    'cluster',
  ),
  namespace: fc.constantFrom(...NAMESPACES),
});

const request = fc.record({
  verb: fc.constantFrom('get', 'list', 'create', 'delete'),
  resource: fc.constantFrom('configmaps', 'secrets'),
  namespace: fc.constantFrom(...NAMESPACES, undefined),
});

/** RuleAllows for a core-group request without a name (list, create) or named `x` (get, delete). */
function allows(rules: readonly Rule[], verb: string, resource: string, named: boolean): boolean {
  return rules.some(
    (r) =>
      (r.verbs.includes(verb) || r.verbs.includes('*')) &&
      (r.apiGroups.includes('') || r.apiGroups.includes('*')) &&
      (r.resources.includes(resource) || r.resources.includes('*')) &&
      (!r.resourceNames?.length || (named && r.resourceNames.includes('x'))),
  );
}

async function status(res: Promise<IncomingMessage>): Promise<number> {
  const response = await res;
  response.resume();
  return response.statusCode ?? 0;
}

describe('RBAC objects, fuzzed', () => {
  let cluster: RbacCluster;
  let run = 0;
  beforeAll(async () => {
    cluster = await startRbacCluster();
    for (const ns of NAMESPACES) {
      await cluster.as('admin', 'POST', '/api/v1/namespaces', { metadata: { name: ns } });
      for (const resource of ['configmaps', 'secrets'])
        await cluster.as('admin', 'POST', `/api/v1/namespaces/${ns}/${resource}`, {
          metadata: { name: 'x' },
        });
    }
  });
  afterAll(() => cluster.close());

  it('any Role, ClusterRole or binding body is stored or refused with a 4xx, never a 5xx', async () => {
    const path = fc.constantFrom(
      `/apis/${RBAC}/v1/namespaces/fuzz-a/roles`,
      `/apis/${RBAC}/v1/clusterroles`,
      `/apis/${RBAC}/v1/namespaces/fuzz-a/rolebindings`,
      `/apis/${RBAC}/v1/clusterrolebindings`,
    );
    const body = fc.record(
      {
        metadata: fc.record({ generateName: fc.constant('fuzz-') }),
        rules: fc.oneof(fc.array(rule), fc.jsonValue()),
        roleRef: fc.oneof(
          fc.record({
            apiGroup: fc.constantFrom(RBAC, '', 'x'),
            kind: fc.constantFrom('Role', 'ClusterRole', 'Pod'),
            name: fc.constantFrom('view', 'edit', 'none', ''),
          }),
          fc.jsonValue(),
        ),
        subjects: fc.oneof(
          fc.array(
            fc.record({
              kind: fc.constantFrom('User', 'Group', 'ServiceAccount', 'Robot'),
              name: fc.string(),
              namespace: fc.constantFrom('fuzz-a', ''),
            }),
          ),
          fc.jsonValue(),
        ),
        aggregationRule: fc.option(fc.jsonValue(), { nil: undefined }),
      },
      { requiredKeys: ['metadata'] },
    );
    await fc.assert(
      fc.asyncProperty(path, body, async (p, b) => {
        const code = await status(cluster.send('admin', 'POST', p, b));
        expect(code === 201 || (code >= 400 && code < 500)).toBe(true);
      }),
      { numRuns: 60 },
    );
  });

  it('a user granted random rules is allowed exactly what RuleAllows says, by requests and SelfSubjectAccessReview alike', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(grant, { minLength: 1, maxLength: 3 }),
        fc.array(request, { minLength: 1, maxLength: 4 }),
        async (grants, requests) => {
          const user = `fuzz-user-${run++}`;
          const subject = { kind: 'User', apiGroup: RBAC, name: user };
          for (const [i, g] of grants.entries()) {
            const name = `${user}-${i}`;
            const roleKind = g.scope === 'role' ? 'Role' : 'ClusterRole';
            const rolePath =
              g.scope === 'role'
                ? `/apis/${RBAC}/v1/namespaces/${g.namespace}/roles`
                : `/apis/${RBAC}/v1/clusterroles`;
            const made = await cluster.as('admin', 'POST', rolePath, {
              metadata: { name },
              rules: g.rules,
            });
            // Rules kube refuses (an empty verb) grant nothing: the role is not stored.
            if (made.status !== 201) {
              expect(made.status).toBe(422);
              g.rules = [];
              continue;
            }
            const bindingPath =
              g.scope === 'cluster'
                ? `/apis/${RBAC}/v1/clusterrolebindings`
                : `/apis/${RBAC}/v1/namespaces/${g.namespace}/rolebindings`;
            const bound = await cluster.as('admin', 'POST', bindingPath, {
              metadata: { name },
              roleRef: { apiGroup: RBAC, kind: roleKind, name },
              subjects: [subject],
            });
            expect(bound.status).toBe(201);
          }
          for (const r of requests) {
            const named = r.verb === 'get' || r.verb === 'delete';
            const expected = grants.some(
              (g) =>
                (g.scope === 'cluster' || g.namespace === r.namespace) &&
                allows(g.rules, r.verb, r.resource, named),
            );
            const review = await cluster.as(
              'admin',
              'POST',
              '/apis/authorization.k8s.io/v1/subjectaccessreviews',
              {
                spec: {
                  user,
                  resourceAttributes: {
                    verb: r.verb,
                    resource: r.resource,
                    ...(r.namespace ? { namespace: r.namespace } : {}),
                    ...(named ? { name: 'x' } : {}),
                  },
                },
              },
            );
            expect(
              (review.body as { status?: { allowed?: boolean } }).status?.allowed ?? false,
            ).toBe(expected);
            // The request itself, impersonated (deletes and cluster-wide reads of one name are
            // asked of the review only).
            if (r.verb === 'delete' || (!r.namespace && r.verb !== 'list')) continue;
            const base = r.namespace
              ? `/api/v1/namespaces/${r.namespace}/${r.resource}`
              : `/api/v1/${r.resource}`;
            const [method, path, body]: [string, string, unknown] =
              r.verb === 'get'
                ? ['GET', `${base}/x`, undefined]
                : r.verb === 'list'
                  ? ['GET', base, undefined]
                  : ['POST', base, { metadata: { generateName: 'f-' } }];
            const code = await status(
              cluster.send('admin', method, path, body, { 'Impersonate-User': user }),
            );
            expect(code === 403).toBe(!expected);
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});
