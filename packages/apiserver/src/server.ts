import type { Storage } from '@listwatch/storage';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { CorsPolicy } from './middleware/cors.js';
import { createApp } from './app.js';
import { CustomResourceDefinitionHandler } from './apiextensions/crd-handler.js';
import { customResourceDefinitions } from './apiextensions/customresourcedefinition-resource.js';
import { APIServiceController } from './apiregistration/apiservice-controller.js';
import { apiServices } from './apiregistration/apiservice-resource.js';
import { openIDMetadata } from './authentication/openid-metadata.js';
import { jsonLogger } from './logger.js';
import { ApiServerMetrics } from './metrics.js';
import { startKubernetesService } from './controllers/kubernetes-service.js';
import { ensureSystemNamespaces } from './admission/namespace-lifecycle.js';
import { withBuiltinStrategies } from './registry/served-resources.js';
import { ResourceRegistry } from './registry/resource-registry.js';
import { ServiceAccountsController } from './controllers/service-accounts.js';
import {
  authenticatorOf,
  refuseAnonymousAdminOffLoopback,
  servedResources,
  serverContextOf,
  serviceAccountsOf,
  startAuthorizer,
  storageOf,
  watchCacheSizesOf,
  type ApiServerOptions,
} from './server-config.js';
import type { ServerContext } from './server-context.js';
import { gracefulShutdown, InFlightRequests } from './server-shutdown.js';
import { isWebSocketUpgrade, serveIgnoringUpgrade } from './transports/ignored-upgrade.js';
import { listen } from './transports/listeners.js';
import { webSocketWatch } from './transports/websocket-watch.js';

// startApiServer: the configuration made (server-config.ts), the controllers that must run
// before the first request started, the port listened on (transports/listeners.ts), and
// shutdown (server-shutdown.ts) wired, in kube-apiserver's order.

export type { ApiServerOptions } from './server-config.js';

export interface RunningApiServer {
  /** `http://127.0.0.1:PORT` (or https). */
  url: string;
  port: number;
  storage: Storage;
  context: ServerContext;
  /** SIGTERM semantics: stop accepting, end watches cleanly, finish in-flight writes, close storage. */
  close(): Promise<void>;
}

/** Starts a Kubernetes-compatible apiserver; resolves once every watch cache is ready. */
export async function startApiServer(options: ApiServerOptions = {}): Promise<RunningApiServer> {
  // Embedded, a server is quiet unless something is wrong; the bin logs at info.
  const logger = options.logger ?? jsonLogger('warn');
  refuseAnonymousAdminOffLoopback(options, logger);
  const cors = CorsPolicy.parse(options.corsAllowedOrigins ?? []);
  const definitions = options.definitions ?? servedResources;
  const storage = storageOf(options, definitions);
  const metrics = new ApiServerMetrics();
  const registry = new ResourceRegistry(storage, withBuiltinStrategies(definitions), {
    watchCacheSizes: watchCacheSizesOf(options),
    logger,
    metrics: metrics.cacher,
    ...(options.bookmarkIntervalMs ? { bookmarkIntervalMs: options.bookmarkIntervalMs } : {}),
  });
  const serviceAccounts = serviceAccountsOf(options, registry);
  registry.serviceAccountTokens = serviceAccounts;
  // Options that refuse to start do so before the authorizer follows storage.
  const authenticator = authenticatorOf(options, serviceAccounts);
  // The watch caches first: the server's own readers (the RBAC policy, the controllers) list and
  // watch through the Stores, which serve them from the caches.
  await registry.start();
  const { authorizer, policy } = await startAuthorizer(options, registry, authenticator, logger);
  const context = serverContextOf(options, {
    registry,
    storage,
    logger,
    metrics,
    authenticator,
    serviceAccounts,
    authorizer,
    cors,
  });
  await ensureSystemNamespaces(registry, context);
  // Every namespace's `default` ServiceAccount, as kube-controller-manager keeps them.
  const serviceAccountsController = ServiceAccountsController.of(registry, context);
  await serviceAccountsController?.start();
  // Custom resources in storage are served before the server answers, so before /readyz is ok.
  const crdHandler = registry.lookup(
    customResourceDefinitions.group,
    customResourceDefinitions.version,
    customResourceDefinitions.plural,
  )
    ? new CustomResourceDefinitionHandler(registry, context)
    : undefined;
  await crdHandler?.start();
  // Local APIServices for what is served (CRDs' included), before the server answers.
  const apiServiceController = registry.lookup(
    apiServices.group,
    apiServices.version,
    apiServices.plural,
  )
    ? new APIServiceController(registry, context)
    : undefined;
  await apiServiceController?.start();
  if (apiServiceController) context.apiServices = apiServiceController;
  const app = createApp(context, {
    readOnly: options.maxRequestsInflight ?? 400,
    mutating: options.maxMutatingRequestsInflight ?? 200,
  });
  const callback = app.callback();
  const requests = new InFlightRequests();
  const handler = requests.handler((req, res) => void callback(req, res), context);
  const webSocket = webSocketWatch(context);
  const upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    if (isWebSocketUpgrade(req)) webSocket(req, socket, head);
    else serveIgnoringUpgrade(req, socket, head, handler);
  };
  const listeners = await listen(options, context.requestTimeoutMs, handler, upgrade);
  const { port, host, url } = listeners;
  // The Service `default/kubernetes` and its endpoints, once the port is known.
  const stopKubernetesService = await startKubernetesService(registry, context, {
    address: host.replace(/^\[|\]$/g, ''),
    port,
  });
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

  const close = gracefulShutdown({
    context,
    listeners,
    requests,
    stops: [
      () => policy?.stop(),
      () => serviceAccountsController?.stop(),
      () => crdHandler?.stop(),
      () => apiServiceController?.stop(),
      stopKubernetesService,
    ],
    registry,
    storage,
    logger,
  });
  logger.info('apiserver serving', {
    url,
    storage: options.storage ? 'provided' : (options.storageBackend ?? 'sqlite'),
  });
  return { url, port, storage, context, close };
}
