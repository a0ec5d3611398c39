import { builtinResources, type Logger, type ResourceDefinition } from '@listwatch/api';
import {
  createStorage,
  DEFAULT_PREFIX,
  type Storage,
  type StorageBackend,
} from '@listwatch/storage';
import { readFileSync } from 'node:fs';
import type { SecureVersion } from 'node:tls';
import { apiServices } from './apiregistration/apiservice-resource.js';
import { customResourceDefinitions } from './apiextensions/customresourcedefinition-resource.js';
import { FileAuditLog } from './audit/audit-log.js';
import { loadAuditPolicy, METADATA_POLICY } from './audit/audit-policy.js';
import { RequestAuthenticator } from './authentication/request-authenticator.js';
import {
  serviceAccountTokensOf,
  type ServiceAccountTokens,
} from './authentication/service-account-options.js';
import type { ObjectGetter } from './authentication/service-account-token.js';
import { TokenFile } from './authentication/token-file.js';
import {
  alwaysAllow,
  alwaysDeny,
  privilegedGroups,
  unionAuthorizer,
  type AuthorizationMode,
} from './authorization/authorizer.js';
import { ensureBootstrapPolicy } from './authorization/bootstrap-policy.js';
import { RbacAuthorizer } from './authorization/rbac-authorizer.js';
import { RbacPolicyStore } from './authorization/rbac-policy-store.js';
import { RequestAuthorizer } from './authorization/request-authorizer.js';
import { loadEncryptionConfig } from './encryption/encryption-config.js';
import type { ApiServerMetrics } from './metrics.js';
import { HostFilter } from './middleware/host-filter.js';
import type { CorsPolicy } from './middleware/cors.js';
import { WatchLimiter } from './middleware/limits.js';
import type { ResourceRegistry, WatchCacheSizes } from './registry/resource-registry.js';
import type { ServerContext } from './server-context.js';

// An apiserver's configuration (kube's cmd/kube-apiserver/app/options and
// k8s.io/apiserver pkg/server/config.go): the options, and what they make before anything
// listens: storage, watch cache sizes, authentication, authorization and the ServerContext every
// request reads. Listening is transports/listeners.ts's; stopping, server-shutdown.ts's.

