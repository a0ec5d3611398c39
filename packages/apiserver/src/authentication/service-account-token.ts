import { isRecord, type KubeObject } from '@listwatch/api';
import { decodeJwt, decodeProtectedHeader, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import { randomUUID } from 'node:crypto';
import { TOKEN_ALGORITHMS, type SigningKey, type VerificationKey } from './service-account-keys.js';
import type { UserInfo } from './user.js';

// Bound service-account tokens as kube-apiserver issues and checks them: pkg/serviceaccount
// (claims.go Claims and validator.Validate, jwt.go JWTTokenGenerator and jwtTokenAuthenticator)
// and k8s.io/apiserver pkg/authentication/serviceaccount (user names, groups, extra keys).

export const SERVICE_ACCOUNT_USERNAME_PREFIX = 'system:serviceaccount:';
export const ALL_SERVICE_ACCOUNTS_GROUP = 'system:serviceaccounts';

/** The extra keys a service-account user carries (serviceaccount/util.go). */
export const EXTRA = {
  podName: 'authentication.kubernetes.io/pod-name',
  podUid: 'authentication.kubernetes.io/pod-uid',
  nodeName: 'authentication.kubernetes.io/node-name',
  nodeUid: 'authentication.kubernetes.io/node-uid',
  credentialId: 'authentication.kubernetes.io/credential-id',
} as const;

/** go-jose's jwt.DefaultLeeway: exp, nbf, iat and deletions are judged a minute loosely. */
const LEEWAY_SECONDS = 60;

export function serviceAccountUsername(namespace: string, name: string): string {
  return `${SERVICE_ACCOUNT_USERNAME_PREFIX}${namespace}:${name}`;
}

/** MakeGroupNames: every service account, and those of its namespace. */
export function serviceAccountGroups(namespace: string): string[] {
  return [ALL_SERVICE_ACCOUNTS_GROUP, `${ALL_SERVICE_ACCOUNTS_GROUP}:${namespace}`];
}

/** An object a token names in its private claims (claims.go ref: both fields omitempty). */
export interface ClaimRef {
  name: string;
  uid: string;
}

/** What a token is bound to besides its service account (TokenRequestSpec.boundObjectRef). */
export interface BoundObjects {
  pod?: ClaimRef;
  secret?: ClaimRef;
  /** A node-bound token's node, or a pod-bound token's node (its uid may be unknown). */
  node?: ClaimRef;
}

export interface TokenRequestClaims {
  namespace: string;
  serviceAccount: ClaimRef;
  audiences: readonly string[];
  /** When the request was made: iat and nbf, and exp counts from it. */
  now: Date;
  expirationSeconds: number;
  bound: BoundObjects;
}

const seconds = (date: Date): number => Math.floor(date.getTime() / 1000);

function ref({ name, uid }: ClaimRef): Partial<ClaimRef> {
  return { ...(name ? { name } : {}), ...(uid ? { uid } : {}) };
}

/** JWTTokenGenerator: signs tokens for the first `--service-account-issuer`. */
export class ServiceAccountTokenGenerator {
  constructor(
    readonly issuer: string,
    private readonly signingKey: SigningKey,
  ) {}

  /** claims.go Claims, signed: the JSON keys in the order go-jose writes them (sorted). */
  generate(claims: TokenRequestClaims): Promise<string> {
    const { pod, secret, node } = claims.bound;
    const issuedAt = seconds(claims.now);
    const payload: JWTPayload = {
      aud: [...claims.audiences],
      exp: issuedAt + claims.expirationSeconds,
      iat: issuedAt,
      iss: this.issuer,
      // ServiceAccountTokenJTI (on by default since 1.30): each token has an ID.
      jti: randomUUID(),
      'kubernetes.io': {
        namespace: claims.namespace,
        ...(node ? { node: ref(node) } : {}),
        ...(pod ? { pod: ref(pod) } : {}),
        ...(secret ? { secret: ref(secret) } : {}),
        serviceaccount: ref(claims.serviceAccount),
      },
      nbf: issuedAt,
      sub: serviceAccountUsername(claims.namespace, claims.serviceAccount.name),
    };
    return new SignJWT(payload)
      .setProtectedHeader({ alg: this.signingKey.alg, kid: this.signingKey.kid })
      .sign(this.signingKey.key);
  }
}

/** Where the authenticator looks up what a token names (the getter of validator.Validate). */
export type ObjectGetter = (
  resource: 'serviceaccounts' | 'pods' | 'secrets' | 'nodes',
  namespace: string | undefined,
  name: string,
) => Promise<KubeObject | undefined>;

export interface ServiceAccountTokenOptions {
  /** `--service-account-issuer`: tokens from any of them are accepted. */
  issuers: readonly string[];
  /** `--service-account-key-file` keys (or the signing key's public half). */
  keys: readonly VerificationKey[];
  /** `--api-audiences`: a token must name one of them. */
  audiences: readonly string[];
  getter: ObjectGetter;
}

function claimRef(value: unknown): ClaimRef | undefined {
  if (!isRecord(value)) return undefined;
  const { name, uid } = value;
  if (
    (name !== undefined && typeof name !== 'string') ||
    (uid !== undefined && typeof uid !== 'string')
  )
    return undefined;
  return { name: name ?? '', uid: uid ?? '' };
}

/** The `kubernetes.io` private claims, or undefined when they are not shaped as kube writes them. */
function privateClaims(
  payload: JWTPayload,
): { namespace: string; serviceAccount: ClaimRef; bound: BoundObjects } | undefined {
  const claims = payload['kubernetes.io'];
  if (!isRecord(claims) || typeof claims['namespace'] !== 'string') return undefined;
  const serviceAccount = claimRef(claims['serviceaccount']);
  if (!serviceAccount) return undefined;
  const bound: BoundObjects = {};
  for (const kind of ['pod', 'secret', 'node'] as const) {
    if (claims[kind] === undefined) continue;
    const value = claimRef(claims[kind]);
    if (!value) return undefined;
    bound[kind] = value;
  }
  return { namespace: claims['namespace'], serviceAccount, bound };
}

/**
 * jwtTokenAuthenticator with the bound-token validator: a JWT whose `iss` is a configured issuer,
 * signed by one of the keys, unexpired, for one of the API audiences, whose service account (and
 * bound pod, secret or node) still exists with the uid it was issued for.
 */
export class ServiceAccountTokenAuthenticator {
  private readonly issuers: ReadonlySet<string>;

  constructor(private readonly options: ServiceAccountTokenOptions) {
    this.issuers = new Set(options.issuers);
  }

  /**
   * hasCorrectIssuer: whether the token is a compact JWT claiming one of our issuers (read
   * before the signature is checked, so only to decide whose token it is).
   */
  hasCorrectIssuer(token: string): boolean {
    if (token.trim().startsWith('{')) return false;
    try {
      const { iss } = decodeJwt(token);
      return typeof iss === 'string' && this.issuers.has(iss);
    } catch {
      return false;
    }
  }

  /** The token's payload if one of the keys signed it: those of its `kid` first, then all. */
  private async verified(token: string): Promise<JWTPayload | undefined> {
    let kid: string | undefined;
    try {
      kid = decodeProtectedHeader(token).kid;
    } catch {
      return undefined;
    }
    const named = this.options.keys.filter((k) => k.kid === kid);
    for (const { key } of named.length ? named : this.options.keys) {
      try {
        const { payload } = await jwtVerify(token, key, {
          algorithms: [...TOKEN_ALGORITHMS],
          clockTolerance: LEEWAY_SECONDS,
        });
        return payload;
      } catch {
        // Another key may have signed it; expired or not yet valid fails with every key.
      }
    }
    return undefined;
  }

  /** `--api-audiences`: what a token must be for unless a TokenReview names others. */
  get apiAudiences(): readonly string[] {
    return this.options.audiences;
  }

  /** The service account's user, or undefined when the token does not authenticate. */
  async authenticate(token: string): Promise<UserInfo | undefined> {
    return (await this.authenticateFor(token, this.options.audiences))?.user;
  }

  /**
   * The user of a token that names one of `targetAudiences`, with the audiences it matched
   * (jwtTokenAuthenticator.AuthenticateToken with authenticator.WithAudiences).
   */
  async authenticateFor(
    token: string,
    targetAudiences: readonly string[],
  ): Promise<{ user: UserInfo; audiences: string[] } | undefined> {
    if (!this.hasCorrectIssuer(token)) return undefined;
    const payload = await this.verified(token);
    if (!payload || typeof payload.iss !== 'string' || !this.issuers.has(payload.iss))
      return undefined;
    const now = Date.now() / 1000;
    // go-jose also refuses a token issued in the future, which jose leaves to maxTokenAge.
    if (typeof payload.iat === 'number' && payload.iat > now + LEEWAY_SECONDS) return undefined;
    const audiences =
      typeof payload.aud === 'string'
        ? [payload.aud]
        : Array.isArray(payload.aud)
          ? payload.aud
          : [];
    const matched = audiences.filter(
      (aud): aud is string => typeof aud === 'string' && targetAudiences.includes(aud),
    );
    if (matched.length === 0) return undefined;
    const claims = privateClaims(payload);
    if (!claims) return undefined;
    const { namespace, serviceAccount, bound } = claims;
    // A lookup that fails leaves the token unauthenticated (401), as the validator's error does.
    const getter: ObjectGetter = (resource, namespace, name) =>
      this.options.getter(resource, namespace, name).catch(() => undefined);
    // Objects deleted more than the leeway ago no longer back a token.
    const gone = (object: KubeObject | undefined, uid: string): boolean => {
      if (!object || object.metadata.uid !== uid) return true;
      const deleted = object.metadata.deletionTimestamp;
      return deleted !== undefined && Date.parse(deleted) / 1000 < now - LEEWAY_SECONDS;
    };
    if (gone(await getter('serviceaccounts', namespace, serviceAccount.name), serviceAccount.uid))
      return undefined;
    if (
      bound.secret &&
      gone(await getter('secrets', namespace, bound.secret.name), bound.secret.uid)
    )
      return undefined;
    if (bound.pod && gone(await getter('pods', namespace, bound.pod.name), bound.pod.uid))
      return undefined;
    // A pod-bound token's node is informational; a node-bound token needs its node
    // (ServiceAccountTokenNodeBindingValidation).
    if (
      !bound.pod &&
      bound.node &&
      gone(await getter('nodes', undefined, bound.node.name), bound.node.uid)
    )
      return undefined;
    const extra: Record<string, string[]> = {};
    if (bound.pod?.name && bound.pod.uid) {
      extra[EXTRA.podName] = [bound.pod.name];
      extra[EXTRA.podUid] = [bound.pod.uid];
    }
    if (bound.node?.name) {
      extra[EXTRA.nodeName] = [bound.node.name];
      if (bound.node.uid) extra[EXTRA.nodeUid] = [bound.node.uid];
    }
    if (typeof payload.jti === 'string' && payload.jti)
      extra[EXTRA.credentialId] = [`JTI=${payload.jti}`];
    const user: UserInfo = {
      name: serviceAccountUsername(namespace, serviceAccount.name),
      uid: serviceAccount.uid,
      groups: serviceAccountGroups(namespace),
      ...(Object.keys(extra).length ? { extra } : {}),
    };
    return { user, audiences: matched };
  }
}
