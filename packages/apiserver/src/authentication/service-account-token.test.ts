import type { KubeObject } from '@listwatch/api';
import { tempDir } from '@listwatch/testing';
import fc from 'fast-check';
import { decodeJwt, decodeProtectedHeader, SignJWT, type JWTPayload } from 'jose';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseArgs } from '../cli.js';
import { keyId, readPublicKeys, readSigningKey } from './service-account-keys.js';
import { serviceAccountTokensOf } from './service-account-options.js';
import {
  ServiceAccountTokenAuthenticator,
  ServiceAccountTokenGenerator,
  type ObjectGetter,
} from './service-account-token.js';

// Service-account tokens as kube-apiserver makes and checks them (pkg/serviceaccount claims.go
// and jwt.go; client-go util/keyutil), without a server: keys, claims, and every way a token
// stops authenticating.

const ISSUER = 'https://kubernetes.default.svc';

const pem = (key: KeyObject, type: 'spki' | 'pkcs8' | 'pkcs1' | 'sec1') =>
  key.export({ type, format: 'pem' }) as string;

function ecKeys(namedCurve = 'P-256') {
  return generateKeyPairSync('ec', { namedCurve });
}
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = ecKeys();

const SA: KubeObject = {
  apiVersion: 'v1',
  kind: 'ServiceAccount',
  metadata: { name: 'robot', namespace: 'team', uid: 'sa-uid' },
};

/** A getter over a fixed set of objects, by `resource/namespace/name`. */
function getterOf(objects: Record<string, KubeObject>): ObjectGetter {
  return (resource, namespace, name) =>
    Promise.resolve(objects[`${resource}/${namespace ?? ''}/${name}`]);
}

function setup(
  objects: Record<string, KubeObject> = { 'serviceaccounts/team/robot': SA },
  signing = ec.privateKey,
) {
  const key = readSigningKey(pem(signing, 'pkcs8'), 'sa.key');
  const generator = new ServiceAccountTokenGenerator(ISSUER, key);
  const authenticator = new ServiceAccountTokenAuthenticator({
    issuers: [ISSUER],
    keys: [key.publicKey],
    audiences: [ISSUER],
    getter: getterOf(objects),
  });
  const issue = (over: { expirationSeconds?: number; audiences?: string[]; now?: Date } = {}) =>
    generator.generate({
      namespace: 'team',
      serviceAccount: { name: 'robot', uid: 'sa-uid' },
      audiences: over.audiences ?? [ISSUER],
      now: over.now ?? new Date(),
      expirationSeconds: over.expirationSeconds ?? 3600,
      bound: {},
    });
  return { key, generator, authenticator, issue };
}

/** A token signed with `key` by hand: claims as kube writes them, with `over` on top. */
function forge(key: KeyObject, alg: string, over: JWTPayload = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({
    aud: [ISSUER],
    exp: now + 3600,
    iat: now,
    iss: ISSUER,
    'kubernetes.io': { namespace: 'team', serviceaccount: { name: 'robot', uid: 'sa-uid' } },
    nbf: now,
    sub: 'system:serviceaccount:team:robot',
    ...over,
  })
    .setProtectedHeader({ alg })
    .sign(key);
}

