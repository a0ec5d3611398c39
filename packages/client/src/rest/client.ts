import { ApiError, silentLogger, type KubeObject, type Logger } from '@listwatch/api';
import type { Encoding } from '@listwatch/codec';
import type { Dispatcher } from 'undici';
import type { KubernetesObject } from '../runtime/kubernetes-object.js';
import type { KubeConfig } from '../clientcmd/kubeconfig.js';
import {
  anonymousCredentials,
  type CredentialProvider,
  type Credentials,
} from '../clientcmd/credentials.js';
import { realClock, type Clock } from '../util/clock.js';
import { defaultUserAgent } from '../util/platform.js';
import type { RestClientOptions, RestConfig } from './config.js';
import { listParamsToQuery, type ListParams } from './list-params.js';
import { execute, type RequestContext, type RequestOptions } from './request.js';
import { ResourceClient } from './resource-client.js';
import type { ResourceRefOf } from '../typed/resources.js';
import { Transport } from './transport.js';
import {
  defaultIdleTimeoutMs,
  openHttpWatch,
  openWebSocketWatch,
  type WatchConnector,
  type WatchStream,
  type WatchStreamOptions,
} from './watch-stream.js';
import { WithRetry } from './with-retry.js';

/**
 * The HTTP client of one apiserver (client-go rest.RESTClient) on undici: a pooled Agent for
 * ordinary requests, a connection of its own per HTTP/1.1 watch (Transport), credentials asked
 * for before every request, retries with backoff for what is safe to retry (WithRetry), and
 * Status responses turned into ApiErrors.
 */
export class RestClient implements WatchConnector {
  readonly origin: string;
  readonly basePath: string;
  readonly encoding: Encoding;
  readonly logger: Logger;
  readonly namespace: string;
  private readonly provider: CredentialProvider;
  private readonly watchTransport: 'http' | 'websocket';
  private readonly userAgent: string;
  private readonly transport: Transport;
  private readonly requests: RequestContext;

  constructor(options: RestClientOptions) {
    let url: URL;
    try {
      url = new URL(options.server);
    } catch (err) {
      throw new ApiError(
        {
          code: 400,
          reason: 'BadRequest',
          message: `invalid server URL ${JSON.stringify(options.server)}`,
        },
        { cause: err },
      );
    }
    this.origin = url.origin;
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.provider = options.credentials ?? anonymousCredentials;
    this.namespace = options.namespace ?? 'default';
    this.encoding = options.encoding ?? 'json';
    this.watchTransport = options.watchTransport ?? 'http';
    this.userAgent = options.userAgent ?? defaultUserAgent();
    this.logger = options.logger ?? silentLogger;
    const clock: Clock = options.clock ?? realClock;
    this.transport = new Transport({
      server: url,
      tls: options.tls,
      proxyUrl: options.proxyUrl,
      maxConnections: options.maxConnections ?? 32,
      http2: options.http2 ?? false,
      logger: this.logger,
    });
    this.requests = {
      encoding: this.encoding,
      timeoutMs: options.timeoutMs ?? 60_000,
      slimLists: options.slimLists ?? false,
      retry: new WithRetry(options.retry, clock),
      logger: this.logger,
      clock,
      url: (path, query) => this.url(path, query),
      credentials: () => this.credentials(),
      unauthorized: (used) => this.unauthorized(used),
      headers: (creds, accept) => this.headers(creds, accept),
      pool: (creds) => this.transport.pool(creds),
    };
  }

  /** A client for the kubeconfig's current (or given) context. */
  static fromKubeConfig(
    kubeConfig: KubeConfig,
    options: Omit<RestClientOptions, keyof RestConfig> & { context?: string } = {},
  ): RestClient {
    const { context, ...rest } = options;
    const config = kubeConfig.restConfig({
      ...(context !== undefined ? { context } : {}),
      ...(rest.clock ? { clock: rest.clock } : {}),
      ...(rest.logger ? { logger: rest.logger } : {}),
    });
    return new RestClient({ ...config, ...rest });
  }

  /**
   * A client for one resource, typed by the reference (`resource(coreV1.pods)` is a
   * `ResourceClient<Pod>`) or by the type argument.
   */
  resource<T extends KubernetesObject = KubeObject>(def: ResourceRefOf<T>): ResourceClient<T> {
    return new ResourceClient<T>(this, def, undefined);
  }

  // --- WatchConnector ------------------------------------------------------------------------

  url(path: string, query?: URLSearchParams): URL {
    const url = new URL(this.basePath + path, this.origin);
    if (query) url.search = query.toString();
    return url;
  }

  credentials(): Promise<Credentials> {
    return this.provider.credentials();
  }

  unauthorized(used: Credentials): boolean {
    return this.provider.unauthorized?.(used) ?? false;
  }

  headers(creds: Credentials, accept: string): Record<string, string> {
    return {
      accept,
      'user-agent': this.userAgent,
      ...(creds.authorization !== undefined ? { authorization: creds.authorization } : {}),
    };
  }

  watchDispatcher(creds: Credentials): { dispatcher: Dispatcher; release: () => void } {
    return this.transport.watchDispatcher(creds);
  }

  // --- requests ------------------------------------------------------------------------------

  /**
   * One API call, decoded. Retries — with Retry-After when the server sent one, else backoff —
   * only what cannot do harm: an idempotent request (GET, PUT, DELETE) after 429 or a 5xx with
   * Retry-After; a GET after a broken connection; any verb when the connection was refused (the
   * request never left). POST and PATCH are never sent twice once answered. A 401 is retried
   * once when the credential provider has fresher credentials.
   */
  request<R = unknown>(options: RequestOptions): Promise<R> {
    return execute<R>(this.requests, options);
  }

  /** Opens a watch on an API path; see WatchStream. */
  watch<T extends KubernetesObject = KubeObject>(
    path: string,
    params: ListParams,
    options: WatchStreamOptions = {},
  ): Promise<WatchStream<T>> {
    const query = listParamsToQuery(params, true);
    const idleTimeoutMs =
      options.idleTimeoutMs ??
      defaultIdleTimeoutMs(params.allowWatchBookmarks ?? false, params.timeoutSeconds);
    const transport = options.transport ?? this.watchTransport;
    const open = transport === 'websocket' ? openWebSocketWatch : openHttpWatch;
    return open<T>(this, path, query, { ...options, idleTimeoutMs });
  }

  /** Closes every connection; in-flight requests and watches fail. */
  close(): Promise<void> {
    return this.transport.close();
  }
}
