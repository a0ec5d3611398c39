import { ApiError } from '@listwatch/api';
import type Koa from 'koa';
import type { APIServiceController } from './apiservice-controller.js';

// kube-aggregator's proxy handler (pkg/apiserver/handler_proxy.go) for a group version an
// APIService sends to a Service: this server proxies to none, so such a request is answered as
// kube answers one whose APIService is not available, 503 "service unavailable", after
// authentication and authorization, before the local handlers.

export function aggregatedAPIs(controller: () => APIServiceController | undefined): Koa.Middleware {
  return async (ctx, next) => {
    if (ctx.path.startsWith('/apis/')) {
      const [, , group, version] = ctx.path.split('/');
      if (group && version && controller()?.serviceFor(group, version))
        throw ApiError.serviceUnavailable('service unavailable');
    }
    await next();
  };
}