describe('service-account keys', () => {
  it('a key file holds any number of RSA and ECDSA keys, public or private, in any PEM form; other blocks are skipped', () => {
    const text = [
      '-----BEGIN EC PARAMETERS-----\nBggqhkjOPQMBBw==\n-----END EC PARAMETERS-----',
      pem(ec.privateKey, 'sec1'),
      pem(rsa.publicKey, 'pkcs1'),
      pem(rsa.privateKey, 'pkcs8'),
      pem(ecKeys('P-384').publicKey, 'spki'),
    ].join('\n');
    const keys = readPublicKeys(text, 'keys.pem');
    expect(keys.map((k) => k.key.asymmetricKeyType)).toEqual(['ec', 'rsa', 'rsa', 'ec']);
    expect(keys[0]!.kid).toBe(keyId(ec.publicKey));
    expect(keys[1]!.kid).toBe(keys[2]!.kid);
    const ed = generateKeyPairSync('ed25519');
    expect(() => readPublicKeys(pem(ed.publicKey, 'spki'), 'ed.pem')).toThrow(
      'error reading public key file ed.pem: data does not contain any valid RSA or ECDSA public keys',
    );
    expect(() => readPublicKeys('', 'empty.pem')).toThrow(/does not contain any valid/);
  });

  it('the signing key picks the algorithm as JWTTokenGenerator: RS256 for RSA, ES256/384/512 by curve; the kid is the SHA-256 of its public key', () => {
    expect(readSigningKey(pem(rsa.privateKey, 'pkcs1'), 'k').alg).toBe('RS256');
    expect(readSigningKey(pem(ec.privateKey, 'sec1'), 'k').alg).toBe('ES256');
    expect(readSigningKey(pem(ecKeys('P-384').privateKey, 'pkcs8'), 'k').alg).toBe('ES384');
    expect(readSigningKey(pem(ecKeys('P-521').privateKey, 'pkcs8'), 'k').alg).toBe('ES512');
    expect(() => readSigningKey(pem(ecKeys('secp256k1').privateKey, 'pkcs8'), 'k')).toThrow(
      'unknown private key curve, must be 256, 384, or 521',
    );
    expect(() =>
      readSigningKey(pem(generateKeyPairSync('ed25519').privateKey, 'pkcs8'), 'k'),
    ).toThrow(/unknown private key type ed25519/);
    expect(() => readSigningKey(pem(rsa.publicKey, 'spki'), 'pub.pem')).toThrow(
      'failed to parse service-account-issuer-key-file pub.pem',
    );
    const key = readSigningKey(pem(rsa.privateKey, 'pkcs8'), 'k');
    expect(key.kid).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(key.kid).toBe(keyId(rsa.publicKey));
  });
});

describe('issued tokens', () => {
  it("carry kube's claims: iss, sub, aud, iat = nbf, exp, jti and the service account in kubernetes.io", async () => {
    const { issue, key } = setup();
    const now = new Date('2026-03-01T00:00:00Z');
    const token = await issue({ now, expirationSeconds: 600, audiences: ['a', 'b'] });
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'ES256', kid: key.kid });
    const claims = decodeJwt(token);
    expect(claims).toEqual({
      aud: ['a', 'b'],
      exp: 1772323800,
      iat: 1772323200,
      iss: ISSUER,
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
      'kubernetes.io': { namespace: 'team', serviceaccount: { name: 'robot', uid: 'sa-uid' } },
      nbf: 1772323200,
      sub: 'system:serviceaccount:team:robot',
    });
    expect(Object.keys(claims)).toEqual(Object.keys(claims).sort());
  });

  it('authenticate as the service account, in its groups, with the token ID as credential-id; RSA keys sign RS256', async () => {
    for (const signing of [ec.privateKey, rsa.privateKey]) {
      const { issue, authenticator } = setup(undefined, signing);
      const token = await issue();
      const user = await authenticator.authenticate(token);
      expect(user).toEqual({
        name: 'system:serviceaccount:team:robot',
        uid: 'sa-uid',
        groups: ['system:serviceaccounts', 'system:serviceaccounts:team'],
        extra: { 'authentication.kubernetes.io/credential-id': [`JTI=${decodeJwt(token).jti}`] },
      });
    }
  });

  it('a pod-bound token names the pod and its node, and stops working with the pod', async () => {
    const pod: KubeObject = { metadata: { name: 'p', namespace: 'team', uid: 'pod-uid' } };
    const objects: Record<string, KubeObject> = {
      'serviceaccounts/team/robot': SA,
      'pods/team/p': pod,
    };
    const { generator, authenticator } = setup(objects);
    const token = await generator.generate({
      namespace: 'team',
      serviceAccount: { name: 'robot', uid: 'sa-uid' },
      audiences: [ISSUER],
      now: new Date(),
      expirationSeconds: 3600,
      bound: { pod: { name: 'p', uid: 'pod-uid' }, node: { name: 'n1', uid: '' } },
    });
    expect(decodeJwt(token)['kubernetes.io']).toEqual({
      namespace: 'team',
      node: { name: 'n1' },
      pod: { name: 'p', uid: 'pod-uid' },
      serviceaccount: { name: 'robot', uid: 'sa-uid' },
    });
    expect((await authenticator.authenticate(token))?.extra).toMatchObject({
      'authentication.kubernetes.io/pod-name': ['p'],
      'authentication.kubernetes.io/pod-uid': ['pod-uid'],
      'authentication.kubernetes.io/node-name': ['n1'],
    });
    objects['pods/team/p'] = { metadata: { ...pod.metadata, uid: 'another-pod' } };
    expect(await authenticator.authenticate(token)).toBeUndefined();
    delete objects['pods/team/p'];
    expect(await authenticator.authenticate(token)).toBeUndefined();
  });
});

