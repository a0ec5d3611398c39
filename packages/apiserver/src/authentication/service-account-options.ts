import { readFileSync } from 'node:fs';
import {
  readPublicKeys,
  readSigningKey,
  type SigningKey,
  type VerificationKey,
} from './service-account-keys.js';
import {
  ServiceAccountTokenAuthenticator,
  ServiceAccountTokenGenerator,
  type ObjectGetter,
} from './service-account-token.js';

// The service-account flags, checked and completed as kube-apiserver does
// (pkg/kubeapiserver/options/authentication.go Validate, pkg/controlplane/apiserver/options
// Complete).

export interface ServiceAccountFlags {
  /** `--service-account-issuer`, each time it is given. */
  issuers?: readonly string[];
  /** `--service-account-key-file`, each time it is given. */
  keyFiles?: readonly string[];
  /** `--service-account-signing-key-file`. */
  signingKeyFile?: string;
  /** `--api-audiences`. */
  apiAudiences?: readonly string[];
  /** `--tls-private-key-file` as PEM: verifies tokens when no key file is given (kube's default). */
  tlsKey?: string;
}

/** What the server does with service-account tokens: check them, and issue them if it can. */
export interface ServiceAccountTokens {
  authenticator: ServiceAccountTokenAuthenticator;
  /** Set with `--service-account-signing-key-file`: serviceaccounts/token is served. */
  generator?: ServiceAccountTokenGenerator;
  /** The API audiences: what a token must name, and what a TokenRequest gets by default. */
  audiences: readonly string[];
  /** The issuer tokens are issued as (the first `--service-account-issuer`). */
  issuer: string;
  /** The keys that verify tokens, published by the issuer discovery endpoints. */
  keys: readonly VerificationKey[];
}

function validateIssuers(issuers: readonly string[]): void {
  const seen = new Set<string>();
  for (const issuer of issuers) {
    if (issuer === '') throw new Error('service-account-issuer should not be an empty string');
    if (issuer.includes(':') && !URL.canParse(issuer))
      throw new Error(`service-account-issuer "${issuer}" contained a ':' but was not a valid URL`);
    if (seen.has(issuer))
      throw new Error(`service-account-issuer "${issuer}" is already specified`);
    seen.add(issuer);
  }
}

/** The TLS key's public half when it is an RSA or ECDSA key (IsValidServiceAccountKeyFile). */
function tlsKeyFallback(tlsKey: string | undefined): VerificationKey[] {
  if (tlsKey === undefined) return [];
  try {
    return readPublicKeys(tlsKey, '--tls-private-key-file');
  } catch {
    return [];
  }
}

/**
 * Service-account tokens from the flags, or undefined when `--service-account-issuer` is not
 * given (kube-apiserver requires it; here the feature is off without it). A flag that needs the
 * issuer without it, or an issuer without any key, is an error worded as kube's.
 */
export function serviceAccountTokensOf(
  flags: ServiceAccountFlags,
  getter: ObjectGetter,
): ServiceAccountTokens | undefined {
  const issuers = flags.issuers ?? [];
  const keyFiles = flags.keyFiles ?? [];
  if (issuers.length === 0) {
    if (keyFiles.length > 0 || flags.signingKeyFile !== undefined)
      throw new Error('service-account-issuer is a required flag');
    return undefined;
  }
  validateIssuers(issuers);
  let signing: SigningKey | undefined;
  if (flags.signingKeyFile !== undefined)
    signing = readSigningKey(readFileSync(flags.signingKeyFile, 'utf8'), flags.signingKeyFile);
  let keys = keyFiles.flatMap((path) => readPublicKeys(readFileSync(path, 'utf8'), path));
  // kube-apiserver requires --service-account-key-file with a signing key; its public half
  // verifies what it signs, so it serves as the key here.
  if (keys.length === 0 && signing) keys = [signing.publicKey];
  // Without either, kube verifies with the serving key (a default it keeps for compatibility).
  if (keys.length === 0) keys = tlsKeyFallback(flags.tlsKey);
  if (keys.length === 0) throw new Error('service-account-key-file is a required flag');
  const audiences = flags.apiAudiences?.length ? [...flags.apiAudiences] : [...issuers];
  return {
    authenticator: new ServiceAccountTokenAuthenticator({ issuers, keys, audiences, getter }),
    ...(signing ? { generator: new ServiceAccountTokenGenerator(issuers[0]!, signing) } : {}),
    audiences,
    issuer: issuers[0]!,
    keys,
  };
}
