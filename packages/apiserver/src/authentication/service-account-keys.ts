import {
  createHash,
  createPrivateKey,
  createPublicKey,
  X509Certificate,
  type KeyObject,
} from 'node:crypto';

// The keys of service-account tokens, read as kube-apiserver reads them: k8s.io/client-go
// util/keyutil (ParsePublicKeysPEM, ParsePrivateKeyPEM) and pkg/serviceaccount/jwt.go
// (JWTTokenGenerator, keyIDFromPublicKey).

/** The JWS algorithms kube-apiserver signs service-account tokens with, and so accepts. */
export type TokenAlgorithm = 'RS256' | 'ES256' | 'ES384' | 'ES512';
export const TOKEN_ALGORITHMS: readonly TokenAlgorithm[] = ['RS256', 'ES256', 'ES384', 'ES512'];

/** A key that verifies tokens, with the key ID its tokens name in their `kid` header. */
export interface VerificationKey {
  key: KeyObject;
  kid: string;
}

/** The key that signs issued tokens: the algorithm follows the key, as JWTTokenGenerator does. */
export interface SigningKey {
  key: KeyObject;
  alg: TokenAlgorithm;
  kid: string;
  /** Its public half, which verifies what it signs. */
  publicKey: VerificationKey;
}

/** ECDSA curves by the algorithm they sign with (signerFromECDSAPrivateKey). */
const EC_ALGORITHMS: Readonly<Record<string, TokenAlgorithm>> = {
  prime256v1: 'ES256',
  secp384r1: 'ES384',
  secp521r1: 'ES512',
};

/** The algorithm a key signs with (algorithmFromPublicKey), or why it has none. */
export function algorithmOf(key: KeyObject): TokenAlgorithm | { error: string } {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType !== 'ec')
    return {
      error: `unknown private key type ${key.asymmetricKeyType ?? ''}, must be RSA or ECDSA`,
    };
  return (
    EC_ALGORITHMS[key.asymmetricKeyDetails?.namedCurve ?? ''] ?? {
      error: 'unknown private key curve, must be 256, 384, or 521',
    }
  );
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;

/** keyIDFromPublicKey: the unpadded base64url SHA-256 of the key's DER SubjectPublicKeyInfo. */
export function keyId(publicKey: KeyObject): string {
  return createHash('sha256')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest('base64url');
}

/** The RSA or ECDSA public key of one PEM block; undefined for anything else. */
function publicKeyOf(type: string, block: string): KeyObject | undefined {
  let key: KeyObject;
  try {
    key =
      type === 'CERTIFICATE'
        ? new X509Certificate(block).publicKey
        : type.endsWith('PRIVATE KEY')
          ? createPublicKey(createPrivateKey(block))
          : createPublicKey(block);
  } catch {
    return undefined;
  }
  return key.asymmetricKeyType === 'rsa' || key.asymmetricKeyType === 'ec' ? key : undefined;
}

/**
 * `--service-account-key-file`: every RSA or ECDSA key in the PEM text (public keys,
 * certificates, or private keys whose public half is taken); other blocks (`EC PARAMETERS`) are
 * skipped; a file with no key at all is an error (ParsePublicKeysPEM).
 */
export function readPublicKeys(pem: string, path: string): VerificationKey[] {
  const keys: VerificationKey[] = [];
  for (const [block, type] of pem.matchAll(PEM_BLOCK)) {
    const key = publicKeyOf(type!, block);
    if (key) keys.push({ key, kid: keyId(key) });
  }
  if (keys.length === 0)
    throw new Error(
      `error reading public key file ${path}: data does not contain any valid RSA or ECDSA public keys`,
    );
  return keys;
}

/**
 * `--service-account-signing-key-file`: the first private key of the PEM text, RSA (RS256) or
 * ECDSA on P-256, P-384 or P-521 (ES256, ES384, ES512).
 */
export function readSigningKey(pem: string, path: string): SigningKey {
  const fail = (why: string) =>
    new Error(`failed to parse service-account-issuer-key-file ${path}: ${why}`);
  const block = [...pem.matchAll(PEM_BLOCK)].find(([, type]) => type!.endsWith('PRIVATE KEY'));
  if (!block) throw fail('data does not contain a valid RSA or ECDSA private key');
  let key: KeyObject;
  try {
    key = createPrivateKey(block[0]);
  } catch (err) {
    throw fail((err as Error).message);
  }
  const alg = algorithmOf(key);
  if (typeof alg !== 'string') throw new Error(`failed to build token generator: ${alg.error}`);
  const publicKey = createPublicKey(key);
  const kid = keyId(publicKey);
  return { key, alg, kid, publicKey: { key: publicKey, kid } };
}