describe('a token does not authenticate', () => {
  const { key, authenticator } = setup();
  const now = Math.floor(Date.now() / 1000);

  it.each<[string, JWTPayload]>([
    ['from another issuer', { iss: 'https://elsewhere' }],
    ['expired more than a minute ago', { exp: now - 61 }],
    ['not valid for another minute', { nbf: now + 120 }],
    ['issued in the future', { iat: now + 120 }],
    ['for another audience', { aud: ['https://other'] }],
    ['without an audience', { aud: [] }],
    ['without its kubernetes.io claims', { 'kubernetes.io': undefined }],
    [
      'of another uid (the account was recreated)',
      {
        'kubernetes.io': { namespace: 'team', serviceaccount: { name: 'robot', uid: 'old' } },
      },
    ],
    [
      'of an account that does not exist',
      {
        'kubernetes.io': { namespace: 'team', serviceaccount: { name: 'gone', uid: 'sa-uid' } },
      },
    ],
  ])('%s, while the same token otherwise does', async (_what, over) => {
    expect(await authenticator.authenticate(await forge(key.key, 'ES256'))).toBeDefined();
    expect(await authenticator.authenticate(await forge(key.key, 'ES256', over))).toBeUndefined();
  });

  it('within the minute of leeway after exp it still does (go-jose DefaultLeeway)', async () => {
    expect(
      await authenticator.authenticate(await forge(key.key, 'ES256', { exp: now - 30 })),
    ).toBeDefined();
  });

  it('signed by a key not configured, or unsigned', async () => {
    expect(
      await authenticator.authenticate(await forge(ecKeys().privateKey, 'ES256')),
    ).toBeUndefined();
    expect(await authenticator.authenticate(await forge(rsa.privateKey, 'RS256'))).toBeUndefined();
    const [header, payload] = (await forge(key.key, 'ES256')).split('.');
    const none = Buffer.from('{"alg":"none"}').toString('base64url');
    expect(await authenticator.authenticate(`${none}.${payload}.`)).toBeUndefined();
    expect(await authenticator.authenticate(`${header}.${payload}.`)).toBeUndefined();
  });

  it('once its account is being deleted for more than the leeway', async () => {
    const deleting = (ago: number): KubeObject => ({
      ...SA,
      metadata: {
        ...SA.metadata,
        deletionTimestamp: new Date(Date.now() - ago * 1000).toISOString(),
      },
    });
    const token = await forge(key.key, 'ES256');
    const recent = setup({ 'serviceaccounts/team/robot': deleting(10) }, ec.privateKey);
    expect(await recent.authenticator.authenticate(token)).toBeDefined();
    const old = setup({ 'serviceaccounts/team/robot': deleting(120) }, ec.privateKey);
    expect(await old.authenticator.authenticate(token)).toBeUndefined();
  });

  it('when its account cannot be looked up (storage failing): 401, not an error', async () => {
    const failing = new ServiceAccountTokenAuthenticator({
      issuers: [ISSUER],
      keys: [key.publicKey],
      audiences: [ISSUER],
      getter: () => Promise.reject(new Error('etcd is down')),
    });
    expect(await failing.authenticate(await forge(key.key, 'ES256'))).toBeUndefined();
  });

  it('whatever garbled or random text it is, never throwing (property)', async () => {
    const valid = await forge(key.key, 'ES256');
    expect(await authenticator.authenticate(valid)).toBeDefined();
    const garbled = fc
      .tuple(fc.nat(valid.length - 1), fc.string({ minLength: 1, maxLength: 4 }))
      .map(([at, text]) => valid.slice(0, at) + text + valid.slice(at + 1))
      .filter((token) => token !== valid);
    const segments = fc
      .array(fc.base64String(), { minLength: 1, maxLength: 4 })
      .map((parts) => parts.join('.'));
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string(), garbled, segments), async (token) => {
        const user = await authenticator.authenticate(token);
        // A change inside the signature's padding bits can leave it valid: then it is the same token.
        if (user) expect(decodeJwt(token)).toEqual(decodeJwt(valid));
      }),
      { numRuns: 300 },
    );
  });
});

