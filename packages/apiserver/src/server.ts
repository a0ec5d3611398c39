import { builtinResources, type Logger, type ResourceDefinition } from '@listwatch/api';
import type { SecureVersion } from 'node:tls';
import {
  createStorage,
  DEFAULT_PREFIX,
  type Storage,
  type StorageBackend,
} from '@listwatch/storage';
import { loadEncryptionConfig } from './encryption/encryption-config.js';
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server as HttpServer,
} from 'node:http';
import {
  createSecureServer,
  createServer as createH2cServer,
  type Http2SecureServer,
  type Http2Server,
  type ServerHttp2Session,
  type ServerHttp2Stream,
} from 'node:http2';
import {
  createServer as createNetServer,
  type AddressInfo,
  type Server as NetServer,
  type Socket,
} from 'node:net';
import { readFileSync } from 'node:fs';
import type { Duplex } from 'node:stream';
import { createApp } from './app.js';
import { CustomResourceDefinitionHandler } from './apiextensions/crd-handler.js';
import { APIServiceController } from './apiregistration/apiservice-controller.js';
import { apiServices } from './apiregistration/apiservice-resource.js';
import { customResourceDefinitions } from './apiextensions/customresourcedefinition-resource.js';
import { FileAuditLog } from './audit/audit-log.js';
import { loadAuditPolicy, METADATA_POLICY } from './audit/audit-policy.js';
import { jsonLogger } from './logger.js';
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
import { ApiServerMetrics } from './metrics.js';
import { HostFilter } from './middleware/host-filter.js';
import { WatchLimiter } from './middleware/limits.js';
import { ensureSystemNamespaces } from './registry/namespace-lifecycle.js';
import { startKubernetesService } from './registry/kubernetes-service.js';
import { ResourceRegistry, type WatchCacheSizes } from './registry/resource-registry.js';
import { ServiceAccountsController } from './registry/service-accounts-controller.js';
import type { ServerContext } from './server-context.js';
import { tlsVersionAndCiphers } from './tls-options.js';
import { openIDMetadata } from './authentication/openid-metadata.js';
import { isWebSocketUpgrade, serveIgnoringUpgrade } from './transports/ignored-upgrade.js';
import {
  HTTP_TO_HTTPS_ANSWER,
  plainPortProtocol,
  sniffProtocol,
  tlsPortProtocol,
} from './transports/protocol-sniffer.js';
import { webSocketWatch } from './transports/websocket-watch.js';

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

export interface RunningApiServer {
  /** `http://127.0.0.1:PORT` (or https). */
  url: string;
  port: number;
  storage: Storage;
  context: ServerContext;
  /** SIGTERM semantics: stop accepting, end watches cleanly, finish in-flight writes, close storage. */
  close(): Promise<void>;
}

/** What a server serves unless told otherwise: the built-ins and CRDs. */
const servedResources: readonly ResourceDefinition[] = [
  ...builtinResources,
  customResourceDefinitions,
  apiServices,
];

/**
 * Request line and headers may take 1 MiB, as kube-apiserver's MaxHeaderBytes (secure_serving.go);
 * beyond it HTTP/1.1 is answered 431 (Node's default is 16 KiB, too little for long selectors).
 */
const MAX_HEADER_BYTES = 1024 * 1024;

// Flow-control windows raised so HTTP/2 watches are not throttled (nodejs/node#50972).
const H2_SETTINGS = {
  initialWindowSize: 4 * 1024 * 1024,
  maxConcurrentStreams: 250,
  maxHeaderListSize: MAX_HEADER_BYTES,
};
const H2_SESSION_WINDOW = 16 * 1024 * 1024;

/** How long shutdown answers re-watches 429 after ending the watch streams. */
const RETRY_AFTER_WINDOW_MS = 250;

/** How long shutdown waits for in-flight requests before closing connections. */
const SHUTDOWN_GRACE_MS = 10_000;

/** How long idle keep-alive connections may still bring a request once shutdown has begun. */
const SHUTDOWN_LINGER_MS = 2_000;
const SHUTDOWN_QUIET_MS = 250;

/**
 * Closes an HTTP/2 session that has had no stream open for `idleMs`: a connection that never asks
 * for anything (or floods frames and never reads) holds no socket for long, while one carrying a
 * quiet watch stays.
 */
