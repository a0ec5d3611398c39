import { PYTHON } from '@listwatch/testing';
import fc from 'fast-check';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  binding,
  rbacPath,
  role,
  startRbacCluster,
  type RbacCluster,
} from './rbac-cluster.test-helper.js';

// The review resources as kube-apiserver serves them: in discovery with the create verb alone,
// create-only (k8s.io/apiserver pkg/endpoints/installer.go registers only a POST on the
// collection: other methods there are 405, other paths 404), answered and never stored
// (pkg/registry/authentication/tokenreview, selfsubjectreview; pkg/registry/authorization/
// *accessreview, selfsubjectrulesreview). Driven by kubectl 1.32 and the Python client.

const AUTHN = 'authentication.k8s.io';
const AUTHZ = 'authorization.k8s.io';
const REVIEWS: readonly { group: string; plural: string; kind: string; namespaced: boolean }[] = [
  { group: AUTHN, plural: 'selfsubjectreviews', kind: 'SelfSubjectReview', namespaced: false },
  { group: AUTHN, plural: 'tokenreviews', kind: 'TokenReview', namespaced: false },
  {
    group: AUTHZ,
    plural: 'localsubjectaccessreviews',
    kind: 'LocalSubjectAccessReview',
    namespaced: true,
  },
  {
    group: AUTHZ,
    plural: 'selfsubjectaccessreviews',
    kind: 'SelfSubjectAccessReview',
    namespaced: false,
  },
  {
    group: AUTHZ,
    plural: 'selfsubjectrulesreviews',
    kind: 'SelfSubjectRulesReview',
    namespaced: false,
  },
  { group: AUTHZ, plural: 'subjectaccessreviews', kind: 'SubjectAccessReview', namespaced: false },
];

/** The collection path of a review (in namespace `team` when namespaced). */
function reviewPath(review: (typeof REVIEWS)[number]): string {
  return `/apis/${review.group}/v1${review.namespaced ? '/namespaces/team' : ''}/${review.plural}`;
}

let cluster: RbacCluster;

/** Writes a manifest into the cluster's directory for `kubectl create -f`. */
function manifest(name: string, text: string): string {
  const file = join(cluster.dir, name);
  writeFileSync(file, text);
  return file;
}

interface Review {
  kind?: string;
  metadata?: Record<string, unknown>;
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

beforeAll(async () => {
  cluster = await startRbacCluster();
  const created = async (path: string, body: unknown) =>
    expect((await cluster.as('admin', 'POST', path, body)).status).toBe(201);
  await created('/api/v1/namespaces', { metadata: { name: 'team' } });
  // bob (group devs) may read pods in team; alice holds nothing.
  await created(
    rbacPath('roles', 'team'),
    role('pod-reader', 'team', [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }]),
  );
  await created(
    rbacPath('rolebindings', 'team'),
    binding('bob-reads', 'team', { kind: 'Role', name: 'pod-reader' }, ['bob']),
  );
  // RBAC changes reach the authorizer through its informers: wait until bob's grant is seen.
  for (let i = 0; i < 100; i++) {
    const { stdout } = await cluster.kubectl('bob', 'auth', 'can-i', 'list', 'pods', '-n', 'team');
    if (stdout.trim() === 'yes') break;
    await new Promise((r) => setTimeout(r, 50));
  }
});
afterAll(async () => {
  await cluster.close();
});