describe('the service-account flags', () => {
  const dir = tempDir('listwatch-sa-flags-');
  afterAll(() => dir.remove());
  const file = (name: string, text: string) => {
    const path = join(dir.path, name);
    writeFileSync(path, text);
    return path;
  };
  const getter = getterOf({});

  it('repeat --service-account-issuer and --service-account-key-file; --api-audiences splits on commas', () => {
    const { options } = parseArgs([
      '--service-account-issuer=https://a',
      '--service-account-issuer',
      'https://b',
      '--service-account-key-file=one.pem',
      '--service-account-key-file=two,three.pem',
      '--service-account-signing-key-file=sa.key',
      '--api-audiences=x,y',
      '--api-audiences=z',
    ]);
    expect(options).toMatchObject({
      serviceAccountIssuers: ['https://a', 'https://b'],
      serviceAccountKeyFiles: ['one.pem', 'two,three.pem'],
      serviceAccountSigningKeyFile: 'sa.key',
      apiAudiences: ['x', 'y', 'z'],
    });
  });

  it('are checked as kube-apiserver checks them, in its words', () => {
    const key = file('sa.pub', pem(ec.publicKey, 'spki'));
    const signing = file('sa.key', pem(ec.privateKey, 'pkcs8'));
    expect(serviceAccountTokensOf({}, getter)).toBeUndefined();
    expect(() => serviceAccountTokensOf({ keyFiles: [key] }, getter)).toThrow(
      'service-account-issuer is a required flag',
    );
    expect(() => serviceAccountTokensOf({ signingKeyFile: signing }, getter)).toThrow(
      'service-account-issuer is a required flag',
    );
    expect(() => serviceAccountTokensOf({ issuers: ['https://a'] }, getter)).toThrow(
      'service-account-key-file is a required flag',
    );
    expect(() => serviceAccountTokensOf({ issuers: [''], keyFiles: [key] }, getter)).toThrow(
      'service-account-issuer should not be an empty string',
    );
    expect(() =>
      serviceAccountTokensOf({ issuers: ['https://a', 'https://a'], keyFiles: [key] }, getter),
    ).toThrow('service-account-issuer "https://a" is already specified');
    expect(() =>
      serviceAccountTokensOf({ issuers: ['https://a'], keyFiles: [file('x', 'nothing')] }, getter),
    ).toThrow(/does not contain any valid RSA or ECDSA public keys/);
  });

  it('audiences default to the issuers; without a signing key tokens are checked, not issued; the signing key, else the TLS key, verifies when no key file is given', async () => {
    const signing = file('sa2.key', pem(ec.privateKey, 'pkcs8'));
    const checkOnly = serviceAccountTokensOf(
      {
        issuers: ['https://a', 'https://b'],
        keyFiles: [file('k.pem', pem(rsa.publicKey, 'spki'))],
      },
      getter,
    );
    expect(checkOnly?.audiences).toEqual(['https://a', 'https://b']);
    expect(checkOnly?.generator).toBeUndefined();
    const issuing = serviceAccountTokensOf(
      { issuers: ['https://a'], signingKeyFile: signing, apiAudiences: ['api'] },
      getterOf({ 'serviceaccounts/team/robot': SA }),
    );
    expect(issuing?.audiences).toEqual(['api']);
    const token = await issuing!.generator!.generate({
      namespace: 'team',
      serviceAccount: { name: 'robot', uid: 'sa-uid' },
      audiences: ['api'],
      now: new Date(),
      expirationSeconds: 600,
      bound: {},
    });
    expect(decodeJwt(token).iss).toBe('https://a');
    expect((await issuing!.authenticator.authenticate(token))?.name).toBe(
      'system:serviceaccount:team:robot',
    );
    const tls = serviceAccountTokensOf(
      { issuers: ['https://a'], tlsKey: pem(rsa.privateKey, 'pkcs1') },
      getter,
    );
    expect(tls).toBeDefined();
  });
});
