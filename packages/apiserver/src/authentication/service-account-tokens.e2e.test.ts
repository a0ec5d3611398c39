import type { KubeObject } from '@listwatch/api';
import { eventually, tempDir } from '@listwatch/testing';
import fc from 'fast-check';
import { decodeJwt, decodeProtectedHeader, SignJWT, type JWTPayload } from 'jose';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  RBAC,
  rbacPath,
  role,
  startRbacCluster,
  type RbacCluster,
  type Reply,
} from '../authorization/rbac-cluster.test-helper.js';

// Service-account tokens end to end, as kube-apiserver serves them: the default ServiceAccount of
// every namespace (the serviceaccounts controller), serviceaccounts/token (TokenREST) from HTTP and
// `kubectl create token`, and the tokens authenticating HTTP and kubectl requests that RBAC then
// judges — until they expire, their account is deleted, or they were never ours.

const ISSUER = 'https://kubernetes.default.svc.cluster.local';
/** A second issuer whose tokens are still accepted, signed by a key being rotated out. */
const OLD_ISSUER = 'https://old-issuer.example';

const signing = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const old = generateKeyPairSync('rsa', { modulusLength: 2048 });
const foreign = generateKeyPairSync('ec', { namedCurve: 'P-256' });

const pem = (key: KeyObject, type: 'spki' | 'pkcs8') =>
  key.export({ type, format: 'pem' }) as string;

let cluster: RbacCluster;
const dir = tempDir('listwatch-sa-keys-');

/** Writes a PEM file into the test's key dir; returns its path. */
function keyFile(name: string, text: string): string {
  const path = join(dir.path, name);
  writeFileSync(path, text);
  return path;
}

beforeAll(async () => {
  cluster = await startRbacCluster({
    serviceAccountIssuers: [ISSUER, OLD_ISSUER],
    serviceAccountKeyFiles: [
      keyFile('sa.pub', pem(signing.publicKey, 'spki')),
      keyFile('old.pub', pem(old.publicKey, 'spki')),
    ],
    serviceAccountSigningKeyFile: keyFile('sa.key', pem(signing.privateKey, 'pkcs8')),
  });
  expect(
    (await cluster.as('admin', 'POST', '/api/v1/namespaces', { metadata: { name: 'team' } }))
      .status,
  ).toBe(201);
});
afterAll(async () => {
  await cluster.close();
  dir.remove();
});

/** An HTTPS request with `token` as its bearer token, read whole. */
async function withToken(token: string, method: string, path: string, body?: unknown) {
  const res = await cluster.send(undefined, method, path, body, {
    authorization: `Bearer ${token}`,
  });
  let text = '';
  for await (const chunk of res as AsyncIterable<Buffer>) text += chunk.toString();
  return { status: res.statusCode ?? 0, body: (text ? JSON.parse(text) : {}) as Reply['body'] };
}

/** Who the token is to the server (SelfSubjectReview, what `kubectl auth whoami` asks). */
async function whoami(token: string): Promise<{ status: number; username?: string }> {
  const reply = await withToken(
    token,
    'POST',
    '/apis/authentication.k8s.io/v1/selfsubjectreviews',
    {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'SelfSubjectReview',
    },
  );
  const status = reply.body['status'] as { userInfo?: { username?: string } } | undefined;
  return {
    status: reply.status,
    ...(status?.userInfo?.username ? { username: status.userInfo.username } : {}),
  };
}

async function createServiceAccount(namespace: string, name: string): Promise<KubeObject> {
  const reply = await cluster.as(
    'admin',
    'POST',
    `/api/v1/namespaces/${namespace}/serviceaccounts`,
    {
      metadata: { name },
    },
  );
  expect(reply.status).toBe(201);
  return reply.body;
}

/** POST serviceaccounts/{name}/token as admin. */
function requestToken(namespace: string, name: string, spec: Record<string, unknown> = {}) {
  return cluster.as(
    'admin',
    'POST',
    `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`,
    {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec,
    },
  );
}

async function tokenFor(namespace: string, name: string): Promise<string> {
  const reply = await requestToken(namespace, name);
  expect(reply.status).toBe(201);
  return (reply.body['status'] as { token: string }).token;
}

