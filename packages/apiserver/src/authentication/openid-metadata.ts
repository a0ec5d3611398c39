import { exportJWK } from 'jose';
import type Koa from 'koa';
import { algorithmOf, type VerificationKey } from './service-account-keys.js';

// Service-account issuer discovery (OIDC), as kube-apiserver serves it: pkg/serviceaccount/
// openidmetadata.go renders the documents once, pkg/routes/openidmetadata.go serves them.

/** Where the OIDC Provider Configuration document is served. */
export const OPENID_CONFIG_PATH = '/.well-known/openid-configuration';
/** Where the key set that verifies service-account tokens is served. */
export const JWKS_PATH = '/openid/v1/jwks';

/** The two rendered documents. */
export interface OpenIDMetadata {
  configJSON: string;
  keysetJSON: string;
}

/**
 * The discovery documents for `issuer`, or why they cannot be served (NewOpenIDMetadataProvider's
 * checks: an https issuer without query or fragment; jwks_uri from --service-account-jwks-uri or
 * https://<external address>/openid/v1/jwks).
 */
export async function openIDMetadata(
  issuer: string,
  jwksUri: string | undefined,
  externalAddress: string,
  keys: readonly VerificationKey[],
): Promise<OpenIDMetadata | { error: string }> {
  let iss: URL;
  try {
    iss = new URL(issuer);
  } catch {
    return { error: `issuer URL must use https scheme, got: ${issuer}` };
  }
  if (iss.protocol !== 'https:')
    return { error: `issuer URL must use https scheme, got: ${issuer}` };
  if (iss.search !== '') return { error: `issuer URL may not include a query, got: ${issuer}` };
  if (iss.hash !== '') return { error: `issuer URL may not include a fragment, got: ${issuer}` };
  if (jwksUri === undefined) jwksUri = `https://${externalAddress}${JWKS_PATH}`;
  else if (!URL.canParse(jwksUri) || new URL(jwksUri).protocol !== 'https:')
    return { error: `jwksURI requires https scheme, parsed as: ${jwksUri}` };
  if (keys.length === 0) return { error: 'no keys provided for validating keyset' };
  const unsupported = keys.map(({ key }) => algorithmOf(key)).find((a) => typeof a !== 'string');
  if (unsupported) return unsupported;
  const jwks = await Promise.all(keys.map(jwkOf));
  const metadata = {
    issuer,
    jwks_uri: jwksUri,
    response_types_supported: ['id_token'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [...new Set(jwks.map((k) => k.alg))].sort(),
  };
  return { configJSON: JSON.stringify(metadata), keysetJSON: JSON.stringify({ keys: jwks }) };
}

/** A public key as go-jose marshals a JSONWebKey: use, kty, kid, crv, alg, then the key's numbers. */
async function jwkOf({ key, kid }: VerificationKey): Promise<Record<string, string>> {
  const alg = algorithmOf(key) as string;
  const { kty, crv, x, y, n, e } = await exportJWK(key);
  const fields = { use: 'sig', kty, kid, crv, alg, x, y, n, e };
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Record<
    string,
    string
  >;
}

/**
 * Serves the documents once they are rendered (after the server knows its address): JSON and
 * application/jwk-set+json, cacheable for an hour, as pkg/routes/openidmetadata.go.
 */
export function openIDMetadataRoutes(metadata: () => OpenIDMetadata | undefined): Koa.Middleware {
  return async (ctx, next): Promise<void> => {
    const documents = metadata();
    const path = ctx.path.replace(/\/$/, '');
    if (!documents || ctx.method !== 'GET' || (path !== OPENID_CONFIG_PATH && path !== JWKS_PATH)) {
      await next();
      return;
    }
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.type = path === JWKS_PATH ? 'application/jwk-set+json' : 'application/json';
    ctx.body = path === JWKS_PATH ? documents.keysetJSON : documents.configJSON;
  };
}