export interface ApiServerOptions {
  bindAddress?: string;
  /** 0: a random free port. Default 8080. */
  port?: number;
  /** PEM strings; both set: TLS with HTTP/2 (ALPN) and HTTP/1.1 on the same port. */
  tlsCert?: string;
  tlsKey?: string;
  /** `--tls-min-version` as Node names it (default TLSv1.2, kube's VersionTLS12). */
  tlsMinVersion?: SecureVersion;
  /** `--tls-cipher-suites` as an OpenSSL cipher list (default: Node's, all AEAD first). */
  tlsCiphers?: string;
  /** An open storage to serve (tests); otherwise one is created from the options below. */
  storage?: Storage;
  storageBackend?: StorageBackend;
  dataDir?: string;
  etcdServers?: string[];
  etcdPrefix?: string;
  /** ms; 0 disables (default 5 min). */
  etcdCompactionInterval?: number;
  defaultWatchCacheSize?: number;
  watchCacheSizes?: Record<string, number>;
  /**
   * Keep each cached object's encoding once a LIST has written it, so the next LIST served by the
   * watch cache copies bytes instead of encoding again (default true). It costs about the size
   * of the objects' JSON in memory, on top of the cache.
   */
  watchCacheListEncodings?: boolean;
  /**
   * Whether each watch event is encoded once for all watchers (kube's cachingObject; default
   * true). False encodes it again for every watcher: the baseline the fanout benchmark compares
   * against, not a setting to serve with.
   */
  watchEncodeOnce?: boolean;
  minRequestTimeoutSeconds?: number;
  maxRequestsInflight?: number;
  maxMutatingRequestsInflight?: number;
  maxRequestBodyBytes?: number;
  /**
   * `--max-watches-per-user` (default 0: no limit, as kube-apiserver): watches one user may hold
   * open, past which a watch is 429 with Retry-After. Not a kube-apiserver flag.
   */
  maxWatchesPerUser?: number;
  /**
   * `--audit-log-path`: audit.k8s.io/v1 Events, one JSON line per request stage, at the level
   * `auditPolicyFile` gives (default Metadata: no bodies); `-` is standard output.
   */
  auditLogPath?: string;
  /**
   * `--audit-policy-file`: an audit.k8s.io/v1 Policy deciding each request's level (None,
   * Metadata, Request, RequestResponse) and omitted stages; default every request at Metadata.
   */
  auditPolicyFile?: string;
  /**
   * `--encryption-provider-config`: an EncryptionConfiguration file; the resources it names are
   * stored encrypted (aescbc, aesgcm, secretbox). Ignored with `storage`.
   */
  encryptionProviderConfig?: string;
  /**
   * `--request-timeout` (ms, default 1 min): a request's body must have arrived within this, or it
   * is answered 408 and its connection closed. Watches are long-running and not bound by it.
   */
  requestTimeout?: number;
  /**
   * ms (default 32 s, kube-apiserver's ReadHeaderTimeout): a connection must send its first
   * request's headers within this; an HTTP/2 connection with no stream open is closed after it.
   */
  requestHeaderTimeout?: number;
  /**
   * `--accept-hosts`: regular expressions for host names (beyond IP literals and localhost) that
   * requests may name in Host and pages may come from (Origin); guards against DNS rebinding and
   * cross-site watches while the server has no authentication.
   */
  acceptHosts?: string[];
  /**
   * `--cors-allowed-origins` (default none: CORS off): regular expressions matched against a
   * request's Origin; a match gets the Access-Control-* headers and its preflight a 204
   * (k8s.io/apiserver pkg/server/filters/cors.go). Each must pin the start (`^` or `//`) and
   * end (`$` or `:`) of the host, as kube-apiserver requires.
   */
  corsAllowedOrigins?: string[];
  /** `--client-ca-file` as PEM: TLS clients may present certificates it signed (user CN, groups O). */
  clientCA?: string;
  /** `--token-auth-file`: static bearer tokens, `token,user,uid,"group1,group2"` per line. */
  tokenAuthFile?: string;
  /** `--anonymous-auth` (default true): requests without credentials are system:anonymous. */
  anonymousAuth?: boolean;
  /**
   * `--insecure-allow-anonymous-admin`: serve off loopback although requests without credentials
   * may do anything (anonymous auth with AlwaysAllow, the defaults). Without it such a server
   * refuses to start, embedded or not.
   */
  insecureAllowAnonymousAdmin?: boolean;
  /**
   * `--service-account-issuer` (repeatable): the `iss` of issued service-account tokens (the
   * first) and the issuers whose tokens are accepted (all). Without it there are no such tokens.
   */
  serviceAccountIssuers?: string[];
  /**
   * `--service-account-key-file` (repeatable): PEM files of RSA or ECDSA keys (public, private or
   * certificates) that verify service-account tokens. Default: the signing key's public half,
   * else the TLS serving key.
   */
  serviceAccountKeyFiles?: string[];
  /** `--service-account-signing-key-file`: the PEM private key that signs TokenRequest tokens. */
  serviceAccountSigningKeyFile?: string;
  /** `--service-account-jwks-uri`: the jwks_uri of the issuer discovery document. */
  serviceAccountJwksUri?: string;
  /** `--api-audiences`: what a service-account token must be for (default: the issuers). */
  apiAudiences?: string[];
  /**
   * `--authorization-mode` (default AlwaysAllow): the authorizers asked in turn; `RBAC` serves and
   * enforces rbac.authorization.k8s.io/v1 with kube's default roles. system:masters may always.
   */
  authorizationMode?: AuthorizationMode[];
  definitions?: readonly ResourceDefinition[];
  /** Default: JSON lines on stderr at warn (the bin: info, `--log-level`). */
  logger?: Logger;
  /** Bookmark frequency of the watch caches (kube: 1 min; tests shorten it). */
  bookmarkIntervalMs?: number;
}

/** What a server serves unless told otherwise: the built-ins and CRDs. */
export const servedResources: readonly ResourceDefinition[] = [
  ...builtinResources,
  customResourceDefinitions,
  apiServices,
];

export function isLoopback(address: string): boolean {
  return address === 'localhost' || address === '::1' || address.startsWith('127.');
}

/**
 * The defaults (anonymous requests, AlwaysAllow) make whoever connects cluster-admin: safe on
 * loopback only (with the host filter against web pages). Off loopback the server refuses to
 * start unless told that is meant, rather than serve the network without a word. Anonymous
 * requests under RBAC get only what kube's default roles give them (health, version). Whatever
 * serves the API on an address applies it (the demo's replica balancer too).
 */
