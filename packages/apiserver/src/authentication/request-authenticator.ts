import { ApiError } from '@listwatch/api';
import type { IncomingMessage } from 'node:http';
import type { Http2ServerRequest } from 'node:http2';
import type { TLSSocket } from 'node:tls';
import type { ServiceAccountTokenAuthenticator } from './service-account-token.js';
import type { TokenFile } from './token-file.js';
import { ANONYMOUS, authenticated, type UserInfo } from './user.js';

/** The WebSocket subprotocol browsers carry a bearer token in (authenticator/request/websocket). */
export const BEARER_PROTOCOL_PREFIX = 'base64url.bearer.authorization.k8s.io.';

/** The x509 extended key usage a client certificate must allow, when it lists any. */
const CLIENT_AUTH_USAGE = '1.3.6.1.5.5.7.3.2';

export interface AuthenticationOptions {
  /** `--token-auth-file`, parsed. */
  tokens?: TokenFile;
  /** `--service-account-issuer` and its keys: bound service-account tokens (JWTs). */
  serviceAccountTokens?: ServiceAccountTokenAuthenticator;
  /** Whether `--client-ca-file` asked TLS clients for certificates. */
  clientCertificates?: boolean;
  /** `--anonymous-auth` (default true): requests without credentials are system:anonymous. */
  anonymous?: boolean;
}

type Request = IncomingMessage | Http2ServerRequest;

function unauthorized(): ApiError {
  return new ApiError({ code: 401, reason: 'Unauthorized', message: 'Unauthorized' });
}

/** `Authorization: Bearer <token>`, as bearertoken.go reads it; undefined when not a bearer. */
function bearerToken(req: Request): string | undefined {
  const header = req.headers.authorization?.trim();
  if (!header) return undefined;
  const parts = header.split(' ');
  if (parts.length < 2 || parts[0]!.toLowerCase() !== 'bearer') return undefined;
  return parts[1] || undefined;
}

/** The token of a `base64url.bearer.authorization.k8s.io.<token>` subprotocol, if offered. */
function protocolToken(req: Request): string | undefined {
  const offered = req.headers['sec-websocket-protocol'];
  if (typeof offered !== 'string') return undefined;
  for (const protocol of offered.split(',').map((p) => p.trim())) {
    if (!protocol.startsWith(BEARER_PROTOCOL_PREFIX)) continue;
    const encoded = protocol.slice(BEARER_PROTOCOL_PREFIX.length);
    const token = Buffer.from(encoded, 'base64url').toString('utf8');
    // An encoding that does not round-trip is not a token (upstream: a decode error, 401).
    if (Buffer.from(token, 'utf8').toString('base64url') !== encoded.replace(/=+$/, ''))
      throw unauthorized();
    return token;
  }
  return undefined;
}

/** The user of a verified TLS client certificate: CN, groups from O (authenticator/request/x509). */
function certificateUser(req: Request): UserInfo | undefined {
  const socket = req.socket as TLSSocket;
  if (typeof socket.getPeerCertificate !== 'function') return undefined;
  const cert = socket.getPeerCertificate();
  if (!cert || Object.keys(cert).length === 0) return undefined;
  // Presented but not signed by the client CA, expired, or not for client auth: 401.
  if (!socket.authorized) throw unauthorized();
  if (cert.ext_key_usage && !cert.ext_key_usage.includes(CLIENT_AUTH_USAGE)) throw unauthorized();
  const subject = cert.subject as unknown as Record<string, string | string[] | undefined>;
  const name = subject['CN'];
  if (typeof name !== 'string' || name === '') throw unauthorized();
  const o = subject['O'];
  return { name, groups: o === undefined ? [] : Array.isArray(o) ? o : [o] };
}

/**
 * kube-apiserver's authentication chain (pkg/kubeapiserver/authenticator/config.go): a client
 * certificate, then a bearer token (header or WebSocket subprotocol) asked of the token file and
 * then of the service-account token authenticator; a credential that fails is 401, never a
 * fall-through to anonymous (union.NewFailOnError); no credential at all is system:anonymous
 * when allowed, else 401.
 */
export class RequestAuthenticator {
  constructor(private readonly options: AuthenticationOptions = {}) {}

  /** Whether any credential is configured (else every request is anonymous). */
  get configured(): boolean {
    return (
      this.options.tokens !== undefined ||
      this.options.serviceAccountTokens !== undefined ||
      this.options.clientCertificates === true
    );
  }

  async authenticate(req: Request): Promise<UserInfo> {
    if (this.options.clientCertificates) {
      const user = certificateUser(req);
      if (user) return authenticated(user);
    }
    // Without a token authenticator a token is ignored, as kube-apiserver ignores it.
    const { tokens, serviceAccountTokens } = this.options;
    const token =
      tokens || serviceAccountTokens ? (bearerToken(req) ?? protocolToken(req)) : undefined;
    if (token !== undefined) {
      // Each token authenticator in turn (tokenunion): the first that knows the token wins.
      const user = tokens?.authenticate(token) ?? (await serviceAccountTokens?.authenticate(token));
      if (!user) throw unauthorized();
      return authenticated(user);
    }
    if (this.options.anonymous === false) throw unauthorized();
    return ANONYMOUS;
  }

  /**
   * What a TokenReview answers (pkg/registry/authentication/tokenreview/storage.go): the token
   * alone, as a bearer token would be, asked of the token authenticators for `audiences` (the
   * review's, else --api-audiences). An audience-agnostic authenticator (the token file) is taken
   * to serve all of them, as kube's audAgnosticTokenAuthenticator does.
   */
  async reviewToken(
    token: string,
    requested: readonly string[],
  ): Promise<{ user: UserInfo; audiences: string[] } | undefined> {
    const { tokens, serviceAccountTokens } = this.options;
    const audiences = requested.length > 0 ? requested : (serviceAccountTokens?.apiAudiences ?? []);
    const user = tokens?.authenticate(token);
    if (user) return { user: authenticated(user), audiences: [...audiences] };
    const account = await serviceAccountTokens?.authenticateFor(token, audiences);
    return account
      ? { user: authenticated(account.user), audiences: account.audiences }
      : undefined;
  }
}
