import { ApiError, apiVersionOf } from '@listwatch/api';
import type { UserInfo } from '../authentication/user.js';
import { checkTypeMeta, type UnstoredStrategy } from '../registry/strategy.js';
import { trackUpdate, updateManager } from './field-manager.js';
import { isDryRun, type RequestScope } from './request-scope.js';
import { writeObject } from './response.js';
import { decodeWriteBody, fromInput } from './write.js';

// A create on a resource that stores nothing (the reviews): kube's createHandler
// (k8s.io/apiserver pkg/endpoints/handlers/create.go) up to the REST storage's Create, which
// is the strategy's createWithoutStorage; its answer is the response, 201, and nothing is kept.

/** POST to a resource whose strategy creates without storage. */
export async function createWithoutStorage(
  scope: RequestScope,
  strategy: UnstoredStrategy,
): Promise<void> {
  const { definition, server } = scope;
  isDryRun(scope);
  const manager = updateManager(scope, 'CreateOptions');
  const decoded = await decodeWriteBody(scope, 'CreateOptions');
  const object = fromInput(scope, () => {
    checkTypeMeta(definition, decoded);
    // rest.WipeObjectMetaSystemFields, then EnsureObjectNamespaceMatchesRequestNamespace.
    const meta = decoded.metadata;
    delete meta.creationTimestamp;
    delete meta.uid;
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    delete meta.selfLink;
    if (scope.namespace === undefined) delete meta.namespace;
    else if (meta.namespace && meta.namespace !== scope.namespace)
      throw ApiError.badRequest(
        'the namespace of the provided object does not match the namespace sent on the request',
      );
    else meta.namespace = scope.namespace;
    return trackUpdate(scope, undefined, decoded, undefined, manager);
  });
  const answer = await strategy.createWithoutStorage({
    object,
    user: scope.ctx.state['user'] as UserInfo,
    authenticator: server.authenticator,
    authorizer: server.authorizer,
  });
  answer.apiVersion = apiVersionOf(definition);
  answer.kind = definition.kind;
  // A zero metav1.Time, as Go writes an object never stored.
  (answer.metadata as Record<string, unknown>)['creationTimestamp'] ??= null;
  writeObject(scope.ctx, 201, answer, definition);
}
