import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import type { Logger } from '@listwatch/api';
import type { RestConfig, TlsConfig } from '../rest/config.js';
import type { Clock } from '../util/clock.js';
import { opt } from '../util/optional-property.js';
import {
  anonymousCredentials,
  basicAuth,
  bearerToken,
  clientCertificate,
  TokenFileProvider,
  type CredentialProvider,
} from './credentials.js';
import { ExecCredentialProvider, type ExecClusterInfo } from './exec-credential.js';
import { KubeConfigError } from './kubeconfig-error.js';
import { mergeKubeConfigs, parseKubeConfig, resolvePaths } from './loader.js';
import type {
  KubeConfigCluster,
  KubeConfigContext,
  KubeConfigData,
  KubeConfigUser,
} from './types.js';

export { KubeConfigError } from './kubeconfig-error.js';
export { mergeKubeConfigs, parseKubeConfig } from './loader.js';
export type {
  KubeConfigCluster,
  KubeConfigContext,
  KubeConfigData,
  KubeConfigUser,
} from './types.js';

export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

export interface LoadOptions {
  /** Defaults to process.env (`KUBECONFIG`, `KUBERNETES_SERVICE_HOST`/`_PORT`, `POD_NAMESPACE`). */
  env?: NodeJS.ProcessEnv;
  /** Defaults to the user's home directory (for `~/.kube/config`). */
  homeDir?: string;
  /** Where the service-account token, ca.crt and namespace live in a pod. */
  serviceAccountDir?: string;
}

export interface RestConfigOptions {
  /** Use this context instead of current-context. */
  context?: string;
  clock?: Clock;
  logger?: Logger;
}

function readPem(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new KubeConfigError(`unable to read ${what} ${path}: ${(err as Error).message}`, {
      cause: err,
    });
  }
}

function decodeData(data: string, what: string): string {
  const text = Buffer.from(data, 'base64').toString('utf8');
  if (!text.includes('-----BEGIN')) throw new KubeConfigError(`${what} is not base64 PEM data`);
  return text;
}

/**
 * A loaded kubeconfig: clusters, users, contexts and the current context, loaded the way kubectl
 * does (`$KUBECONFIG`, then `~/.kube/config`, then the pod's service account), and turned into
 * a RestConfig for the REST client.
 */
export class KubeConfig implements KubeConfigData {
  clusters: KubeConfigCluster[];
  users: KubeConfigUser[];
  contexts: KubeConfigContext[];
  currentContext: string;
  /** Where it came from: file paths, or `in-cluster`. For messages only. */
  sources: readonly string[];

  /** Empty without data, to be filled by a `loadFrom…` call as with @kubernetes/client-node. */
  constructor(
    data: KubeConfigData = { clusters: [], users: [], contexts: [], currentContext: '' },
    sources: readonly string[] = [],
  ) {
    this.clusters = data.clusters;
    this.users = data.users;
    this.contexts = data.contexts;
    this.currentContext = data.currentContext;
    this.sources = sources;
  }

  // --- @kubernetes/client-node's KubeConfig surface, for people switching --------------------

  /** Fills this configuration from another (the `loadFrom…` methods). */
  private assign(from: KubeConfig): void {
    this.clusters = from.clusters;
    this.users = from.users;
    this.contexts = from.contexts;
    this.currentContext = from.currentContext;
    this.sources = from.sources;
  }

  /** client-node's loadFromDefault: as loadDefault() — $KUBECONFIG, ~/.kube/config, in-cluster. */
  loadFromDefault(options: LoadOptions = {}): void {
    this.assign(KubeConfig.loadDefault(options));
  }

  loadFromFile(path: string): void {
    this.assign(KubeConfig.fromFile(path));
  }

  loadFromString(text: string): void {
    this.assign(KubeConfig.fromString(text));
  }

  /** client-node's loadFromCluster: the pod's service account (inCluster()). */
  loadFromCluster(options: LoadOptions = {}): void {
    this.assign(KubeConfig.inCluster(options));
  }

  getCurrentContext(): string {
    return this.currentContext;
  }

  setCurrentContext(name: string): void {
    this.getContext(name);
    this.currentContext = name;
  }

  getContexts(): KubeConfigContext[] {
    return this.contexts;
  }

  getClusters(): KubeConfigCluster[] {
    return this.clusters;
  }

  getUsers(): KubeConfigUser[] {
    return this.users;
  }

  /** The current context's cluster, or null (client-node's). */
  getCurrentCluster(): KubeConfigCluster | null {
    const context = this.contexts.find((c) => c.name === this.currentContext);
    return (context && this.clusters.find((c) => c.name === context.cluster)) ?? null;
  }