export function refuseAnonymousAdminOffLoopback(
  options: Pick<
    ApiServerOptions,
    'bindAddress' | 'authorizationMode' | 'anonymousAuth' | 'insecureAllowAnonymousAdmin'
  >,
  logger: Logger,
): void {
  const bindAddress = options.bindAddress ?? '127.0.0.1';
  const modes = options.authorizationMode ?? ['AlwaysAllow'];
  if (isLoopback(bindAddress) || options.anonymousAuth === false || !modes.includes('AlwaysAllow'))
    return;
  if (options.insecureAllowAnonymousAdmin === true) {
    logger.warn('anyone who reaches the port is cluster-admin (--insecure-allow-anonymous-admin)', {
      bindAddress,
    });
    return;
  }
  throw new Error(
    `refusing to serve on ${bindAddress || 'every address'}: requests without credentials would be allowed everything ` +
      '(--anonymous-auth defaults to true, --authorization-mode to AlwaysAllow), so anyone who can reach the port would be cluster-admin. ' +
      'Add authentication (--token-auth-file, or --client-ca-file with --tls-cert-file and --tls-private-key-file) ' +
      'with --anonymous-auth=false, and authorization with --authorization-mode RBAC; ' +
      'or bind to 127.0.0.1; or add --insecure-allow-anonymous-admin to serve it anyway',
  );
}

/**
 * Reads what service-account tokens name (the validator's getter): the watch cache first, then
 * storage when the cache has not seen it (kube's lister, then a live GET).
 */
function objectGetter(registry: ResourceRegistry): ObjectGetter {
  return async (resource, namespace, name) => {
    const source = registry.lookup('', 'v1', resource)?.source;
    if (!source) return undefined;
    const scope = namespace !== undefined ? { namespace } : {};
    return (
      (await source.get({ ...scope, name, resourceVersion: '0' })) ??
      (await source.get({ ...scope, name }))
    );
  };
}

/**
 * The authenticators the options configure. Tokens sent in the clear would be anyone's on the
 * network, so a token file or service-account tokens need TLS unless the server only listens on
 * loopback.
 */
export function authenticatorOf(
  options: ApiServerOptions,
  serviceAccounts: ServiceAccountTokens | undefined,
): RequestAuthenticator {
  const tls = options.tlsCert !== undefined && options.tlsKey !== undefined;
  if (options.clientCA !== undefined && !tls)
    throw new Error('--client-ca-file needs --tls-cert-file and --tls-private-key-file');
  if (
    (options.tokenAuthFile !== undefined || serviceAccounts !== undefined) &&
    !tls &&
    !isLoopback(options.bindAddress ?? '127.0.0.1')
  )
    throw new Error(
      'bearer tokens over plain HTTP would be readable on the network: serve TLS (--tls-cert-file) or bind to loopback',
    );
  return new RequestAuthenticator({
    ...(serviceAccounts ? { serviceAccountTokens: serviceAccounts.authenticator } : {}),
    ...(options.tokenAuthFile !== undefined
      ? {
          tokens: TokenFile.parse(
            readFileSync(options.tokenAuthFile, 'utf8'),
            options.tokenAuthFile,
          ),
        }
      : {}),
    clientCertificates: options.clientCA !== undefined,
    anonymous: options.anonymousAuth ?? true,
  });
}

/**
 * The authorizer `--authorization-mode` asks for; with RBAC, the default roles are ensured
 * through the registry as the loopback client and the policy followed through the RBAC Stores
 * (their watch caches, so the registry is started first) before the first request.
 */
export async function startAuthorizer(
  options: ApiServerOptions,
  registry: ResourceRegistry,
  authenticator: RequestAuthenticator,
  logger: Logger,
): Promise<{ authorizer: RequestAuthorizer; policy: RbacPolicyStore | undefined }> {
  const modes = options.authorizationMode ?? ['AlwaysAllow'];
  const policy = modes.includes('RBAC') ? new RbacPolicyStore(registry) : undefined;
  const authorizer = new RequestAuthorizer(
    unionAuthorizer([
      privilegedGroups,
      ...modes.map((mode) =>
        mode === 'RBAC'
          ? new RbacAuthorizer(policy!)
          : mode === 'AlwaysDeny'
            ? alwaysDeny
            : alwaysAllow,
      ),
    ]),
    policy && ((listener) => policy.onChange(listener)),
  );
  if (policy) {
    // The loopback user is system:masters: the privileged-groups authorizer admits its writes.
    const loopback = { authorizer, authenticator, logger };
    await ensureBootstrapPolicy(registry, loopback);
    await policy.start(loopback);
  }
  return { authorizer, policy };
}