/** A token made by hand with kube's claims for `account`, `over` on top, signed by `key`. */
function forge(key: KeyObject, alg: string, account: KubeObject, over: JWTPayload = {}) {
  const now = Math.floor(Date.now() / 1000);
  const { namespace = '', name = '', uid = '' } = account.metadata;
  return new SignJWT({
    aud: [ISSUER],
    exp: now + 3600,
    iat: now,
    iss: ISSUER,
    'kubernetes.io': { namespace, serviceaccount: { name, uid } },
    nbf: now,
    sub: `system:serviceaccount:${namespace}:${name}`,
    ...over,
  })
    .setProtectedHeader({ alg })
    .sign(key);
}

describe('ServiceAccounts', () => {
  it('every namespace has a default one, a new namespace too, and a deleted one comes back', async () => {
    for (const ns of ['default', 'kube-system', 'kube-public', 'kube-node-lease'])
      expect(
        (await cluster.as('admin', 'GET', `/api/v1/namespaces/${ns}/serviceaccounts/default`))
          .status,
        ns,
      ).toBe(200);
    const path = '/api/v1/namespaces/team/serviceaccounts/default';
    const first = await eventually(async () => {
      const reply = await cluster.as('admin', 'GET', path);
      return reply.status === 200 ? reply.body : undefined;
    }, 'the default ServiceAccount of a new namespace');
    expect((await cluster.as('admin', 'DELETE', path)).status).toBe(200);
    const again = await eventually(async () => {
      const reply = await cluster.as('admin', 'GET', path);
      return reply.status === 200 ? reply.body : undefined;
    }, 'the default ServiceAccount made again');
    expect(again.metadata.uid).not.toBe(first.metadata.uid);
  });

  it('`kubectl create serviceaccount` (protobuf) makes one; `kubectl get sa` prints NAME, SECRETS, AGE', async () => {
    const created = await cluster.kubectl(
      'admin',
      'create',
      'serviceaccount',
      'builder',
      '-n',
      'team',
    );
    expect(created.stderr).toBe('');
    expect(created.stdout.trim()).toBe('serviceaccount/builder created');
    const list = await cluster.kubectl('admin', 'get', 'sa', '-n', 'team');
    const lines = list.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+SECRETS\s+AGE$/);
    expect(lines.some((line) => /^builder\s+0\s+\d+s$/.test(line))).toBe(true);
  });
});

describe('serviceaccounts/token', () => {
  it('POST answers 201 with the TokenRequest: audiences defaulted to the API audiences, an hour, and a token signed for the account', async () => {
    const account = await createServiceAccount('team', 'issued');
    const reply = await requestToken('team', 'issued');
    expect(reply.status).toBe(201);
    const { metadata, spec, status } = reply.body as KubeObject & {
      spec: Record<string, unknown>;
      status: { token: string; expirationTimestamp: string };
    };
    expect(reply.body).toMatchObject({
      kind: 'TokenRequest',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: { name: 'issued', namespace: 'team' },
    });
    expect(spec).toEqual({
      audiences: [ISSUER, OLD_ISSUER],
      expirationSeconds: 3600,
      boundObjectRef: null,
    });
    const created = Date.parse(metadata.creationTimestamp!);
    expect(Date.parse(status.expirationTimestamp) - created).toBe(3600_000);
    expect(decodeProtectedHeader(status.token).alg).toBe('ES256');
    const claims = decodeJwt(status.token);
    expect(claims).toMatchObject({
      iss: ISSUER,
      sub: 'system:serviceaccount:team:issued',
      aud: [ISSUER, OLD_ISSUER],
      'kubernetes.io': {
        namespace: 'team',
        serviceaccount: { name: 'issued', uid: account.metadata.uid },
      },
    });
    expect(claims.exp! - claims.iat!).toBe(3600);
    expect(claims.exp! * 1000).toBe(Date.parse(status.expirationTimestamp));
    expect(await whoami(status.token)).toEqual({
      status: 201,
      username: 'system:serviceaccount:team:issued',
    });
  });

  it("refuses what TokenREST refuses, in kube's words", async () => {
    await createServiceAccount('team', 'strict');
    const short = await requestToken('team', 'strict', { expirationSeconds: 60 });
    expect(short.status).toBe(422);
    expect(short.body.message).toBe(
      'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes',
    );
    const missing = await requestToken('team', 'nobody');
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe('serviceaccounts "nobody" not found');
    const renamed = await cluster.as(
      'admin',
      'POST',
      '/api/v1/namespaces/team/serviceaccounts/strict/token',
      {
        metadata: { name: 'other' },
        spec: {},
      },
    );
    expect(renamed.status).toBe(422);
    expect(renamed.body.message).toContain('must match the service account name if specified');
    const configMap = await requestToken('team', 'strict', {
      boundObjectRef: { kind: 'ConfigMap', apiVersion: 'v1', name: 'x' },
    });
    expect(configMap.status).toBe(400);
    expect(configMap.body.message).toBe('cannot bind token to object of type /v1, Kind=ConfigMap');
    const get = await cluster.as(
      'admin',
      'GET',
      '/api/v1/namespaces/team/serviceaccounts/strict/token',
    );
    expect(get.status).toBe(405);
  });

  it('a token bound to a Secret names it, and stops authenticating when the Secret is deleted', async () => {
    await createServiceAccount('team', 'bound');
    const secret = await cluster.as('admin', 'POST', '/api/v1/namespaces/team/secrets', {
      metadata: { name: 'binding' },
    });
    const wrongUid = await requestToken('team', 'bound', {
      boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 'binding', uid: 'not-it' },
    });
    expect(wrongUid.status).toBe(409);
    const reply = await requestToken('team', 'bound', {
      boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 'binding' },
    });
    expect(reply.status).toBe(201);
    const token = (reply.body['status'] as { token: string }).token;
    expect(decodeJwt(token)['kubernetes.io']).toMatchObject({
      secret: { name: 'binding', uid: secret.body.metadata.uid },
    });
    expect((await whoami(token)).status).toBe(201);
    await cluster.as('admin', 'DELETE', '/api/v1/namespaces/team/secrets/binding');
    await eventually(
      async () => ((await whoami(token)).status === 401 ? true : undefined),
      'the token of a deleted Secret refused',
    );
  });
});

