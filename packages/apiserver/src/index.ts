export { discoveryMiddleware } from './discovery/discovery-router.js';
export { startApiServer, type ApiServerOptions, type RunningApiServer } from './server.js';
export { refuseAnonymousAdminOffLoopback } from './server-config.js';
export { createApp } from './app.js';
export { commandArgs, parseArgs, usage, FLAGS } from './cli.js';
export { jsonLogger, type LogLevel } from './logger.js';
export { ApiServerMetrics } from './metrics.js';
export {
  ResourceRegistry,
  type ResourceEntry,
  type WatchCacheSizes,
} from './registry/resource-registry.js';
export { withBuiltinStrategies } from './registry/served-resources.js';
export type { ServedResource } from './registry/rest/resource-strategy.js';
export { parseRequestInfo, type RequestInfo } from './request/request-info.js';
export { SYSTEM_NAMESPACES } from './admission/namespace-lifecycle.js';
export type { ServerContext } from './server-context.js';
export { applyPatch, supportedPatchTypes, patchMediaType } from './patch/apply-patch.js';
// The patch media types are @listwatch/api's (types.PatchType); re-exported for compatibility.
export {
  JSON_PATCH_TYPE,
  MERGE_PATCH_TYPE,
  STRATEGIC_MERGE_PATCH_TYPE,
  APPLY_PATCH_TYPE,
} from '@listwatch/api';
export { mergePatch, createMergePatch } from './patch/merge-patch.js';
export {
  applyJsonPatch,
  decodeJsonPatch,
  MAX_JSON_PATCH_OPERATIONS,
  MAX_JSON_PATCH_COPY_BYTES,
  type JsonPatchOperation,
  type JsonPatchOptions,
} from './patch/json-patch.js';
export { strategicMergePatch } from './patch/strategic-merge-patch.js';
export {
  patchSchemaFor,
  type PatchSchema,
  type PatchField,
  type GroupKind as PatchSchemaKind,
} from './patch/patch-schema.js';
