import { silentLogger } from '@listwatch/api';
import { MemoryStorage } from '@listwatch/storage';
import { eventually, tempDir } from '@listwatch/testing';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type RunningApiServer } from '../server.js';
import { openIDMetadata } from './openid-metadata.js';
import { keyId } from './service-account-keys.js';

// Service-account issuer discovery as kube-apiserver serves it (pkg/serviceaccount/
// openidmetadata.go, pkg/routes/openidmetadata.go): a relying party outside the cluster verifies
// a service-account token with nothing but the published documents.

const ISSUER = 'https://issuer.example.com/cluster';
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec384 = generateKeyPairSync('ec', { namedCurve: 'P-384' });
const verifying = (key: typeof rsa.publicKey) => ({ key, kid: keyId(key) });

describe('issuer discovery documents (openIDConfigJSON, openIDKeysetJSON)', () => {
  it('name the issuer, the jwks_uri on the external address, and each key as go-jose writes it', async () => {
    const metadata = await openIDMetadata(ISSUER, undefined, '10.0.0.1:6443', [
      verifying(rsa.publicKey),
      verifying(ec384.publicKey),
    ]);
    if ('error' in metadata) throw new Error(metadata.error);
    expect(JSON.parse(metadata.configJSON)).toEqual({
      issuer: ISSUER,
      jwks_uri: 'https://10.0.0.1:6443/openid/v1/jwks',
      response_types_supported: ['id_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['ES384', 'RS256'],
    });
    const { keys } = JSON.parse(metadata.keysetJSON) as { keys: Record<string, string>[] };
    expect(keys.map((k) => Object.keys(k))).toEqual([
      ['use', 'kty', 'kid', 'alg', 'n', 'e'],
      ['use', 'kty', 'kid', 'crv', 'alg', 'x', 'y'],
    ]);
    expect(keys[0]).toMatchObject({ use: 'sig', kty: 'RSA', alg: 'RS256', e: 'AQAB' });
    expect(keys[0]!['kid']).toBe(keyId(rsa.publicKey));
    expect(keys[1]).toMatchObject({ kty: 'EC', crv: 'P-384', alg: 'ES384' });
  });

  it('are not served for an issuer that is not an https URL without query or fragment, or a plain-http jwks_uri', async () => {
    const keys = [verifying(rsa.publicKey)];
    const why = async (issuer: string, jwksUri?: string) =>
      ((await openIDMetadata(issuer, jwksUri, 'h:1', keys)) as { error?: string }).error;
    expect(await why('http://issuer.example.com')).toBe(
      'issuer URL must use https scheme, got: http://issuer.example.com',
    );
    expect(await why('kubernetes.default.svc')).toMatch(/must use https scheme/);
    expect(await why('https://a.example/?x=1')).toMatch(/may not include a query/);
    expect(await why('https://a.example/#f')).toMatch(/may not include a fragment/);
    expect(await why(ISSUER, 'http://a.example/keys')).toMatch(/jwksURI requires https scheme/);
    expect(await openIDMetadata(ISSUER, undefined, 'h:1', [])).toEqual({
      error: 'no keys provided for validating keyset',
    });
  });
});

describe('/.well-known/openid-configuration and /openid/v1/jwks on a server', () => {
  const dir = tempDir('listwatch-oidc-');
  let server: RunningApiServer;
  let plainIssuer: RunningApiServer;
  const admin = { authorization: 'Bearer admin-token' };

  beforeAll(async () => {
    const keyFile = join(dir.path, 'sa.key');
    writeFileSync(keyFile, rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }));
    const tokens = join(dir.path, 'tokens.csv');
    writeFileSync(tokens, 'admin-token,admin,1,system:masters\n');
    const options = {
      storage: new MemoryStorage({ compactionInterval: 0 }),
      port: 0,
      logger: silentLogger,
      tokenAuthFile: tokens,
      serviceAccountSigningKeyFile: keyFile,
      authorizationMode: ['RBAC' as const],
    };
    server = await startApiServer({ ...options, serviceAccountIssuers: [ISSUER] });
    plainIssuer = await startApiServer({
      ...options,
      storage: new MemoryStorage({ compactionInterval: 0 }),
      serviceAccountIssuers: ['kubernetes.default.svc'],
    });
  });
  afterAll(async () => {
    await server?.close();
    await plainIssuer?.close();
    dir.remove();
  });

  /** A token of the `default` ServiceAccount of `default`, from TokenRequest. */
  async function serviceAccountToken(audience: string): Promise<string> {
    const path = '/api/v1/namespaces/default/serviceaccounts/default/token';
    const res = await eventually(async () => {
      const r = await fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { ...admin, 'content-type': 'application/json' },
        body: JSON.stringify({
          apiVersion: 'authentication.k8s.io/v1',
          kind: 'TokenRequest',
          spec: { audiences: [audience] },
        }),
      });
      return r.status === 201 ? r : undefined;
    }, 'a TokenRequest for the default ServiceAccount');
    return ((await res.json()) as { status: { token: string } }).status.token;
  }

  it('a relying party verifies a service-account token with the published key set alone', async () => {
    // The relying party's token is not for the apiserver; a token for the apiserver reads the documents.
    const token = await serviceAccountToken('vault');
    const reader = { authorization: `Bearer ${await serviceAccountToken(ISSUER)}` };
    const config = await fetch(`${server.url}/.well-known/openid-configuration`, {
      headers: reader,
    });
    expect(config.status).toBe(200);
    expect(config.headers.get('content-type')).toMatch(/^application\/json/);
    expect(config.headers.get('cache-control')).toBe('public, max-age=3600');
    const { issuer, jwks_uri } = (await config.json()) as { issuer: string; jwks_uri: string };
    expect(issuer).toBe(ISSUER);
    expect(jwks_uri).toBe(`${server.url.replace('http:', 'https:')}/openid/v1/jwks`);

    const keys = await fetch(`${server.url}/openid/v1/jwks`, { headers: reader });
    expect(keys.headers.get('content-type')).toMatch(/^application\/jwk-set\+json/);
    const jwks = createLocalJWKSet((await keys.json()) as JSONWebKeySet);
    const { payload } = await jwtVerify(token, jwks, { issuer, audience: 'vault' });
    expect(payload.sub).toBe('system:serviceaccount:default:default');
  });

  it('service accounts may read them (system:service-account-issuer-discovery); anonymous users may not', async () => {
    const token = await serviceAccountToken(ISSUER);
    const get = (path: string, headers: Record<string, string> = {}) =>
      fetch(`${server.url}${path}`, { headers }).then((r) => r.status);
    for (const path of ['/.well-known/openid-configuration', '/openid/v1/jwks']) {
      expect(await get(path, { authorization: `Bearer ${token}` })).toBe(200);
      expect(await get(`${path}/`, { authorization: `Bearer ${token}` })).toBe(200);
      expect(await get(path)).toBe(403);
    }
  });

  it('an issuer that is not an https URL leaves discovery off: 404', async () => {
    const res = await fetch(`${plainIssuer.url}/.well-known/openid-configuration`, {
      headers: admin,
    });
    expect(res.status).toBe(404);
    expect((await fetch(`${plainIssuer.url}/openid/v1/jwks`, { headers: admin })).status).toBe(404);
  });
});