describe('the review resources in discovery', () => {
  it('kubectl api-resources lists each review with the create verb alone', async () => {
    const { code, stdout, stderr } = await cluster.kubectl(
      'admin',
      'api-resources',
      '-o',
      'wide',
      '--no-headers',
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const rows = stdout
      .trim()
      .split('\n')
      .map((line) => line.trim().split(/\s+/))
      .filter((row) => row[0]?.endsWith('reviews'));
    expect(rows).toEqual(
      REVIEWS.map((r) => [r.plural, `${r.group}/v1`, String(r.namespaced), r.kind, 'create']),
    );
  });

  it('legacy discovery lists them with verbs ["create"] and no storageVersionHash, as kube', async () => {
    for (const group of [AUTHN, AUTHZ]) {
      const { body } = await cluster.as('admin', 'GET', `/apis/${group}/v1`);
      const resources = body['resources'] as Record<string, unknown>[];
      const expected = REVIEWS.filter((r) => r.group === group).map((r) => ({
        name: r.plural,
        singularName: r.kind.toLowerCase(),
        namespaced: r.namespaced,
        kind: r.kind,
        verbs: ['create'],
      }));
      expect(resources).toEqual(expected);
    }
  });

  it('aggregated discovery lists them with verbs ["create"] and no subresources', async () => {
    const res = await cluster.send('admin', 'GET', '/apis', undefined, {
      accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
    });
    let text = '';
    for await (const chunk of res as AsyncIterable<Buffer>) text += chunk.toString();
    const list = JSON.parse(text) as {
      items: { metadata: { name: string }; versions: { resources: unknown[] }[] }[];
    };
    for (const group of [AUTHN, AUTHZ]) {
      const found = list.items.find((g) => g.metadata.name === group);
      expect(found?.versions[0]?.resources).toEqual(
        REVIEWS.filter((r) => r.group === group).map((r) => ({
          resource: r.plural,
          responseKind: { group, version: 'v1', kind: r.kind },
          scope: r.namespaced ? 'Namespaced' : 'Cluster',
          singularResource: r.kind.toLowerCase(),
          verbs: ['create'],
        })),
      );
    }
  });
});

describe('the review resources in OpenAPI', () => {
  it('each review has one path, its collection, with a POST alone; kubectl explain reads its schema', async () => {
    const { body } = await cluster.as('admin', 'GET', `/openapi/v3/apis/${AUTHN}/v1`);
    const paths = body['paths'] as Record<string, Record<string, unknown>>;
    expect(Object.keys(paths).sort()).toEqual([
      `/apis/${AUTHN}/v1/`,
      `/apis/${AUTHN}/v1/selfsubjectreviews`,
      `/apis/${AUTHN}/v1/tokenreviews`,
    ]);
    const operations = Object.keys(paths[`/apis/${AUTHN}/v1/tokenreviews`] ?? {}).filter(
      (key) => key !== 'parameters',
    );
    expect(operations).toEqual(['post']);
    const schemas = Object.keys(
      (body['components'] as { schemas: Record<string, unknown> }).schemas,
    );
    expect(schemas).toContain('io.k8s.api.authentication.v1.TokenReview');
    expect(schemas).not.toContain('io.k8s.api.authentication.v1.TokenReviewList');
    const explain = await cluster.kubectl('admin', 'explain', 'tokenreviews.spec');
    expect(explain.stderr).toBe('');
    expect(explain.stdout).toMatch(/^KIND:\s+TokenReview$/m);
    expect(explain.stdout).toMatch(/^\s+token\s+<string>/m);
  });
});

describe('kubectl create -f of a review', () => {
  it('a TokenReview comes back with the spec it was sent and the status the server filled', async () => {
    const file = manifest(
      'tokenreview.yaml',
      `apiVersion: authentication.k8s.io/v1\nkind: TokenReview\nspec:\n  token: ${cluster.token('bob')}\n`,
    );
    const { code, stdout, stderr } = await cluster.kubectl(
      'admin',
      'create',
      '-f',
      file,
      '-o',
      'yaml',
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const review = parse(stdout) as Review;
    expect(review.kind).toBe('TokenReview');
    expect(review.spec).toEqual({ token: cluster.token('bob') });
    expect(review.status).toEqual({
      authenticated: true,
      user: { username: 'bob', uid: '3', groups: ['devs', 'system:authenticated'] },
    });
  });

  it('a SubjectAccessReview answers per RBAC: bob may list pods in team, alice may not', async () => {
    const sar = (user: string) =>
      manifest(
        `sar-${user}.yaml`,
        [
          'apiVersion: authorization.k8s.io/v1',
          'kind: SubjectAccessReview',
          'spec:',
          `  user: ${user}`,
          '  resourceAttributes: {namespace: team, verb: list, resource: pods}',
          '',
        ].join('\n'),
      );
    const bob = await cluster.kubectl('admin', 'create', '-f', sar('bob'), '-o', 'yaml');
    expect(bob.stderr).toBe('');
    const allowed = parse(bob.stdout) as Review;
    expect(allowed.kind).toBe('SubjectAccessReview');
    expect(allowed.spec).toEqual({
      user: 'bob',
      resourceAttributes: { namespace: 'team', verb: 'list', resource: 'pods' },
    });
    expect(allowed.status?.['allowed']).toBe(true);
    expect(allowed.status?.['reason']).toBe(
      'RBAC: allowed by RoleBinding "bob-reads/team" of Role "pod-reader" to User "bob"',
    );
    const alice = parse(
      (await cluster.kubectl('admin', 'create', '-f', sar('alice'), '-o', 'yaml')).stdout,
    ) as Review;
    expect(alice.status).toEqual({ allowed: false });
  });

  it('a LocalSubjectAccessReview is asked in the namespace of its URL', async () => {
    const file = manifest(
      'lsar.yaml',
      [
        'apiVersion: authorization.k8s.io/v1',
        'kind: LocalSubjectAccessReview',
        'spec:',
        '  user: bob',
        '  resourceAttributes: {namespace: team, verb: get, resource: pods}',
        '',
      ].join('\n'),
    );
    const { stdout, stderr } = await cluster.kubectl(
      'admin',
      'create',
      '-n',
      'team',
      '-f',
      file,
      '-o',
      'yaml',
    );
    expect(stderr).toBe('');
    const review = parse(stdout) as Review;
    expect(review.metadata?.['namespace']).toBe('team');
    expect(review.status?.['allowed']).toBe(true);
    // Another namespace in its spec than its URL's is refused (ValidateLocalSubjectAccessReview).
    const other = await cluster.kubectl('admin', 'create', '-n', 'default', '-f', file);
    expect(other.stderr).toContain('must match metadata.namespace');
  });

  it('kubectl get of a review is refused as kube refuses it: MethodNotAllowed', async () => {
    const { code, stderr } = await cluster.kubectl('admin', 'get', 'tokenreviews');
    expect(code).not.toBe(0);
    expect(stderr.trim()).toBe(
      'Error from server (MethodNotAllowed): the server does not allow this method on the requested resource',
    );
  });
});

describe('kubectl auth', () => {
  it('can-i (a SelfSubjectAccessReview) says yes or no per RBAC', async () => {
    const can = (who: 'bob' | 'alice' | 'admin', ...args: string[]) =>
      cluster.kubectl(who, 'auth', 'can-i', ...args);
    expect((await can('bob', 'list', 'pods', '-n', 'team')).stdout.trim()).toBe('yes');
    expect((await can('bob', 'get', 'pods/mine', '-n', 'team')).stdout.trim()).toBe('yes');
    const denied = await can('bob', 'delete', 'pods', '-n', 'team');
    expect(denied.stdout.trim()).toBe('no');
    expect(denied.code).toBe(1);
    expect((await can('bob', 'list', 'pods', '-n', 'default')).stdout.trim()).toBe('no');
    expect((await can('alice', 'list', 'pods', '-n', 'team')).stdout.trim()).toBe('no');
    expect((await can('admin', 'create', 'deployments.apps', '-A')).stdout.trim()).toBe('yes');
    // Non-resource URLs: discovery is open to every authenticated user (system:discovery).
    expect((await can('alice', 'get', '/apis')).stdout.trim()).toBe('yes');
    expect((await can('alice', 'get', '/metrics')).stdout.trim()).toBe('no');
  });

  it('can-i --list (a SelfSubjectRulesReview) lists the rules the caller holds in the namespace', async () => {
    const { code, stdout, stderr } = await cluster.kubectl(
      'bob',
      'auth',
      'can-i',
      '--list',
      '-n',
      'team',
      '--no-headers',
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const rows = stdout
      .trim()
      .split('\n')
      .map((line) => line.trim().split(/\s{2,}/));
    expect(rows).toContainEqual(['pods', '[]', '[]', '[get list]']);
    // What every authenticated user holds (system:basic-user, system:discovery).
    expect(rows).toContainEqual([
      'selfsubjectaccessreviews.authorization.k8s.io',
      '[]',
      '[]',
      '[create]',
    ]);
    expect(rows.some((row) => row[0] === 'pods' && row[3]?.includes('delete'))).toBe(false);
    const alice = await cluster.kubectl('alice', 'auth', 'can-i', '--list', '-n', 'team');
    expect(alice.stdout).not.toMatch(/^pods /m);
  });

  it('whoami (a SelfSubjectReview) prints the caller', async () => {
    const { code, stdout, stderr } = await cluster.kubectl('bob', 'auth', 'whoami', '-o', 'yaml');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const review = parse(stdout) as Review;
    expect(review.kind).toBe('SelfSubjectReview');
    expect(review.status).toEqual({
      userInfo: { username: 'bob', uid: '3', groups: ['devs', 'system:authenticated'] },
    });
    const table = await cluster.kubectl('alice', 'auth', 'whoami');
    expect(table.stdout).toMatch(/^Username\s+alice$/m);
  });
});

describe('the decision of a chain of authorizers', () => {
  it('no opinion from any is neither allowed nor denied; an authorizer that denies makes it denied, with its reason', async () => {
    const denying = await startRbacCluster({ authorizationMode: ['RBAC', 'AlwaysDeny'] });
    try {
      const sar = {
        spec: { user: 'alice', resourceAttributes: { verb: 'get', resource: 'pods' } },
      };
      const path = `/apis/${AUTHZ}/v1/subjectaccessreviews`;
      expect((await denying.as('admin', 'POST', path, sar)).body['status']).toEqual({
        allowed: false,
        denied: true,
        reason: 'Everything is forbidden.',
      });
      expect((await cluster.as('admin', 'POST', path, sar)).body['status']).toEqual({
        allowed: false,
      });
      // A request no authorizer allows is still refused.
      expect((await cluster.as('alice', 'GET', '/api/v1/namespaces/team/pods')).status).toBe(403);
    } finally {
      await denying.close();
    }
  });
});

describe('the Python client', () => {
  it('creates a TokenReview and the access and rules reviews and reads their status', async () => {
    // Leaves admin's kubeconfig (token, CA) in the cluster's directory.
    await cluster.kubectl('admin', 'version', '--client');
    const script = `
import sys
from kubernetes import client, config
config.load_kube_config(sys.argv[1])
authn = client.AuthenticationV1Api()
r = authn.create_token_review(client.V1TokenReview(spec=client.V1TokenReviewSpec(token=sys.argv[2])))
print(r.kind, r.status.authenticated, r.status.user.username)
authz = client.AuthorizationV1Api()
spec = client.V1SubjectAccessReviewSpec(user="bob", resource_attributes=client.V1ResourceAttributes(namespace="team", verb="list", resource="pods"))
r = authz.create_subject_access_review(client.V1SubjectAccessReview(spec=spec))
print(r.kind, r.status.allowed)
attributes = client.V1ResourceAttributes(namespace="team", verb="delete", resource="pods")
r = authz.create_self_subject_access_review(client.V1SelfSubjectAccessReview(spec=client.V1SelfSubjectAccessReviewSpec(resource_attributes=attributes)))
print(r.kind, r.status.allowed)
r = authz.create_self_subject_rules_review(client.V1SelfSubjectRulesReview(spec=client.V1SelfSubjectRulesReviewSpec(namespace="team")))
print(r.kind, r.status.incomplete, [rule.verbs for rule in r.status.resource_rules][0])
`;
    const out = await new Promise<string>((resolve, reject) =>
      execFile(
        PYTHON,
        ['-c', script, join(cluster.dir, 'kubeconfig-admin'), cluster.token('bob')],
        { timeout: 60_000 },
        (err, stdout, stderr) => (err ? reject(new Error(stderr || err.message)) : resolve(stdout)),
      ),
    );
    expect(out.trim().split('\n')).toEqual([
      'TokenReview True bob',
      'SubjectAccessReview True',
      'SelfSubjectAccessReview True',
      "SelfSubjectRulesReview False ['*']",
    ]);
  });
});

describe('create-only and never stored', () => {
  it('every method but POST on a review collection is 405 MethodNotAllowed; item and watch paths are 404', async () => {
    for (const review of REVIEWS) {
      const path = reviewPath(review);
      for (const [method, target] of [
        ['GET', path],
        ['GET', `${path}?watch=true`],
        ['PUT', path],
        ['PATCH', path],
        ['DELETE', path],
      ] as const) {
        const { status, body } = await cluster.as('admin', method, target);
        expect({ target: `${method} ${target}`, status, body }).toEqual({
          target: `${method} ${target}`,
          status: 405,
          body: {
            kind: 'Status',
            apiVersion: 'v1',
            metadata: {},
            status: 'Failure',
            message: 'the server does not allow this method on the requested resource',
            reason: 'MethodNotAllowed',
            details: {},
            code: 405,
          },
        });
      }
      const watchPath = path.replace('/v1/', '/v1/watch/');
      for (const [method, target] of [
        ['GET', `${path}/x`],
        ['DELETE', `${path}/x`],
        ['POST', `${path}/x`],
        ['GET', watchPath],
      ] as const) {
        const { status, body } = await cluster.as('admin', method, target);
        expect({ target, status, body }).toEqual({
          target,
          status: 404,
          body: {
            kind: 'Status',
            apiVersion: 'v1',
            metadata: {},
            status: 'Failure',
            message: 'the server could not find the requested resource',
            reason: 'NotFound',
            details: {},
            code: 404,
          },
        });
      }
    }
    // A namespaced review has no path outside a namespace (it does not list).
    const cluserWide = await cluster.as(
      'admin',
      'POST',
      `/apis/${AUTHZ}/v1/localsubjectaccessreviews`,
      {},
    );
    expect(cluserWide.status).toBe(404);
  });

  it('a review is answered, not stored: nothing under its prefix in storage', async () => {
    const body = {
      apiVersion: `${AUTHZ}/v1`,
      kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes: { verb: 'get', resource: 'pods' } },
    };
    expect(
      (await cluster.as('admin', 'POST', `/apis/${AUTHZ}/v1/selfsubjectaccessreviews`, body))
        .status,
    ).toBe(201);
    const { storage } = cluster.server;
    const { keys } = await storage.list(`${storage.prefix}/`);
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.filter((key) => key.includes('review'))).toEqual([]);
  });
});

describe('bad input', () => {
  const post = (path: string, body: unknown) => cluster.as('admin', 'POST', path, body);

  it('a review without a spec is a 400 (TokenReview, SelfSubjectRulesReview) or a 422 (access reviews) in kube words', async () => {
    const token = await post(`/apis/${AUTHN}/v1/tokenreviews`, {
      apiVersion: `${AUTHN}/v1`,
      kind: 'TokenReview',
    });
    expect([token.status, token.body.message]).toEqual([
      400,
      'token is required for TokenReview in authentication',
    ]);
    const rules = await post(`/apis/${AUTHZ}/v1/selfsubjectrulesreviews`, {
      kind: 'SelfSubjectRulesReview',
    });
    expect([rules.status, rules.body.message]).toEqual([400, 'no namespace on request']);
    const sar = await post(`/apis/${AUTHZ}/v1/subjectaccessreviews`, {
      kind: 'SubjectAccessReview',
    });
    expect(sar.status).toBe(422);
    expect(sar.body.reason).toBe('Invalid');
    expect(sar.body.message).toBe(
      '.authorization.k8s.io "" is invalid: [spec.resourceAttributes: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified, spec.user: Invalid value: "": at least one of user or group must be specified]',
    );
    const ssar = await post(`/apis/${AUTHZ}/v1/selfsubjectaccessreviews`, {
      metadata: { name: 'named' },
      spec: { resourceAttributes: { verb: 'get' }, nonResourceAttributes: { verb: 'get' } },
    });
    expect(ssar.status).toBe(422);
    expect(
      (ssar.body['details'] as { causes: { field: string }[] }).causes.map((c) => c.field),
    ).toEqual(['spec.nonResourceAttributes', 'metadata']);
  });

  it("an access review's field or label selector is a rawSelector or requirements, never both, its requirements checked as kube's (authorization validation.go)", async () => {
    const review = (resourceAttributes: Record<string, unknown>) =>
      post(`/apis/${AUTHZ}/v1/subjectaccessreviews`, {
        spec: {
          user: 'bob',
          resourceAttributes: { verb: 'list', resource: 'pods', ...resourceAttributes },
        },
      });
    const neither = await review({ fieldSelector: {} });
    expect([neither.status, neither.body.message]).toEqual([
      422,
      '.authorization.k8s.io "" is invalid: spec.resourceAttributes.fieldSelector.requirements: Required value: when spec.resourceAttributes.fieldSelector is specified, requirements or rawSelector is required',
    ]);
    const both = await review({ fieldSelector: { rawSelector: 'foo', requirements: [{}] } });
    expect(
      (both.body['details'] as { causes: { field: string; message: string }[] }).causes,
    ).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: 'spec.resourceAttributes.fieldSelector.rawSelector',
        message: 'Invalid value: "foo": may not specified at the same time as requirements',
      },
      {
        reason: 'FieldValueRequired',
        field: 'spec.resourceAttributes.fieldSelector.requirements[0].key',
        message: 'Required value: must be specified',
      },
    ]);
    const labels = await review({
      labelSelector: { requirements: [{ key: 'app', operator: 'In', values: [] }] },
    });
    expect(labels.body.message).toBe(
      ".authorization.k8s.io \"\" is invalid: spec.resourceAttributes.labelSelector.requirements[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
    );
    // Operators this server does not know are let through, for newer clients; the spec is echoed.
    const newer = await review({
      labelSelector: { requirements: [{ key: 'app', operator: 'Gt', values: ['1'] }] },
      fieldSelector: { rawSelector: 'spec.nodeName=node-1' },
    });
    expect(newer.status).toBe(201);
    expect((newer.body['spec'] as { resourceAttributes: unknown }).resourceAttributes).toEqual({
      verb: 'list',
      resource: 'pods',
      labelSelector: { requirements: [{ key: 'app', operator: 'Gt', values: ['1'] }] },
      fieldSelector: { rawSelector: 'spec.nodeName=node-1' },
    });
  });

  it('a body of the wrong kind or version is a 400', async () => {
    const kind = await post(`/apis/${AUTHN}/v1/tokenreviews`, {
      apiVersion: `${AUTHN}/v1`,
      kind: 'SubjectAccessReview',
      spec: { token: 'x' },
    });
    expect(kind.status).toBe(400);
    const version = await post(`/apis/${AUTHZ}/v1/subjectaccessreviews`, {
      apiVersion: 'v1',
      kind: 'Pod',
    });
    expect([version.status, version.body.message]).toEqual([
      400,
      'the API version in the data (v1) does not match the expected API version (authorization.k8s.io/v1)',
    ]);
    const typed = await post(`/apis/${AUTHZ}/v1/subjectaccessreviews`, { spec: { user: 7 } });
    expect(typed.status).toBe(400);
  });

  it('any body to any review is answered 201, 400 or 422, never a 5xx', async () => {
    const attributes = fc.record(
      {
        namespace: fc.constantFrom('team', 'default', ''),
        verb: fc.constantFrom('get', 'list', 'delete', '*'),
        group: fc.constantFrom('', 'apps', AUTHZ),
        resource: fc.constantFrom('pods', 'deployments', 'selfsubjectaccessreviews'),
        subresource: fc.constantFrom('', 'status'),
        name: fc.string(),
      },
      { requiredKeys: [] },
    );
    const spec = fc.record(
      {
        user: fc.constantFrom('bob', 'alice', ''),
        groups: fc.array(fc.constantFrom('devs', 'system:masters', 'x')),
        resourceAttributes: attributes,
        nonResourceAttributes: fc.record({ verb: fc.string(), path: fc.string() }),
        token: fc.oneof(fc.string(), fc.constant(cluster.token('bob'))),
        namespace: fc.constantFrom('team', ''),
        audiences: fc.array(fc.string()),
      },
      { requiredKeys: [] },
    );
    const body = fc.oneof(
      fc.anything(),
      fc.record({ spec: fc.anything(), metadata: fc.anything() }, { requiredKeys: [] }),
      fc.record(
        {
          spec,
          metadata: fc.record({ name: fc.string(), namespace: fc.string() }, { requiredKeys: [] }),
        },
        { requiredKeys: ['spec'] },
      ),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...REVIEWS), body, async (review, sent) => {
        const { status, body: reply } = await post(reviewPath(review), sent);
        expect([201, 400, 422], JSON.stringify(reply)).toContain(status);
        if (status === 201) expect(reply.kind).toBe(review.kind);
      }),
      { numRuns: 150 },
    );
  });

  it('a SubjectAccessReview of a user answers what the SelfSubjectAccessReview of that user answers', async () => {
    const attributes = fc.record({
      namespace: fc.constantFrom('team', 'default', ''),
      verb: fc.constantFrom('get', 'list', 'delete', 'create'),
      group: fc.constantFrom('', AUTHZ),
      resource: fc.constantFrom('pods', 'selfsubjectaccessreviews', 'secrets'),
    });
    const users = { bob: ['devs', 'system:authenticated'], alice: ['system:authenticated'] };
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('bob', 'alice' as const),
        attributes,
        async (user, resourceAttributes) => {
          const sar = await post(`/apis/${AUTHZ}/v1/subjectaccessreviews`, {
            spec: { user, groups: users[user], resourceAttributes },
          });
          const self = await cluster.as(
            user,
            'POST',
            `/apis/${AUTHZ}/v1/selfsubjectaccessreviews`,
            {
              spec: { resourceAttributes },
            },
          );
          expect([sar.status, self.status]).toEqual([201, 201]);
          expect(sar.body['status']).toEqual(self.body['status']);
        },
      ),
      { numRuns: 40 },
    );
  });
});
