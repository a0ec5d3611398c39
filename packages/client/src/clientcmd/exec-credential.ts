import { spawn } from 'node:child_process';
import { ApiError, silentLogger, type Logger } from '@listwatch/api';
import { realClock, type Clock } from '../util/clock.js';
import type { CredentialProvider, Credentials } from './credentials.js';

export const EXEC_API_VERSIONS = [
  'client.authentication.k8s.io/v1',
  'client.authentication.k8s.io/v1beta1',
] as const;

export type ExecApiVersion = (typeof EXEC_API_VERSIONS)[number];

/** A kubeconfig user's `exec` stanza (clientcmd api ExecConfig). */
export interface ExecConfig {
  apiVersion: string;
  command: string;
  args?: string[];
  env?: { name: string; value: string }[];
  installHint?: string;
  provideClusterInfo?: boolean;
  interactiveMode?: 'Never' | 'IfAvailable' | 'Always';
}

/** The cluster as the plugin sees it in KUBERNETES_EXEC_INFO (client.authentication.k8s.io Cluster). */
export interface ExecClusterInfo {
  server: string;
  'tls-server-name'?: string;
  'insecure-skip-tls-verify'?: boolean;
  /** Base64, as in the kubeconfig. */
  'certificate-authority-data'?: string;
  'proxy-url'?: string;
  config?: unknown;
}

export interface ExecCredentialOptions {
  cluster?: ExecClusterInfo;
  /** Kill the plugin after this long (default 60 s): a plugin waiting for a prompt would hang forever. */
  timeoutMs?: number;
  clock?: Clock;
  logger?: Logger;
}

interface CachedCredential {
  credentials: Credentials;
  /** Epoch ms; undefined: valid until a 401. */
  expiresAt: number | undefined;
}

function execError(message: string, cause?: unknown): ApiError {
  return new ApiError(
    { code: 401, reason: 'Unauthorized', message: `exec plugin: ${message}` },
    cause === undefined ? undefined : { cause },
  );
}

/**
 * Credentials from an exec plugin (client-go plugin/pkg/client/auth/exec): runs the command with
 * KUBERNETES_EXEC_INFO set, reads an ExecCredential from its stdout — a token or a client
 * certificate — and caches it until its expirationTimestamp or until the server answers 401.
 * Concurrent requests share one run. The plugin never gets a terminal: interactiveMode Always
 * is rejected.
 */
export class ExecCredentialProvider implements CredentialProvider {
  private cached: CachedCredential | undefined;
  private running: Promise<CachedCredential> | undefined;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly timeoutMs: number;
  private readonly cluster: ExecClusterInfo | undefined;
  /** How many times the plugin ran; for tests and debugging. */
  runs = 0;

  constructor(
    readonly config: ExecConfig,
    options: ExecCredentialOptions = {},
  ) {
    if (!(EXEC_API_VERSIONS as readonly string[]).includes(config.apiVersion)) {
      throw execError(
        `unsupported apiVersion ${JSON.stringify(config.apiVersion)}; use one of ${EXEC_API_VERSIONS.join(', ')}`,
      );
    }
    // clientcmd defaults interactiveMode only for v1beta1; v1 must say it.
    if (config.apiVersion.endsWith('/v1') && config.interactiveMode === undefined) {
      throw execError(`interactiveMode must be specified for ${config.apiVersion}`);
    }
    if (config.interactiveMode === 'Always') {
      throw execError('interactiveMode Always needs a terminal, which a client library never has');
    }
    this.clock = options.clock ?? realClock;
    this.logger = options.logger ?? silentLogger;
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.cluster = options.cluster;
  }

  async credentials(): Promise<Credentials> {
    const cached = this.cached;
    if (cached && (cached.expiresAt === undefined || this.clock.now() < cached.expiresAt)) {
      return cached.credentials;
    }
    this.running ??= this.run().finally(() => (this.running = undefined));
    return (await this.running).credentials;
  }

