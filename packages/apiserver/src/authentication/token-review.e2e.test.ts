import { PYTHON, tempDir } from '@listwatch/testing';
import fc from 'fast-check';
import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  binding,
  rbacPath,
  startRbacCluster,
  type RbacCluster,
} from '../authorization/rbac-cluster.test-helper.js';

// TokenReview (authentication.k8s.io/v1 tokenreviews, pkg/registry/authentication/tokenreview/
// storage.go): a webhook authenticator's question "whose token is this?", answered with the
// server's own authenticators, for the review's audiences or else --api-audiences; create-only,
// cluster-scoped, guarded by RBAC like any resource.

const ISSUER = 'https://kubernetes.default.svc.cluster.local';
const PATH = '/apis/authentication.k8s.io/v1/tokenreviews';
const signing = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const dir = tempDir('listwatch-token-review-');
let cluster: RbacCluster;

interface TokenReview {
  kind?: string;
  spec?: { token?: string; audiences?: string[] };
  status?: {
    authenticated?: boolean;
    user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
    audiences?: string[];
  };
  message?: string;
}

const review = (token: string, audiences?: string[]) => ({
  apiVersion: 'authentication.k8s.io/v1',
  kind: 'TokenReview',
  spec: { token, ...(audiences ? { audiences } : {}) },
});

async function create(body: unknown, who: 'admin' | 'alice' = 'admin') {
  const reply = await cluster.as(who, 'POST', PATH, body);
  return { status: reply.status, body: reply.body as unknown as TokenReview };
}

/** A bound token of ServiceAccount team/robot (TokenRequest), for `audiences` if given. */
async function serviceAccountToken(audiences?: string[]): Promise<string> {
  const reply = await cluster.as(
    'admin',
    'POST',
    '/api/v1/namespaces/team/serviceaccounts/robot/token',
    {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: audiences ? { audiences } : {},
    },
  );
  expect(reply.status).toBe(201);
  return (reply.body['status'] as { token: string }).token;
}

beforeAll(async () => {
  const key = join(dir.path, 'sa.key');
  writeFileSync(key, signing.privateKey.export({ type: 'pkcs8', format: 'pem' }));
  cluster = await startRbacCluster({
    serviceAccountIssuers: [ISSUER],
    serviceAccountSigningKeyFile: key,
  });
  for (const path of ['/api/v1/namespaces', '/api/v1/namespaces/team/serviceaccounts'])
    expect(
      (
        await cluster.as('admin', 'POST', path, {
          metadata: { name: path.includes('team') ? 'robot' : 'team' },
        })
      ).status,
    ).toBe(201);
});
afterAll(async () => {
  await cluster.close();
  dir.remove();
});