  /** The current context's user, or null (client-node's). */
  getCurrentUser(): KubeConfigUser | null {
    const context = this.contexts.find((c) => c.name === this.currentContext);
    return (context && this.users.find((u) => u.name === context.user)) ?? null;
  }

  static fromString(text: string, options: { path?: string } = {}): KubeConfig {
    const data = parseKubeConfig(text, options.path);
    if (options.path !== undefined) resolvePaths(data, dirname(resolve(options.path)));
    return new KubeConfig(data, options.path !== undefined ? [options.path] : []);
  }

  static fromFile(path: string): KubeConfig {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      throw new KubeConfigError(`error loading config file "${path}": ${(err as Error).message}`, {
        cause: err,
      });
    }
    return KubeConfig.fromString(text, { path });
  }

  /**
   * Merges the files that exist, in order (kubectl's rules); missing files are skipped, an
   * unreadable or malformed one is an error. Duplicates are read once.
   */
  static fromFiles(paths: readonly string[]): KubeConfig {
    const files = [...new Set(paths.filter((p) => p !== ''))].filter((p) => existsSync(p));
    const loaded = files.map((p) => KubeConfig.fromFile(p));
    return new KubeConfig(mergeKubeConfigs(loaded), files);
  }

  /**
   * The pod's own identity (client-go rest.InClusterConfig): the apiserver at
   * `KUBERNETES_SERVICE_HOST:KUBERNETES_SERVICE_PORT`, the service-account token (re-read as it
   * rotates), its CA, and its namespace.
   */
  static inCluster(options: LoadOptions = {}): KubeConfig {
    const env = options.env ?? process.env;
    const dir = options.serviceAccountDir ?? SERVICE_ACCOUNT_DIR;
    const host = env.KUBERNETES_SERVICE_HOST;
    const port = env.KUBERNETES_SERVICE_PORT;
    if (!host || !port) {
      throw new KubeConfigError(
        'unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined',
      );
    }
    const tokenFile = join(dir, 'token');
    if (!existsSync(tokenFile)) {
      throw new KubeConfigError(
        `unable to load in-cluster configuration: no token at ${tokenFile}`,
      );
    }
    const caFile = join(dir, 'ca.crt');
    let namespace = env.POD_NAMESPACE;
    if (!namespace) {
      try {
        namespace = readFileSync(join(dir, 'namespace'), 'utf8').trim();
      } catch {
        namespace = undefined;
      }
    }
    const server = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
    return new KubeConfig(
      {
        clusters: [
          {
            name: 'in-cluster',
            server,
            ...(existsSync(caFile) ? { certificateAuthority: caFile } : {}),
          },
        ],
        users: [{ name: 'in-cluster', tokenFile }],
        contexts: [
          {
            name: 'in-cluster',
            cluster: 'in-cluster',
            user: 'in-cluster',
            namespace: namespace || 'default',
          },
        ],
        currentContext: 'in-cluster',
      },
      ['in-cluster'],
    );
  }

  /**
   * kubectl's lookup: the files of `$KUBECONFIG` (a path list, merged) if set, else
   * `~/.kube/config`; if that yields no usable context, the in-cluster configuration.
   */
  static loadDefault(options: LoadOptions = {}): KubeConfig {
    const env = options.env ?? process.env;
    const list = env.KUBECONFIG;
    const paths =
      list !== undefined && list !== ''
        ? list.split(delimiter)
        : [join(options.homeDir ?? homedir(), '.kube', 'config')];
    const merged = KubeConfig.fromFiles(paths);
    if (merged.currentContext !== '' || merged.clusters.length > 0) return merged;
    try {
      return KubeConfig.inCluster(options);
    } catch (err) {
      throw new KubeConfigError(
        `no configuration has been provided (looked in ${paths.join(', ')} and the in-cluster environment)`,
        { cause: err },
      );
    }
  }

  /** A copy using another context. */
  withContext(name: string): KubeConfig {
    if (!this.contexts.some((c) => c.name === name)) {
      throw new KubeConfigError(`context "${name}" does not exist`);
    }
    return new KubeConfig({ ...this, currentContext: name }, this.sources);
  }

  getContext(name = this.currentContext): KubeConfigContext {
    if (name === '') throw new KubeConfigError('no current context is set');
    const context = this.contexts.find((c) => c.name === name);
    if (!context) throw new KubeConfigError(`context "${name}" does not exist`);
    return context;
  }

  getCluster(name: string): KubeConfigCluster {
    const cluster = this.clusters.find((c) => c.name === name);
    if (!cluster) throw new KubeConfigError(`cluster "${name}" does not exist`);
    return cluster;
  }

  /** A context may name no user (anonymous access); a missing named user is an error. */
  getUser(name: string): KubeConfigUser | undefined {
    if (name === '') return undefined;
    const user = this.users.find((u) => u.name === name);
    if (!user) throw new KubeConfigError(`user "${name}" does not exist`);
    return user;
  }

  /** The current context's namespace, `default` when unset. */
  namespace(context?: string): string {
    return this.getContext(context).namespace || 'default';
  }

  /** Everything a RestClient needs, with certificate files read and credentials wired. */
  restConfig(options: RestConfigOptions = {}): RestConfig {
    const context = this.getContext(options.context);
    const cluster = this.getCluster(context.cluster);
    const user = this.getUser(context.user);
    if (cluster.server === '') {
      throw new KubeConfigError(`no server found for cluster "${cluster.name}"`);
    }
    const insecure = cluster.insecureSkipTlsVerify ?? false;
    if (insecure && (cluster.certificateAuthority || cluster.certificateAuthorityData)) {
      throw new KubeConfigError(
        `cluster "${cluster.name}": specifying a root certificates file with the insecure flag is not allowed`,
      );
    }
    const ca = cluster.certificateAuthorityData
      ? decodeData(cluster.certificateAuthorityData, 'certificate-authority-data')
      : cluster.certificateAuthority
        ? readPem(cluster.certificateAuthority, 'certificate-authority')
        : undefined;

    const tls: TlsConfig = {
      ...opt('ca', ca),
      ...opt('servername', cluster.tlsServerName),
      ...(insecure ? { insecureSkipTlsVerify: true } : {}),
    };
    return {
      server: cluster.server,
      tls,
      credentials: this.credentialsFor(user, cluster, ca, options),
      namespace: context.namespace || 'default',
      ...opt('proxyUrl', cluster.proxyUrl),
    };
  }

  private credentialsFor(
    user: KubeConfigUser | undefined,
    cluster: KubeConfigCluster,
    ca: string | undefined,
    options: RestConfigOptions,
  ): CredentialProvider {
    if (!user) return anonymousCredentials;
    const common = { ...opt('clock', options.clock), ...opt('logger', options.logger) };
    const cert = user.clientCertificateData
      ? decodeData(user.clientCertificateData, 'client-certificate-data')
      : user.clientCertificate
        ? readPem(user.clientCertificate, 'client-certificate')
        : undefined;
    const key = user.clientKeyData
      ? decodeData(user.clientKeyData, 'client-key-data')
      : user.clientKey
        ? readPem(user.clientKey, 'client-key')
        : undefined;
    if ((cert === undefined) !== (key === undefined)) {
      throw new KubeConfigError(
        `user "${user.name}": client-certificate and client-key must be set together`,
      );
    }
    let header: CredentialProvider | undefined;
    // With both, the file wins and the inline token covers for it while it cannot be read
    // (client-go NewBearerAuthWithRefreshRoundTripper).
    if (user.tokenFile) {
      header = new TokenFileProvider(user.tokenFile, {
        ...common,
        ...opt('initialToken', user.token),
      });
    } else if (user.token) header = bearerToken(user.token);
    else if (user.username !== undefined || user.password !== undefined) {
      header = basicAuth(user.username ?? '', user.password ?? '');
    }
    // A token, basic auth or a certificate in the kubeconfig is used as given; the exec plugin
    // only runs without them (client-go exec.Authenticator.UpdateTransportConfig).
    if (!header && cert === undefined && user.exec) {
      const info: ExecClusterInfo = {
        server: cluster.server,
        ...opt('tls-server-name', cluster.tlsServerName),
        ...opt('insecure-skip-tls-verify', cluster.insecureSkipTlsVerify),
        ...opt(
          'certificate-authority-data',
          ca === undefined ? undefined : Buffer.from(ca).toString('base64'),
        ),
        ...opt('proxy-url', cluster.proxyUrl),
        ...opt('config', cluster.execExtension),
      };
      return new ExecCredentialProvider(user.exec, { cluster: info, ...common });
    }
    if (cert !== undefined && key !== undefined) {
      const certs = clientCertificate(cert, key);
      if (!header) return certs;
      const headerProvider = header;
      return {
        credentials: async () => ({
          ...(await headerProvider.credentials()),
          ...(await certs.credentials()),
        }),
        unauthorized: (used) => headerProvider.unauthorized?.(used) ?? false,
      };
    }
    return header ?? anonymousCredentials;
  }
}
