import { ApiError } from '@listwatch/api';
import Koa from 'koa';
import { aggregatedAPIs } from './apiregistration/apiservice-proxy.js';
import { discoveryMiddleware } from './discovery/discovery-router.js';
import { resourceRouter } from './handlers/resource-router.js';
import { accessLog } from './middleware/access-log.js';
import { audit, auditInit } from './middleware/audit.js';
import { authentication } from './middleware/authentication.js';
import { authorization } from './middleware/authorization.js';
import { impersonation } from './middleware/impersonation.js';
import { errors } from './middleware/errors.js';
import { health } from './middleware/health.js';
import { openIDMetadataRoutes } from './authentication/openid-metadata.js';
import { hostFilter } from './middleware/host-filter.js';
import { cors } from './middleware/cors.js';
import { inflightLimits, type InflightLimits } from './middleware/limits.js';
import { requestBody } from './middleware/request-body.js';
import { requestDeadline } from './middleware/request-deadline.js';
import type { ServerContext } from './server-context.js';

/** The koa application: logging, Status errors, auditing, limits, health, discovery, resources. */
export function createApp(server: ServerContext, limits: InflightLimits): Koa {
  const app = new Koa();
  app.silent = true;
  app.use(accessLog(server));
  // Before authentication, as kube's handler chain: a preflight carries no credentials.
  app.use(cors(server.cors));
  app.use(errors(server));
  app.use(auditInit(server));
  app.use(authentication(server.authenticator));
  app.use(audit(server));
  app.use(hostFilter(server.hostFilter));
  app.use(impersonation(server.authorizer));
  app.use(authorization(server.authorizer));
  app.use(health(server));
  app.use(openIDMetadataRoutes(() => server.openIDMetadata));
  app.use(requestBody(server));
  app.use(inflightLimits(server, limits));
  app.use(requestDeadline(server));
  app.use(aggregatedAPIs(() => server.apiServices));
  app.use(discoveryMiddleware(server.registry));
  app.use(resourceRouter(server));
  app.use(() => {
    throw ApiError.pathNotFound();
  });
  return app;
}
