import { ApiError, errorField, silentLogger, type Logger } from '@listwatch/api';
import { realClock, type Clock } from '../util/clock.js';
import { readTextFile } from '../util/platform.js';

/** What authenticates one request: a header and/or a TLS client certificate (PEM). */
export interface Credentials {
  /** The `Authorization` header value (`Bearer …` or `Basic …`). */
  authorization?: string;
  /** Not changed in place: a rotated certificate is a new object (connection pools key on it). */
  clientCertificate?: { readonly cert: string; readonly key: string };
}

/**
 * Where a client gets credentials before each request. Providers cache: a static token costs
 * nothing, a token file is re-read now and then, an exec plugin runs only when its credential
 * expires or the server answered 401.
 */
export interface CredentialProvider {
  credentials(): Promise<Credentials>;
  /**
   * The server answered 401 to a request made with `used`. Returns true when a retry could get
   * different credentials (the cache was dropped), false when retrying is pointless.
   */
  unauthorized?(used: Credentials): boolean;
}

export const anonymousCredentials: CredentialProvider = {
  credentials: () => Promise.resolve({}),
};

export function bearerToken(token: string): CredentialProvider {
  const creds: Credentials = { authorization: `Bearer ${token}` };
  return { credentials: () => Promise.resolve(creds) };
}

export function basicAuth(username: string, password: string): CredentialProvider {
  const encoded = Buffer.from(`${username}:${password}`, 'utf8').toString('base64');
  const creds: Credentials = { authorization: `Basic ${encoded}` };
  return { credentials: () => Promise.resolve(creds) };
}

export function clientCertificate(cert: string, key: string): CredentialProvider {
  const creds: Credentials = { clientCertificate: { cert, key } };
  return { credentials: () => Promise.resolve(creds) };
}

export interface TokenFileOptions {
  /** How long a read token is trusted before the file is read again (client-go: 1 min − 10 s). */
  refreshMs?: number;
  /** Used until the file is first read successfully (a kubeconfig `token` next to `tokenFile`). */
  initialToken?: string;
  clock?: Clock;
  logger?: Logger;
}

/**
 * A bearer token read from a file and re-read periodically (client-go
 * transport.NewCachedFileTokenSource): projected service-account tokens rotate on disk, and a
 * client that read the file once would be locked out an hour later. A failed re-read keeps the
 * last good token.
 */
export class TokenFileProvider implements CredentialProvider {
  private token: string | undefined;
  private readAt = Number.NEGATIVE_INFINITY;
  private reading: Promise<string> | undefined;
  private readonly refreshMs: number;
  private readonly clock: Clock;
  private readonly logger: Logger;

  constructor(
    readonly path: string,
    options: TokenFileOptions = {},
  ) {
    this.refreshMs = options.refreshMs ?? 50_000;
    this.clock = options.clock ?? realClock;
    this.logger = options.logger ?? silentLogger;
    this.token = options.initialToken;
  }

  async credentials(): Promise<Credentials> {
    const token = await this.current();
    return { authorization: `Bearer ${token}` };
  }

  unauthorized(): boolean {
    this.readAt = Number.NEGATIVE_INFINITY;
    return true;
  }

  private current(): Promise<string> {
    if (this.clock.now() - this.readAt < this.refreshMs && this.token !== undefined) {
      return Promise.resolve(this.token);
    }
    this.reading ??= this.read().finally(() => (this.reading = undefined));
    return this.reading;
  }

  private async read(): Promise<string> {
    try {
      const token = (await readTextFile(this.path)).trim();
      if (token === '') throw new Error('the file is empty');
      this.token = token;
      this.readAt = this.clock.now();
      return token;
    } catch (err) {
      if (this.token !== undefined) {
        // Keep the last good token: a rotation writes a new file atomically, a failed read is
        // more likely a transient problem than a revoked credential.
        this.logger.warn('could not re-read the token file; using the cached token', {
          path: this.path,
          error: errorField(err),
        });
        this.readAt = this.clock.now();
        return this.token;
      }
      throw new ApiError(
        {
          code: 401,
          reason: 'Unauthorized',
          message: `cannot read token file ${this.path}: ${errorField(err)}`,
        },
        { cause: err },
      );
    }
  }
}
