import { ApiError } from '@listwatch/api';
import type { Attributes } from '../../authorization/attributes.js';
import type { RequestContext } from './rest.js';

/** What the server's own writes need of it: who authorizes and authenticates, and its log. */
export type LoopbackParts = Pick<RequestContext, 'authorizer' | 'authenticator' | 'logger'>;

/** What the server's own writes are attributed to: kube's loopback client. */
const LOOPBACK_USER = { name: 'system:apiserver', groups: ['system:masters'] };

/**
 * The context of a write the server makes itself (its bootstrap namespaces, the serviceaccounts
 * controller): as kube-apiserver's loopback client, through the same Store as any request.
 */
export function loopbackContext(
  server: LoopbackParts,
  request: Pick<Attributes, 'verb' | 'apiGroup' | 'resource'> & { namespace?: string },
): RequestContext {
  const { namespace } = request;
  return {
    namespace,
    attributes: {
      user: LOOPBACK_USER,
      resourceRequest: true,
      path: '',
      ...request,
    },
    authorizer: server.authorizer,
    authenticator: server.authenticator,
    logger: server.logger,
    inputFailed: (err) =>
      server.logger.error('the server made an object it cannot write', { error: String(err) }),
  };
}

/** A loopback read's 404 as nothing there (the controllers' `apierrors.IsNotFound` branch). */
export function notFoundAsNothing(err: unknown): undefined {
  if (err instanceof ApiError && err.code === 404) return undefined;
  throw err;
}