/** The storage the options name (an open one given, or one created with its transformers). */
export function storageOf(
  options: ApiServerOptions,
  definitions: readonly ResourceDefinition[],
): Storage {
  const storagePrefix = options.etcdPrefix ?? DEFAULT_PREFIX;
  return (
    options.storage ??
    createStorage({
      backend: options.storageBackend ?? 'sqlite',
      ...(options.encryptionProviderConfig !== undefined
        ? {
            transformerFor: loadEncryptionConfig(
              options.encryptionProviderConfig,
              storagePrefix,
              definitions,
            ),
          }
        : {}),
      ...(options.dataDir !== undefined ? { dataDir: options.dataDir } : {}),
      ...(options.etcdServers !== undefined ? { endpoints: options.etcdServers } : {}),
      ...(options.etcdPrefix !== undefined ? { prefix: options.etcdPrefix } : {}),
      ...(options.etcdCompactionInterval !== undefined
        ? { compactionInterval: options.etcdCompactionInterval }
        : {}),
    })
  );
}

/** `--default-watch-cache-size` and `--watch-cache-sizes`. */
export function watchCacheSizesOf(options: ApiServerOptions): WatchCacheSizes {
  return {
    ...(options.defaultWatchCacheSize !== undefined
      ? { default: options.defaultWatchCacheSize }
      : {}),
    ...(options.watchCacheSizes ? { perResource: options.watchCacheSizes } : {}),
  };
}

/** Service-account tokens (issuing and validating), when the options configure them. */
export function serviceAccountsOf(
  options: ApiServerOptions,
  registry: ResourceRegistry,
): ServiceAccountTokens | undefined {
  return serviceAccountTokensOf(
    {
      ...(options.serviceAccountIssuers ? { issuers: options.serviceAccountIssuers } : {}),
      ...(options.serviceAccountKeyFiles ? { keyFiles: options.serviceAccountKeyFiles } : {}),
      ...(options.serviceAccountSigningKeyFile !== undefined
        ? { signingKeyFile: options.serviceAccountSigningKeyFile }
        : {}),
      ...(options.apiAudiences ? { apiAudiences: options.apiAudiences } : {}),
      ...(options.tlsKey !== undefined ? { tlsKey: options.tlsKey } : {}),
    },
    objectGetter(registry),
  );
}

/** What every request reads: the parts made above and the limits the options set. */
export function serverContextOf(
  options: ApiServerOptions,
  parts: {
    registry: ResourceRegistry;
    storage: Storage;
    logger: Logger;
    metrics: ApiServerMetrics;
    authenticator: RequestAuthenticator;
    serviceAccounts: ServiceAccountTokens | undefined;
    authorizer: RequestAuthorizer;
    cors: CorsPolicy;
  },
): ServerContext {
  const { logger, serviceAccounts, cors, ...rest } = parts;
  return {
    ...rest,
    logger,
    minRequestTimeoutSeconds: options.minRequestTimeoutSeconds ?? 1800,
    maxRequestBodyBytes: options.maxRequestBodyBytes ?? 3 * 1024 * 1024,
    requestTimeoutMs: options.requestTimeout ?? 60_000,
    serviceAccountTokens: serviceAccounts,
    cors,
    hostFilter: HostFilter.parse(options.acceptHosts ?? [], (origin) => cors.allows(origin)),
    listEncodings:
      options.watchCacheListEncodings === false
        ? undefined
        : { json: new WeakMap(), cbor: new WeakMap(), protobuf: new WeakMap() },
    watchEncodeOnce: options.watchEncodeOnce ?? true,
    watchLimiter: new WatchLimiter(options.maxWatchesPerUser ?? 0),
    auditPolicy:
      options.auditPolicyFile !== undefined
        ? loadAuditPolicy(options.auditPolicyFile)
        : METADATA_POLICY,
    audit:
      options.auditLogPath !== undefined
        ? new FileAuditLog(options.auditLogPath, (error) =>
            logger.error('audit event not stored', { error: String(error) }),
          )
        : undefined,
    shuttingDown: false,
  };
}
