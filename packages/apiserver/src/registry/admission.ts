import type { KubeObject } from '@listwatch/api';
import type { UserInfo } from '../authentication/user.js';
import { requestAttributes, type Attributes } from '../authorization/attributes.js';
import type { RequestAuthorizer } from '../authorization/request-authorizer.js';
import type { RequestScope } from '../handlers/request-scope.js';
import { strategyOf } from './strategy.js';

/**
 * What a strategy's admission step sees of a write (k8s.io/apiserver admission.Attributes): the
 * object, the stored one on update, the request as authorized (its user, resource, namespace and
 * name) and what it may consult.
 */
export interface AdmissionRequest {
  operation: 'CREATE' | 'UPDATE';
  object: KubeObject;
  oldObject?: KubeObject;
  request: Attributes;
  authorizer: RequestAuthorizer;
  /** Reads a stored object of a served resource (a binding's role). */
  get: (
    group: string,
    resource: string,
    namespace: string | undefined,
    name: string,
  ) => Promise<KubeObject | undefined>;
}

/** The request's authorized attributes (set by the authorization middleware), or derived anew. */
function attributesOf(scope: RequestScope): Attributes {
  const state = scope.ctx.state as { attributes?: Attributes; user?: UserInfo };
  if (state.attributes) return state.attributes;
  const user = state.user ?? { name: '', groups: [] };
  return requestAttributes(user, scope.ctx.method, scope.ctx.path, scope.query);
}

/** Runs the resource's admission step, if its strategy has one, with the request's user. */
export async function admit(
  scope: RequestScope,
  operation: AdmissionRequest['operation'],
  object: KubeObject,
  oldObject?: KubeObject,
): Promise<void> {
  const strategy = strategyOf(scope.definition);
  if (!strategy.admit) return;
  const { server } = scope;
  await strategy.admit({
    operation,
    object,
    ...(oldObject ? { oldObject } : {}),
    request: attributesOf(scope),
    authorizer: server.authorizer,
    get: async (group, resource, namespace, name) => {
      const entry = server.registry.all.find(
        (e) => e.definition.group === group && e.definition.plural === resource,
      );
      if (!entry) return undefined;
      return server.storage.get(entry.source.keys.object(namespace, name));
    },
  });
}
