import type { KubeObject } from '@listwatch/api';
import type { Attributes } from '../authorization/attributes.js';
import type { RequestAuthorizer } from '../authorization/request-authorizer.js';
import type { ResourceRegistry } from '../registry/resource-registry.js';
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
  /** Reads a stored object of a served resource (a binding's role). */
  get: (
    group: string,
    resource: string,
    namespace: string | undefined,
    name: string,
  ) => Promise<KubeObject | undefined>;
}

/** Runs the resource's admission step, if its strategy has one. */
export async function admit(
  strategy: ResourceStrategy,
  registry: ResourceRegistry,
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
      return registry.storage.get(entry.source.keys.object(namespace, name));
    },
  });
}
