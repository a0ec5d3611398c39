import { ApiError, apiVersionOf, type KubeObject, type ResourceDefinition } from '@listwatch/api';
import { checkTypeMeta } from '../rest/create.js';
import type { UnstoredStrategy } from '../rest/resource-strategy.js';
import type { Creater, CreateOptions, RequestContext } from '../rest/rest.js';
import { fromInput } from '../rest/input.js';

// The REST storage of a resource that stores nothing and only creates (kube's rest.Creater
// alone: TokenReview, the access reviews): its answer to a create is the response, 201, and
// nothing is kept. No other verb is routed to such a resource.

export class UnstoredCreateREST implements Creater {
  constructor(
    private readonly definition: ResourceDefinition,
    private readonly strategy: UnstoredStrategy,
  ) {}

  async create(
    ctx: RequestContext,
    _name: string | undefined,
    decoded: KubeObject,
    options: CreateOptions,
  ): Promise<KubeObject> {
    const object = fromInput(ctx, () => {
      checkTypeMeta(this.definition, decoded);
      // rest.WipeObjectMetaSystemFields, then EnsureObjectNamespaceMatchesRequestNamespace.
      const meta = decoded.metadata;
      delete meta.creationTimestamp;
      delete meta.uid;
      delete meta.deletionTimestamp;
      delete meta.deletionGracePeriodSeconds;
      delete meta.selfLink;
      const namespace = this.definition.namespaced ? ctx.namespace : undefined;
      if (namespace === undefined) delete meta.namespace;
      else if (meta.namespace && meta.namespace !== namespace)
        throw ApiError.badRequest(
          'the namespace of the provided object does not match the namespace sent on the request',
        );
      else meta.namespace = namespace;
      return options.managedFields ? options.managedFields(decoded) : decoded;
    });
    const answer = await this.strategy.createWithoutStorage({
      object,
      user: ctx.attributes.user,
      authenticator: ctx.authenticator,
      authorizer: ctx.authorizer,
    });
    answer.apiVersion = apiVersionOf(this.definition);
    answer.kind = this.definition.kind;
    // A zero metav1.Time, as Go writes an object never stored.
    (answer.metadata as Record<string, unknown>)['creationTimestamp'] ??= null;
    return answer;
  }
}
