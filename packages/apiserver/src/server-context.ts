import type { APIServiceController } from './apiregistration/apiservice-controller.js';
import type { OpenIDMetadata } from './authentication/openid-metadata.js';
import type { Encoding, ItemEncodings } from '@listwatch/codec';
import type { Logger } from '@listwatch/api';
import type { Storage } from '@listwatch/storage';
import type { AuditSink } from './audit/audit-log.js';
import type { AuditPolicy } from './audit/audit-policy.js';
import type { RequestAuthenticator } from './authentication/request-authenticator.js';
import type { ServiceAccountTokens } from './authentication/service-account-options.js';
import type { RequestAuthorizer } from './authorization/request-authorizer.js';
import type { ApiServerMetrics } from './metrics.js';
import type { HostFilter } from './middleware/host-filter.js';
import type { CorsPolicy } from './middleware/cors.js';
import type { WatchLimiter } from './middleware/limits.js';
import type { ResourceRegistry } from './registry/resource-registry.js';

/** What every handler needs: the registry, storage, settings, logging and metrics. */
export interface ServerContext {
  registry: ResourceRegistry;
  storage: Storage;
  logger: Logger;
  metrics: ApiServerMetrics;
  /** `--min-request-timeout` (s): a watch without timeoutSeconds lasts this × (1 + rand). */
  minRequestTimeoutSeconds: number;
  /** Request bodies above this are 413 (kube: 3 MiB). */
  maxRequestBodyBytes: number;
  /** `--request-timeout` (ms): a request body must have arrived within this (else 408). */
  requestTimeoutMs: number;
  /**
   * The watch caches' objects' encodings, kept from one LIST to the next (one map per encoding);
   * undefined when `--watch-cache-list-encodings=false`.
   */
  listEncodings: Record<Encoding, ItemEncodings> | undefined;
  /** Whether watch events are encoded once for all watchers (ApiServerOptions.watchEncodeOnce). */
  watchEncodeOnce: boolean;
  /** Who a request is: client certificate, bearer token, or anonymous. */
  authenticator: RequestAuthenticator;
  /** Service-account tokens (`--service-account-issuer`): checked, and issued when signable. */
  serviceAccountTokens: ServiceAccountTokens | undefined;
  /** The issuer's OIDC discovery documents, once rendered (an https issuer only). */
  openIDMetadata?: OpenIDMetadata;
  /** Whether a request is allowed (`--authorization-mode`), and open watches while they last. */
  authorizer: RequestAuthorizer;
  /** Which Host and Origin headers anonymous requests may carry (loopback and --accept-hosts). */
  hostFilter: HostFilter;
  /** `--cors-allowed-origins`: the pages of other origins that may call this server. */
  cors: CorsPolicy;
  /** `--max-watches-per-user`: each user's open watches, counted (HTTP and WebSocket). */
  watchLimiter: WatchLimiter;
  /** `--audit-policy-file`: the level of each request's events. */
  auditPolicy: AuditPolicy;
  /** `--audit-log-path`: where audit events go; undefined when auditing is off. */
  audit: AuditSink | undefined;
  /** Set once SIGTERM is received: no new watches, writes finish. */
  shuttingDown: boolean;
  /** The APIServices' controller, once started: which group versions name a Service. */
  apiServices?: APIServiceController;
}