describe('a service-account token', () => {
  it('from `kubectl create token` (protobuf) is the account to `kubectl auth whoami`, and may do what a RoleBinding to the account allows, nothing more', async () => {
    await cluster.kubectl('admin', 'create', 'serviceaccount', 'robot', '-n', 'team');
    const created = await cluster.kubectl('admin', 'create', 'token', 'robot', '-n', 'team');
    expect(created.stderr).toBe('');
    const token = created.stdout.trim();
    expect(decodeJwt(token).sub).toBe('system:serviceaccount:team:robot');
    const who = await cluster.kubectl('admin', '--token', token, 'auth', 'whoami', '-o', 'json');
    expect(JSON.parse(who.stdout)).toMatchObject({
      status: {
        userInfo: {
          username: 'system:serviceaccount:team:robot',
          groups: ['system:serviceaccounts', 'system:serviceaccounts:team', 'system:authenticated'],
        },
      },
    });
    const refused = await cluster.kubectl('admin', '--token', token, 'get', 'pods', '-n', 'team');
    expect(refused.stderr).toContain(
      'pods is forbidden: User "system:serviceaccount:team:robot" cannot list resource "pods" in API group "" in the namespace "team"',
    );
    const reader = role('pod-reader', 'team', [
      { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] },
    ]);
    expect((await cluster.as('admin', 'POST', rbacPath('roles', 'team'), reader)).status).toBe(201);
    const binding = {
      apiVersion: `${RBAC}/v1`,
      kind: 'RoleBinding',
      metadata: { name: 'robot-reads-pods', namespace: 'team' },
      roleRef: { apiGroup: RBAC, kind: 'Role', name: 'pod-reader' },
      subjects: [{ kind: 'ServiceAccount', name: 'robot', namespace: 'team' }],
    };
    expect(
      (await cluster.as('admin', 'POST', rbacPath('rolebindings', 'team'), binding)).status,
    ).toBe(201);
    const listed = await eventually(async () => {
      const run = await cluster.kubectl('admin', '--token', token, 'get', 'pods', '-n', 'team');
      return run.code === 0 ? run : undefined;
    }, 'the service account allowed to list pods');
    expect(listed.stderr).toBe('No resources found in team namespace.\n');
    expect((await withToken(token, 'GET', '/api/v1/namespaces/team/pods')).status).toBe(200);
    expect((await withToken(token, 'GET', '/api/v1/namespaces/default/pods')).status).toBe(403);
    expect((await withToken(token, 'GET', '/api/v1/namespaces/team/secrets')).status).toBe(403);
  });

  it('is 401 once its ServiceAccount is deleted (revoked), even when one of the same name is made again', async () => {
    await createServiceAccount('team', 'revoked');
    const token = await tokenFor('team', 'revoked');
    expect(await whoami(token)).toEqual({
      status: 201,
      username: 'system:serviceaccount:team:revoked',
    });
    expect(
      (await cluster.as('admin', 'DELETE', '/api/v1/namespaces/team/serviceaccounts/revoked'))
        .status,
    ).toBe(200);
    await eventually(
      async () => ((await whoami(token)).status === 401 ? true : undefined),
      'the token of a deleted ServiceAccount refused',
    );
    await createServiceAccount('team', 'revoked');
    expect((await whoami(token)).status).toBe(401);
    const kubectl = await cluster.kubectl('admin', '--token', token, 'get', 'pods', '-n', 'team');
    expect(kubectl.stderr).toContain('error: You must be logged in to the server (Unauthorized)');
  });

  it('from another issuer, expired, or signed by a key not configured is 401, where the same claims from a configured key and issuer authenticate', async () => {
    const account = await createServiceAccount('team', 'forged');
    const username = 'system:serviceaccount:team:forged';
    expect(await whoami(await forge(signing.privateKey, 'ES256', account))).toEqual({
      status: 201,
      username,
    });
    // The rotated-out key still verifies, for the second issuer.
    const rotated = await forge(old.privateKey, 'RS256', account, { iss: OLD_ISSUER });
    expect(await whoami(rotated)).toEqual({ status: 201, username });
    const now = Math.floor(Date.now() / 1000);
    const refused = {
      'another issuer': await forge(signing.privateKey, 'ES256', account, {
        iss: 'https://evil.example',
      }),
      expired: await forge(signing.privateKey, 'ES256', account, {
        iat: now - 7200,
        nbf: now - 7200,
        exp: now - 3600,
      }),
      'a foreign key': await forge(foreign.privateKey, 'ES256', account),
      'another audience': await forge(signing.privateKey, 'ES256', account, {
        aud: ['https://vault.example'],
      }),
    };
    for (const [what, token] of Object.entries(refused)) {
      const reply = await withToken(token, 'GET', '/api/v1/namespaces/team/pods');
      expect(reply.status, what).toBe(401);
      expect(reply.body).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
    }
    const expired = await cluster.kubectl('admin', '--token', refused.expired, 'get', 'pods');
    expect(expired.stderr).toContain('error: You must be logged in to the server (Unauthorized)');
  });

  it('garbled or random is 401, never a 5xx, and the server keeps serving (property)', async () => {
    const account = await createServiceAccount('team', 'fuzzed');
    const valid = await forge(signing.privateKey, 'ES256', account);
    expect((await whoami(valid)).status).toBe(201);
    const headerSafe = fc.stringMatching(/^[\x21-\x7e]{1,4}$/);
    const garbled = fc
      .tuple(fc.nat(valid.length - 1), headerSafe)
      .map(([at, text]) => valid.slice(0, at) + text + valid.slice(at + 1))
      .filter((token) => token !== valid);
    const jwtLike = fc
      .array(fc.base64String({ maxLength: 60 }), { minLength: 2, maxLength: 4 })
      .map((parts) => parts.join('.').replace(/=/g, ''))
      .filter((token) => token !== '');
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(garbled, jwtLike, fc.stringMatching(/^[\x21-\x7e]{1,200}$/)),
        async (token) => {
          const { status } = await whoami(token);
          // A change within the signature's unused bits may leave the same valid token.
          if (status === 201) expect(decodeJwt(token)).toEqual(decodeJwt(valid));
          else expect(status).toBe(401);
        },
      ),
      { numRuns: 80 },
    );
    expect((await whoami(valid)).status).toBe(201);
  });
});

describe('an apiserver without --service-account-signing-key-file', () => {
  let verifying: RbacCluster;
  beforeAll(async () => {
    verifying = await startRbacCluster({
      serviceAccountIssuers: [ISSUER],
      serviceAccountKeyFiles: [keyFile('verify.pub', pem(signing.publicKey, 'spki'))],
    });
  });
  afterAll(() => verifying.close());

  it('serves no serviceaccounts/token, and still authenticates tokens its key file verifies', async () => {
    const reply = await verifying.as(
      'admin',
      'POST',
      '/api/v1/namespaces/default/serviceaccounts/default/token',
      { spec: {} },
    );
    expect(reply.status).toBe(404);
    const account = (
      await verifying.as('admin', 'GET', '/api/v1/namespaces/default/serviceaccounts/default')
    ).body;
    const token = await forge(signing.privateKey, 'ES256', account);
    const res = await verifying.send(
      undefined,
      'GET',
      '/api/v1/namespaces/default/pods',
      undefined,
      {
        authorization: `Bearer ${token}`,
      },
    );
    res.resume();
    // Authenticated, and not allowed by RBAC: 403, not 401.
    expect(res.statusCode).toBe(403);
  });
});
