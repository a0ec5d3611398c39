import { ApiError } from '@listwatch/api';
import type Koa from 'koa';
import type { Attributes } from '../authorization/attributes.js';
import { parseRequestInfo } from '../request/request-info.js';
import { streamResponse } from '../middleware/request-end.js';
import type { ResourceEntry } from '../registry/resource-registry.js';
import type { ServerContext } from '../server-context.js';
import { serveHttpWatch } from '../transports/http-watch.js';
import { ScaleREST } from '../registry/generic/scale-rest.js';
import { SubresourceCreateREST } from '../registry/generic/subresource-storages.js';
import { UnstoredCreateREST } from '../registry/generic/unstored-create-rest.js';
import type { Connecter } from '../registry/rest/rest.js';
import { TokenREST } from '../registry/core/serviceaccount/token.js';
import { serveConnect } from './connect.js';
import { deleteCollection, deleteObject } from './delete.js';
import { getObject, listObjects } from './read.js';
import { requestScope, type RequestScope } from './request-scope.js';
import { checkRoute, hasRoute } from './routes.js';
import { serveScale } from './scale-subresource.js';
import { serveTokenRequest } from './token-subresource.js';
import { createWithoutStorage } from './unstored-create.js';
import { verbOf } from './verb.js';
import { addWarnings } from './warnings.js';
import { openWatch } from './watch.js';
import { createObject, createSubresource, patchObject, updateObject } from './write.js';

/** What the metrics and logs record about a resource request. */
export interface RequestLabels {
  verb: string;
  resource: string;
}

/**
 * Opens a watch and hands its stream over: the chain returns and the watch streams on its own
 * (request-end.ts), keeping only what its end needs.
 */
async function serveWatch(scope: RequestScope, entry: ResourceEntry): Promise<void> {
  const { ctx, server } = scope;
  const watch = await openWatch(
    server,
    scope.info,
    entry,
    scope.query,
    ctx.get('accept'),
    scope.context.attributes,
  );
  const resource = entry.definition.plural;
  const gauge = { resource, transport: ctx.req.httpVersionMajor === 2 ? 'http2' : 'http1' };
  server.metrics.watches.inc(gauge);
  // A watch whose permission is revoked ends; its client relists and is refused.
  const untrack = server.authorizer.track(ctx.state['attributes'] as Attributes, () =>
    watch.watcher.end('closed'),
  );
  streamResponse(
    ctx,
    serveHttpWatch(ctx.res, watch, (events) => {
      untrack();
      server.metrics.watches.dec(gauge);
      server.metrics.watchEventsSent.inc({ resource }, events);
    }),
  );
}

/** Routes `/api/...` and `/apis/...` resource requests to their verb's handler. */
export function resourceRouter(server: ServerContext): Koa.Middleware {
  return async (ctx, next): Promise<void> => {
    const info = parseRequestInfo(ctx.path);
    if (!info) {
      await next();
      return;
    }
    const entry = server.registry.lookup(info.group, info.version, info.resource);
    if (!entry || !hasRoute(entry.store, info)) throw ApiError.pathNotFound();
    const scope = requestScope(ctx, server, info, entry);
    const verb = verbOf(ctx.method, info, scope.query);
    const labels: RequestLabels = {
      verb: verb ?? ctx.method.toLowerCase(),
      resource: entry.definition.plural,
    };
    ctx.state['request'] = labels;
    if (entry.definition.deprecationWarning)
      addWarnings(ctx, [entry.definition.deprecationWarning]);
    checkRoute(entry.store, info, verb);
    // Subresources with a kind or a transport of their own have their own handlers.
    const storage = entry.store.restStorage(info.subresource);
    if (storage instanceof UnstoredCreateREST) return createWithoutStorage(scope, storage);
    if (storage instanceof ScaleREST) return serveScale(scope, storage, verb);
    if (storage instanceof TokenREST) return serveTokenRequest(scope, storage);
    if (storage instanceof SubresourceCreateREST) return createSubresource(scope, storage);
    if (storage?.connect) return serveConnect(scope, storage as Connecter);
    switch (verb) {
      case 'get':
        // The object, or its status (StatusREST).
        return getObject(scope, scope.info.name!);
      case 'list':
        return listObjects(scope);
      case 'watch': {
        if (server.shuttingDown) {
          // As kube's WithRetryAfter shutdown filter: 429, try again on a new connection, so an
          // informer backs off and resumes its watch on the next apiserver instead of relisting.
          ctx.set('Connection', 'close');
          throw ApiError.tooManyRequests(
            'The apiserver is shutting down, please try again later.',
            1,
          );
        }
        return serveWatch(scope, entry);
      }
      case 'create':
        return createObject(scope);
      case 'update':
        return updateObject(scope);
      case 'patch':
        return patchObject(scope);
      case 'delete':
        return deleteObject(scope);
      case 'deletecollection':
        return deleteCollection(scope);
    }
  };
}
