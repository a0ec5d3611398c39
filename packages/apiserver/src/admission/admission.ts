import type { KubeObject } from '@listwatch/api';
import type { Attributes } from '../authorization/attributes.js';
import type { RequestAuthorizer } from '../authorization/request-authorizer.js';
import type { ResourceRegistry } from '../registry/resource-registry.js';
import {
  loopbackContext,
  notFoundAsNothing,
  type LoopbackParts,
} from '../registry/rest/loopback-context.js';
import type { ResourceStrategy } from '../registry/rest/resource-strategy.js';

/** The operation a write is admitted as (admission.Operation). */
export type AdmissionOperation = 'CREATE' | 'UPDATE';

/**
 * What the Store hands admission of a write (k8s.io/apiserver admission.Attributes): the object,
 * the stored one on update, and the request as authorized (its user, resource, namespace and
 * name). Never the HTTP request.
 */
export interface AdmissionAttributes<T extends KubeObject = KubeObject> {
  operation: AdmissionOperation;
  object: T;
  oldObject?: T;
  request: Attributes;
  authorizer: RequestAuthorizer;
}

/**
 * What a strategy's admission step sees: the attributes (`T`: its kind's decoded objects), and
 * what it may consult.
 */
export interface AdmissionRequest<
  T extends KubeObject = KubeObject,
> extends AdmissionAttributes<T> {
  /**
   * Reads an object of a served resource (a binding's role, a pod's service account) through its
   * Store as the loopback client, as kube's admission plugins read through the loopback client:
   * a consistent read, undefined when there is none.
   */
  get: (
    group: string,
    resource: string,
    namespace: string | undefined,
    name: string,
  ) => Promise<KubeObject | undefined>;
}

/**
 * Runs the resource's admission step, if its strategy has one. `server` is what the loopback
 * client's reads are made with (the request's authorizer, authenticator and log).
 */
export async function admit(
  strategy: ResourceStrategy,
  registry: ResourceRegistry,
  server: LoopbackParts,
  attributes: AdmissionAttributes,
): Promise<void> {
  if (!strategy.admit) return;
  await strategy.admit({
    ...attributes,
    get: async (group, resource, namespace, name) => {
      const entry = registry.all.find(
        (e) => e.definition.group === group && e.definition.plural === resource,
      );
      if (!entry) return undefined;
      const ctx = loopbackContext(server, {
        verb: 'get',
        apiGroup: group,
        resource,
        ...(namespace !== undefined ? { namespace } : {}),
      });
      return entry.store.get(ctx, name, {}).catch(notFoundAsNothing);
    },
  });
}
