import { createHash } from 'node:crypto';
import { ApiError, type Logger } from '@listwatch/api';
import { Agent, Client, ProxyAgent, type Dispatcher } from 'undici';
import type { Credentials } from '../clientcmd/credentials.js';
import type { TlsConfig } from './config.js';
import { checkProxyUrl, proxyFor, redactProxyUrl } from './proxy.js';

export interface TransportOptions {
  /** The apiserver's URL; its origin is where connections go. */
  server: URL;
  tls: TlsConfig | undefined;
  /** The kubeconfig cluster's `proxy-url`, if any (see proxyFor). */
  proxyUrl: string | undefined;
  /** Connections per origin in the request pool. */
  maxConnections: number;
  http2: boolean;
  logger: Logger;
}

/** An undici agent and the client identity (certificate) it connects with. */
interface PooledAgent {
  identity: string;
  agent: Dispatcher;
}

/**
 * The connections of one REST client (client-go transport/cache.go keeps one transport per TLS
 * config): a pool per client-certificate identity for requests, a connection of its own per
 * HTTP/1.1 watch, TLS options from the config and the credentials, through the proxy if any.
 */
export class Transport {
  readonly origin: string;
  private readonly tls: TlsConfig | undefined;
  private readonly maxConnections: number;
  private readonly http2: boolean;
  /** One pool per client-certificate identity; exec plugins may rotate certificates. */
  private agent: PooledAgent | undefined;
  /** With http2: the agent watches use, apart from the request pool. */
  private watchAgent: PooledAgent | undefined;
  private readonly watchClients = new Set<Dispatcher>();
  /** Where connections go through, if anywhere (see proxyFor). */
  private readonly proxy: string | undefined;
  private closed = false;

  constructor(options: TransportOptions) {
    this.origin = options.server.origin;
    this.tls = options.tls;
    this.maxConnections = options.maxConnections;
    this.http2 = options.http2;
    this.proxy = proxyFor(options.server, options.proxyUrl);
    if (this.proxy) {
      checkProxyUrl(this.proxy);
      options.logger.debug('connecting through a proxy', {
        server: this.origin,
        proxy: redactProxyUrl(this.proxy),
      });
    }
  }

  /** The request pool for these credentials. */
  pool(creds: Credentials): Dispatcher {
    this.agent = this.agentFor(this.agent, creds, { connections: this.maxConnections });
    return this.agent.agent;
  }

  /** See WatchConnector.watchDispatcher. */
  watchDispatcher(creds: Credentials): { dispatcher: Dispatcher; release: () => void } {
    if (this.closed) throw closedError();
    if (this.http2) {
      // Watches never share the request pool: theirs multiplexes them over one connection where
      // the server speaks HTTP/2, and opens one per watch where it does not (plain http, a proxy).
      this.watchAgent = this.agentFor(this.watchAgent, creds, { bodyTimeout: 0 });
      return { dispatcher: this.watchAgent.agent, release: () => {} };
    }
    const client = this.proxy
      ? this.dispatcher(creds, { bodyTimeout: 0, connections: 1 })
      : new Client(this.origin, {
          connect: tlsConnect(this.tls, creds),
          bodyTimeout: 0,
          pipelining: 1,
        });
    this.watchClients.add(client);
    return {
      dispatcher: client,
      release: () => {
        this.watchClients.delete(client);
        void client.destroy().catch(() => undefined);
      },
    };
  }

  /** Closes every connection; in-flight requests and watches fail. */
  async close(): Promise<void> {
    this.closed = true;
    const clients = [...this.watchClients];
    this.watchClients.clear();
    const agents = [this.agent?.agent, this.watchAgent?.agent];
    this.agent = this.watchAgent = undefined;
    await Promise.all([
      ...clients.map((c) => c.destroy().catch(() => undefined)),
      ...agents.map((a) => a?.destroy().catch(() => undefined)),
    ]);
  }

  /** `current` if it was made for these credentials, else a new agent that replaces it. */
  private agentFor(
    current: PooledAgent | undefined,
    creds: Credentials,
    options: Agent.Options,
  ): PooledAgent {
    if (this.closed) throw closedError();
    const identity = identityOf(creds);
    if (current?.identity === identity) return current;
    const agent = this.dispatcher(creds, options);
    // A rotated certificate: let requests on the old pool finish, then close it.
    if (current) void current.agent.close().catch(() => undefined);
    return { identity, agent };
  }

  /** An agent for these credentials, through the proxy if there is one. */
  private dispatcher(creds: Credentials, options: Agent.Options): Dispatcher {
    const tls = tlsConnect(this.tls, creds);
    const common = { pipelining: 1, allowH2: this.http2, ...options };
    if (!this.proxy) return new Agent({ connect: tls, ...common });
    // Through a tunnel, ALPN offers h2 only if requestTls says so, whatever allowH2 says.
    const requestTls = { ...tls, allowH2: this.http2 };
    return new ProxyAgent({ uri: this.proxy, requestTls, ...common });
  }
}

function closedError(): ApiError {
  return ApiError.serviceUnavailable('the REST client is closed');
}

function tlsConnect(tls: TlsConfig | undefined, creds: Credentials): Record<string, unknown> {
  return {
    ...(tls?.ca !== undefined ? { ca: tls.ca } : {}),
    ...(tls?.servername !== undefined ? { servername: tls.servername } : {}),
    ...(tls?.insecureSkipTlsVerify ? { rejectUnauthorized: false } : {}),
    ...(creds.clientCertificate
      ? { cert: creds.clientCertificate.cert, key: creds.clientCertificate.key }
      : {}),
  };
}

/** Digests of the certificates seen, by object: providers hand out the same one until it rotates. */
const identities = new WeakMap<object, string>();

/** Identifies a client certificate without keeping another copy of the key around. */
function identityOf(creds: Credentials): string {
  const cc = creds.clientCertificate;
  if (!cc) return '';
  let identity = identities.get(cc);
  if (identity === undefined) {
    identity = createHash('sha256').update(cc.cert).update('\0').update(cc.key).digest('hex');
    identities.set(cc, identity);
  }
  return identity;
}
