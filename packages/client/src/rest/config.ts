import type { Logger } from '@listwatch/api';
import type { Encoding } from '@listwatch/codec';
import type { CredentialProvider } from '../clientcmd/credentials.js';
import type { BackoffOptions } from '../util/backoff.js';
import type { Clock } from '../util/clock.js';

/** What a client needs to reach one cluster as one user (client-go rest.Config). */
export interface RestConfig {
  /** `https://host:port`, possibly with a path prefix. */
  server: string;
  tls?: TlsConfig | undefined;
  credentials?: CredentialProvider | undefined;
  /** The context's namespace, `default` when unset. */
  namespace?: string | undefined;
  /**
   * The cluster's `proxy-url` (http, https or socks5). Unset: HTTPS_PROXY / HTTP_PROXY /
   * NO_PROXY from the environment, as client-go reads them (see proxyFor).
   */
  proxyUrl?: string | undefined;
}

/** PEM strings, not paths: files are read when the RestConfig is built. */
export interface TlsConfig {
  ca?: string;
  cert?: string;
  key?: string;
  servername?: string;
  insecureSkipTlsVerify?: boolean;
}

export interface RetryOptions {
  /** Retries after the first attempt (client-go: 10). */
  maxRetries?: number | undefined;
  /** Delays between attempts when the server gave no Retry-After. */
  backoff?: BackoffOptions | undefined;
}

export interface RestClientOptions extends RestConfig {
  /**
   * Response encoding asked for: `json` (default), `cbor`, or `protobuf` (client-go's
   * ContentConfig `application/vnd.kubernetes.protobuf,application/json`: built-in kinds come
   * in protobuf, the others, such as custom resources, in JSON). Request bodies are JSON.
   */
  encoding?: Encoding | undefined;
  /**
   * Slim the items of every JSON LIST as they are decoded (ObjectSlimmer: repeated strings
   * shared, empty objects made smaller): an informer's cache of Pods takes about a fifth less
   * heap, for a walk of every object that costs CPU during the sync. Off by default: a sync
   * then stays within a tenth of the decode floor's CPU (the informer-sync bench measures both).
   */
  slimLists?: boolean | undefined;
  /**
   * Per attempt of a non-watch request (default 60 s), from the call — waiting for a pooled
   * connection included — to the response; for a LIST, then the longest wait for its next bytes,
   * so a large list that keeps flowing is never cut off. 0 disables. Watches have none.
   */
  timeoutMs?: number | undefined;
  retry?: RetryOptions | undefined;
  /** Connections per origin in the request pool (default 32); watches never use these. */
  maxConnections?: number | undefined;
  /** Negotiate HTTP/2 (ALPN, TLS only); off by default — undici 7's h2 has GOAWAY bugs. */
  http2?: boolean | undefined;
  /** How watches travel unless a call says otherwise (default `http`). */
  watchTransport?: 'http' | 'websocket' | undefined;
  userAgent?: string | undefined;
  logger?: Logger | undefined;
  clock?: Clock | undefined;
}