describe('TokenReview', () => {
  it('a static token reviews as its user, in system:authenticated, for the API audiences', async () => {
    const { status, body } = await create(review(cluster.token('bob')));
    expect(status).toBe(201);
    expect(body.kind).toBe('TokenReview');
    expect(body.status).toEqual({
      authenticated: true,
      user: { username: 'bob', uid: '3', groups: ['devs', 'system:authenticated'] },
      audiences: [ISSUER],
    });
  });

  it('a service-account token reviews as its account with the audiences it matched; for another audience it does not authenticate', async () => {
    const token = await serviceAccountToken();
    const { body } = await create(review(token));
    expect(body.status?.authenticated).toBe(true);
    expect(body.status?.user?.username).toBe('system:serviceaccount:team:robot');
    expect(body.status?.user?.groups).toEqual([
      'system:serviceaccounts',
      'system:serviceaccounts:team',
      'system:authenticated',
    ]);
    expect(body.status?.user?.extra?.['authentication.kubernetes.io/credential-id']?.[0]).toMatch(
      /^JTI=/,
    );
    expect(body.status?.audiences).toEqual([ISSUER]);

    expect((await create(review(token, ['vault']))).body.status).toEqual({ user: {} });

    const vault = await serviceAccountToken(['vault']);
    expect((await create(review(vault))).body.status).toEqual({ user: {} });
    const forVault = (await create(review(vault, ['vault', 'other']))).body.status;
    expect(forVault?.authenticated).toBe(true);
    expect(forVault?.audiences).toEqual(['vault']);
  });

  it('an unknown token is not authenticated (201, not 401: the reviewer asked, it is not the caller)', async () => {
    const { status, body } = await create(review('not-a-token'));
    expect(status).toBe(201);
    expect(body.status).toEqual({ user: {} });
    expect(body.spec?.token).toBe('not-a-token');
  });

  it('a review without a token is 400 in kube words', async () => {
    const { status, body } = await create(review(''));
    expect(status).toBe(400);
    expect(body.message).toBe('token is required for TokenReview in authentication');
    expect((await create({ kind: 'TokenReview' })).status).toBe(400);
  });

  it('needs create on tokenreviews: 403 until bound to system:auth-delegator', async () => {
    const denied = await create(review(cluster.token('bob')), 'alice');
    expect(denied.status).toBe(403);
    expect(denied.body.message).toBe(
      'tokenreviews.authentication.k8s.io is forbidden: User "alice" cannot create resource "tokenreviews" in API group "authentication.k8s.io" at the cluster scope',
    );
    // kube's system:auth-delegator, the role a webhook authenticator is bound to.
    expect(
      (
        await cluster.as(
          'admin',
          'POST',
          rbacPath('clusterrolebindings'),
          binding('reviewer', undefined, { kind: 'ClusterRole', name: 'system:auth-delegator' }, [
            'alice',
          ]),
        )
      ).status,
    ).toBe(201);
    let allowed = await create(review(cluster.token('bob')), 'alice');
    for (let i = 0; i < 50 && allowed.status === 403; i++) {
      await new Promise((r) => setTimeout(r, 50));
      allowed = await create(review(cluster.token('bob')), 'alice');
    }
    expect(allowed.status).toBe(201);
    expect(allowed.body.status?.user?.username).toBe('bob');
  });

  it('kubectl create --raw and the Python client send one and read the answer', async () => {
    const file = join(dir.path, 'review.json');
    writeFileSync(file, JSON.stringify(review(cluster.token('bob'))));
    const kubectl = await cluster.kubectl('admin', 'create', '--raw', PATH, '-f', file);
    expect(kubectl.stderr).toBe('');
    expect((JSON.parse(kubectl.stdout) as TokenReview).status?.user?.username).toBe('bob');

    // cluster.kubectl left admin's kubeconfig (token, CA) for the Python client to load.
    const script = `
import sys
from kubernetes import client, config
config.load_kube_config(sys.argv[1])
api = client.AuthenticationV1Api()
body = client.V1TokenReview(spec=client.V1TokenReviewSpec(token=sys.argv[2]))
r = api.create_token_review(body)
print(r.status.authenticated, r.status.user.username, ",".join(r.status.user.groups))
r = api.create_token_review(client.V1TokenReview(spec=client.V1TokenReviewSpec(token="nope")))
print(r.status.authenticated)
`;
    const out = await new Promise<string>((resolve, reject) =>
      execFile(
        PYTHON,
        ['-c', script, join(cluster.dir, 'kubeconfig-admin'), cluster.token('bob')],
        { timeout: 60_000 },
        (err, stdout, stderr) => (err ? reject(new Error(stderr || err.message)) : resolve(stdout)),
      ),
    );
    expect(out.trim().split('\n')).toEqual(['True bob devs,system:authenticated', 'None']);
  });

  it('any body is answered 201 or 400, never a 5xx, and only a real credential authenticates', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.anything(),
          fc.record({ kind: fc.constant('TokenReview'), spec: fc.anything() }),
          fc.record({
            spec: fc.record({
              token: fc.oneof(fc.string(), fc.constantFrom(cluster.token('bob'), 'a.b.c')),
              audiences: fc.oneof(fc.array(fc.string()), fc.anything()),
            }),
          }),
        ),
        async (body) => {
          const { status, body: reply } = await create(body);
          expect([201, 400]).toContain(status);
          if (status === 201 && reply.status?.authenticated)
            expect(reply.status.user?.username).toBe('bob');
        },
      ),
      { numRuns: 60 },
    );
  });
});
