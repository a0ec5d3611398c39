export { discoveryMiddleware } from './discovery/discovery-router.js';
export { startApiServer, type ApiServerOptions, type RunningApiServer } from './server.js';
export { createApp } from './app.js';
export { parseArgs, usage, FLAGS } from './cli.js';
export { jsonLogger, type LogLevel } from './logger.js';
export { ApiServerMetrics } from './metrics.js';
export {
  ResourceRegistry,
  type ResourceEntry,
  type WatchCacheSizes,
} from './registry/resource-registry.js';
export { parseRequestInfo, type RequestInfo } from './registry/request-info.js';
export { SYSTEM_NAMESPACES } from './registry/namespace-lifecycle.js';
export type { ServerContext } from './server-context.js';