  /**
   * A 401 with the cached credential: drop it, so the next request runs the plugin again. With
   * an older one, a concurrent request has already refreshed it: a retry gets the newer one.
   */
  unauthorized(used: Credentials): boolean {
    if (this.cached?.credentials === used) this.cached = undefined;
    return true;
  }

  private async run(): Promise<CachedCredential> {
    this.runs++;
    const input = {
      apiVersion: this.config.apiVersion,
      kind: 'ExecCredential',
      spec: {
        interactive: false,
        ...(this.config.provideClusterInfo && this.cluster ? { cluster: this.cluster } : {}),
      },
    };
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const { name, value } of this.config.env ?? []) env[name] = value;
    env.KUBERNETES_EXEC_INFO = JSON.stringify(input);

    const { stdout, stderr, code } = await this.spawn(env);
    if (code !== 0) {
      const hint = this.config.installHint ? `; ${this.config.installHint}` : '';
      throw execError(
        `executable ${this.config.command} failed with exit code ${code}${stderr ? `: ${stderr.trim().slice(-512)}` : ''}${hint}`,
      );
    }
    const credential = this.parse(stdout);
    this.logger.debug('exec plugin returned a credential', {
      command: this.config.command,
      kind: credential.credentials.authorization ? 'token' : 'client certificate',
      ...(credential.expiresAt !== undefined
        ? { expires: new Date(credential.expiresAt).toISOString() }
        : {}),
    });
    this.cached = credential;
    return credential;
  }

  private spawn(
    env: NodeJS.ProcessEnv,
  ): Promise<{ stdout: string; stderr: string; code: number | null }> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.config.command, this.config.args ?? [], {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: this.timeoutMs,
      });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
      child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
      child.on('error', (e) => {
        const hint = this.config.installHint ? `; ${this.config.installHint}` : '';
        reject(execError(`cannot run ${this.config.command}: ${e.message}${hint}`, e));
      });
      child.on('close', (code, signal) => {
        resolve({
          stdout: Buffer.concat(out).toString('utf8'),
          stderr: Buffer.concat(err).toString('utf8'),
          code: code ?? (signal ? -1 : null),
        });
      });
    });
  }

  private parse(stdout: string): CachedCredential {
    let value: unknown;
    try {
      value = JSON.parse(stdout);
    } catch (e) {
      throw execError(`decoding stdout: ${(e as Error).message}`, e);
    }
    const cred = value as {
      apiVersion?: unknown;
      kind?: unknown;
      status?: {
        token?: unknown;
        clientCertificateData?: unknown;
        clientKeyData?: unknown;
        expirationTimestamp?: unknown;
      };
    } | null;
    if (typeof cred !== 'object' || cred === null)
      throw execError('stdout is not an ExecCredential');
    if (cred.apiVersion !== this.config.apiVersion) {
      throw execError(
        `plugin returned version ${JSON.stringify(cred.apiVersion)}, expected ${this.config.apiVersion}`,
      );
    }
    const status = cred.status;
    if (typeof status !== 'object' || status === null)
      throw execError('ExecCredential has no status');
    const { token, clientCertificateData: cert, clientKeyData: key } = status;
    const hasCert = typeof cert === 'string' && cert !== '';
    const hasKey = typeof key === 'string' && key !== '';
    if (hasCert !== hasKey) {
      throw execError(
        'ExecCredential must set both clientCertificateData and clientKeyData, or neither',
      );
    }
    const hasToken = typeof token === 'string' && token !== '';
    if (!hasToken && !hasCert) throw execError("plugin didn't return a token or cert/key pair");
    let expiresAt: number | undefined;
    const expiry = status.expirationTimestamp;
    if (expiry !== undefined && expiry !== null) {
      expiresAt = typeof expiry === 'string' ? Date.parse(expiry) : Number.NaN;
      if (Number.isNaN(expiresAt)) throw execError('expirationTimestamp is not an RFC 3339 time');
    }
    const credentials: Credentials = {
      ...(hasToken ? { authorization: `Bearer ${token}` } : {}),
      ...(hasCert ? { clientCertificate: { cert: cert, key: key as string } } : {}),
    };
    return { credentials, expiresAt };
  }
}