function closeIdleSessions(server: Http2Server | Http2SecureServer, idleMs: number): void {
  server.on('session', (session: ServerHttp2Session) => {
    let open = 0;
    // One listener per session, added to each stream ('close' comes once): none per stream.
    const closed = () => open--;
    session.on('stream', (stream: ServerHttp2Stream) => {
      open++;
      stream.on('close', closed);
    });
    session.setTimeout(idleMs, () => {
      if (open !== 0) return;
      session.close();
      // A peer that reads nothing never takes the GOAWAY, and a graceful close waits for it to
      // be written: a session not gone after another idle period is destroyed.
      setTimeout(() => session.destroy(), idleMs).unref();
    });
  });
}

/** A connection's 'error' listener: one function for all of them, nothing kept per connection. */
function destroySocket(this: Socket): void {
  this.destroy();
}

function isLoopback(address: string): boolean {
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
function authenticatorOf(
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
 * The authorizer `--authorization-mode` asks for; with RBAC, the default roles are ensured and the
 * policy followed from storage before the first request.
 */
async function startAuthorizer(
  options: ApiServerOptions,
  storage: Storage,
  logger: Logger,
): Promise<{ authorizer: RequestAuthorizer; policy: RbacPolicyStore | undefined }> {
  const modes = options.authorizationMode ?? ['AlwaysAllow'];
  let policy: RbacPolicyStore | undefined;
  if (modes.includes('RBAC')) {
    await ensureBootstrapPolicy(storage);
    policy = new RbacPolicyStore(storage, logger);
    await policy.start();
  }
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
  return { authorizer, policy };
}

/** Starts a Kubernetes-compatible apiserver; resolves once every watch cache is ready. */
export async function startApiServer(options: ApiServerOptions = {}): Promise<RunningApiServer> {
  // Embedded, a server is quiet unless something is wrong; the bin logs at info.
  const logger = options.logger ?? jsonLogger('warn');
  refuseAnonymousAdminOffLoopback(options, logger);
  const definitions = options.definitions ?? servedResources;
  const storagePrefix = options.etcdPrefix ?? DEFAULT_PREFIX;
  const storage =
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
    });
  const metrics = new ApiServerMetrics();
  const watchCacheSizes: WatchCacheSizes = {
    ...(options.defaultWatchCacheSize !== undefined
      ? { default: options.defaultWatchCacheSize }
      : {}),
    ...(options.watchCacheSizes ? { perResource: options.watchCacheSizes } : {}),
  };
  const registry = new ResourceRegistry(storage, definitions, {
    watchCacheSizes,
    logger,
    metrics: metrics.cacher,
    ...(options.bookmarkIntervalMs ? { bookmarkIntervalMs: options.bookmarkIntervalMs } : {}),
  });
  const serviceAccounts = serviceAccountTokensOf(
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
  registry.serviceAccountTokens = serviceAccounts;
  // Options that refuse to start do so before the authorizer follows storage.
  const authenticator = authenticatorOf(options, serviceAccounts);
  const { authorizer, policy } = await startAuthorizer(options, storage, logger);
  const context: ServerContext = {
    registry,
    storage,
    logger,
    metrics,
    minRequestTimeoutSeconds: options.minRequestTimeoutSeconds ?? 1800,
    maxRequestBodyBytes: options.maxRequestBodyBytes ?? 3 * 1024 * 1024,
    requestTimeoutMs: options.requestTimeout ?? 60_000,
    authenticator,
    serviceAccountTokens: serviceAccounts,
    hostFilter: HostFilter.parse(options.acceptHosts ?? []),
    authorizer,
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
  await ensureSystemNamespaces(registry, context);
  // Every namespace's `default` ServiceAccount, as kube-controller-manager keeps them.
  const serviceAccountsController = ServiceAccountsController.of(registry, context);
  await serviceAccountsController?.start();
  await registry.start();
  // Custom resources in storage are served before the server answers, so before /readyz is ok.
  const crdHandler = registry.lookup(
    customResourceDefinitions.group,
    customResourceDefinitions.version,
    customResourceDefinitions.plural,
  )
    ? new CustomResourceDefinitionHandler(registry, logger)
    : undefined;
  await crdHandler?.start();
  // Local APIServices for what is served (CRDs' included), before the server answers.
  const apiServiceController = registry.lookup(
    apiServices.group,
    apiServices.version,
    apiServices.plural,
  )
    ? new APIServiceController(registry, logger)
    : undefined;
  await apiServiceController?.start();
  if (apiServiceController) context.apiServices = apiServiceController;
  const app = createApp(context, {
    readOnly: options.maxRequestsInflight ?? 400,
    mutating: options.maxMutatingRequestsInflight ?? 200,
  });
  const callback = app.callback();
  // Requests being served: shutdown waits for them (writes acknowledged are never cut off).
  let active = 0;
  let lastRequestAt = 0;
  let drained: (() => void) | undefined;
  // One listener for every response ('close' comes once): no closure per open watch.
  const responseClosed = () => {
    if (--active === 0) drained?.();
  };
  const handler = (
    req: Parameters<typeof callback>[0],
    res: Parameters<typeof callback>[1],
  ): void => {
    active++;
    lastRequestAt = Date.now();
    // While shutting down, an HTTP/1.1 connection closes after its response, so its client's
    // next request opens a new one, which a load balancer sends to another replica.
    if (context.shuttingDown && req.httpVersionMajor === 1) res.setHeader('Connection', 'close');
    res.on('close', responseClosed);
    // Shutting down: no connection is kept for another request (WithRetryAfter's
    // Connection: close), so clients reconnect, to the next apiserver, rather than reuse one
    // about to close.
    if (context.shuttingDown && 'shouldKeepAlive' in res) res.shouldKeepAlive = false;
    void callback(req, res);
  };
  const webSocket = webSocketWatch(context);
  const upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    if (isWebSocketUpgrade(req)) webSocket(req, socket, head);
    else serveIgnoringUpgrade(req, socket, head, handler);
  };

  // Timeouts for clients that connect and then stall. Node checks them every
  // connectionsCheckingInterval (default 30 s); a second keeps them close to what they say.
  const headersTimeout = options.requestHeaderTimeout ?? 32_000;
  const timeouts = {
    maxHeaderSize: MAX_HEADER_BYTES,
    headersTimeout,
    // A backstop for bodies no handler reads; the request-body middleware answers 408 first.
    requestTimeout: context.requestTimeoutMs + headersTimeout,
    connectionsCheckingInterval: Math.min(1000, Math.max(50, headersTimeout / 4)),
  };
  // Watches are long-running: Node's request timeout only covers receiving the request.
  const http1: HttpServer = createHttpServer({ ...timeouts, keepAliveTimeout: 65_000 }, handler);
  http1.on('upgrade', upgrade);
  const raiseWindow = (server: Http2Server | Http2SecureServer) =>
    server.on('session', (session) => session.setLocalWindowSize(H2_SESSION_WINDOW));
  // A connection must have said what it speaks (and on TLS, finished its handshake) within the
  // header timeout, as Go's server bounds the handshake by ReadHeaderTimeout
  // (tlsHandshakeTimeout, server.go); a client sending nothing, or a byte at a time, is closed.
  const deadline = (socket: Socket, settled?: () => void): (() => void) => {
    const timer = setTimeout(() => socket.destroy(), headersTimeout);
    const clear = () => {
      clearTimeout(timer);
      socket.off('close', clear);
      settled?.();
    };
    socket.on('close', clear);
    return clear;
  };
  let h2c: Http2Server | undefined;
  let secure: Http2SecureServer | undefined;
  let accept: (socket: Socket) => void;
  if (options.tlsCert && options.tlsKey) {
    const tlsServer = createSecureServer(
      {
        cert: options.tlsCert,
        key: options.tlsKey,
        allowHTTP1: true,
        settings: H2_SETTINGS,
        ...tlsVersionAndCiphers(options.tlsMinVersion, options.tlsCiphers),
        // Asked for, not required: verified by the authenticator, which answers 401 (x509.go).
        ...(options.clientCA !== undefined
          ? { ca: options.clientCA, requestCert: true, rejectUnauthorized: false }
          : {}),
      },
      handler,
    );
    secure = tlsServer;
    // Its HTTP/1.1 connections are checked by Node as http1's are (set before 'listening').
    Object.assign(tlsServer, timeouts);
    tlsServer.on('upgrade', upgrade);
    raiseWindow(tlsServer);
    closeIdleSessions(tlsServer, headersTimeout);
    // Connections in their handshake, by remote address (the TLS socket has the raw one's).
    const handshaking = new Map<string, () => void>();
    tlsServer.on('secureConnection', (socket: Socket) =>
      handshaking.get(`${socket.remoteAddress}:${socket.remotePort}`)?.(),
    );
    accept = (socket) => {
      const key = `${socket.remoteAddress}:${socket.remotePort}`;
      // Cleared by the handshake's end or the connection's; nothing stays on it after.
      handshaking.set(
        key,
        deadline(socket, () => handshaking.delete(key)),
      );
      sniffProtocol(socket, tlsPortProtocol, (protocol) => {
        if (protocol !== 'http') return void tlsServer.emit('connection', socket);
        // Plain HTTP on the TLS port: Go's 400 rather than a bare close (kubectl's `EOF`).
        socket.resume(); // what else it sends is dropped; the deadline still closes it
        socket.end(HTTP_TO_HTTPS_ANSWER);
      });
    };
  } else {
    const h2cServer = createH2cServer({ settings: H2_SETTINGS }, handler);
    h2c = h2cServer;
    raiseWindow(h2cServer);
    closeIdleSessions(h2cServer, headersTimeout);
    accept = (socket) => {
      const clear = deadline(socket);
      // h2c with prior knowledge, or HTTP/1.1 (which may upgrade to WebSocket).
      sniffProtocol(socket, plainPortProtocol, (protocol) => {
        clear(); // from here HTTP/1.1's header timeout and HTTP/2's idle timeout apply
        (protocol === 'h2c' ? h2cServer : http1).emit('connection', socket);
      });
    };
  }
  const listener: NetServer = createNetServer((socket: Socket) => {
    // A client may reset before sending anything: that ends its connection, never the server.
    socket.on('error', destroySocket);
    accept(socket);
  });
  // Neither http1 nor the TLS server listens itself (the sniffer hands them sockets), so start
  // the connection checks that Node starts on 'listening': without them no header or request
  // timeout ever fires.
  listener.once('listening', () => (secure ?? http1).emit('listening'));
  // Every connection, so shutdown can close keep-alive ones too (no request may reach a closed storage).
  const sockets = new Set<Socket>();
  // One listener for every connection ('close' comes once): no closure per open watch.
  function forgetSocket(this: Socket): void {
    sockets.delete(this);
  }
  listener.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', forgetSocket);
  });
  const bindAddress = options.bindAddress ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    listener.once('error', reject);
    listener.listen(options.port ?? 8080, bindAddress, () => resolve());
  });
  const port = (listener.address() as AddressInfo).port;
  const scheme = options.tlsCert ? 'https' : 'http';
  const host = bindAddress.includes(':')
    ? `[${bindAddress}]`
    : bindAddress === '0.0.0.0'
      ? '127.0.0.1'
      : bindAddress;
  const url = `${scheme}://${host}:${port}`;
  // The Service `default/kubernetes` and its endpoints, once the port is known.
  const stopKubernetesService = await startKubernetesService(
    storage,
    { address: host.replace(/^\[|\]$/g, ''), port },
    logger,
  );
  if (serviceAccounts) {
    const { issuer, keys } = serviceAccounts;
    const metadata = await openIDMetadata(
      issuer,
      options.serviceAccountJwksUri,
      `${host}:${port}`,
      keys,
    );
    // As kube-apiserver: a misfit issuer only leaves discovery off.
    if ('error' in metadata)
      logger.warn('service-account issuer discovery not served', { reason: metadata.error });
    else context.openIDMetadata = metadata;
  }

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      context.shuttingDown = true;
      listener.close();
      const watching = context.watchLimiter.total > 0;
      // Ending the caches ends every watch stream cleanly; clients resume elsewhere.
      policy?.stop();
      serviceAccountsController?.stop();
      crdHandler?.stop();
      apiServiceController?.stop();
      stopKubernetesService();
      await registry.stop();
      // A moment for the re-watches coming on the connections those streams leave: each gets 429
      // and Connection: close (kube's --shutdown-send-retry-after), so its client backs off and
      // resumes on the next apiserver, rather than meeting a connection closed under it.
      if (watching) await new Promise((resolve) => setTimeout(resolve, RETRY_AFTER_WINDOW_MS));
      if (active > 0) {
        await Promise.race([
          new Promise<void>((resolve) => (drained = resolve)),
          new Promise((resolve) => setTimeout(resolve, SHUTDOWN_GRACE_MS)),
        ]);
      }
      // Keep-alive connections linger a moment: a request already on its way over one is served
      // (its connection closing after the response) instead of meeting a reset, which a client
      // may not retry for a write (client-go retries only reads after a broken connection).
      // It ends once no request came for SHUTDOWN_QUIET_MS: the clients have moved on.
      const lingerUntil = Date.now() + SHUTDOWN_LINGER_MS;
      while (
        sockets.size > 0 &&
        Date.now() < lingerUntil &&
        Date.now() - lastRequestAt < SHUTDOWN_QUIET_MS
      )
        await new Promise((resolve) => setTimeout(resolve, 25));
      http1.close(); // stops its connection checks and closes idle keep-alive connections
      secure?.close(); // the same for its HTTP/1.1 connections
      for (const socket of sockets) socket.destroy();
      h2c?.close();
      await storage.close();
      context.audit?.close();
      logger.info('apiserver stopped', { url });
    })());
  logger.info('apiserver serving', {
    url,
    storage: options.storage ? 'provided' : (options.storageBackend ?? 'sqlite'),
  });
  return { url, port, storage, context, close };
}
