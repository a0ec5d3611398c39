import { ApiError, type KubeObject } from '@listwatch/api';
import type { BoundObjects } from '../../../authentication/service-account-token.js';
import type { Store } from '../../generic/store.js';
import type { ResourceRegistry } from '../../resource-registry.js';
import type { Creater, RequestContext } from '../../rest/rest.js';
import {
  checkTokenRequestIdentity,
  tokenRequestResponse,
  tokenRequestSpec,
  validateTokenRequest,
  type BoundObjectReference,
} from './token-request.js';

// The serviceaccounts/token subresource as kube-apiserver serves it
// (pkg/registry/core/serviceaccount/storage/token.go TokenREST.Create): a TokenRequest in, the
// same with a token signed for the service account out, bound to a pod, secret or node if
// asked. Nothing is stored.

/** runtime/schema.FromAPIVersionAndKind: `v1` is the core group, `g/v` a named one. */
function groupVersionOf(apiVersion: string): { group: string; version: string } {
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: parts[0]! };
  if (parts.length === 2) return { group: parts[0]!, version: parts[1]! };
  return { group: '', version: '' };
}

export class TokenREST implements Creater {
  constructor(
    private readonly serviceAccounts: Store,
    private readonly registry: ResourceRegistry,
  ) {}

  /** A core/v1 object by name, or a 404 worded as its own GET's (`pods "x" not found`). */
  private async getCore(
    ctx: RequestContext,
    resource: 'pods' | 'secrets' | 'nodes',
    namespace: string | undefined,
    name: string,
    resourceVersion?: '0',
  ): Promise<KubeObject> {
    // The store's key function refuses an empty name before any lookup.
    if (name === '') throw ApiError.badRequest('Name parameter required.');
    const store = this.registry.lookup('', 'v1', resource)?.store;
    if (!store) throw ApiError.notFound({ resource }, name);
    return store.get(
      { ...ctx, namespace },
      name,
      resourceVersion !== undefined ? { resourceVersion } : {},
    );
  }

  /**
   * What the token is bound to: a Pod that runs as this service account (with its node, when
   * it has one), a Secret or a Node of the namespace, each looked up now; a uid the reference
   * gives must be the object's (409 otherwise: it was deleted and recreated).
   */
  private async boundObjects(
    ctx: RequestContext,
    serviceAccount: string,
    ref: BoundObjectReference | undefined,
  ): Promise<BoundObjects> {
    if (!ref) return {};
    const namespace = ctx.namespace ?? '';
    const { group, version } = groupVersionOf(ref.apiVersion);
    let object: KubeObject;
    const bound: BoundObjects = {};
    if (group === '' && ref.kind === 'Pod') {
      object = await this.getCore(ctx, 'pods', namespace, ref.name);
      const spec = (object['spec'] ?? {}) as { serviceAccountName?: string; nodeName?: string };
      // The ServiceAccount admission plugin gives a pod without one the `default` account.
      if (serviceAccount !== (spec.serviceAccountName || 'default'))
        throw ApiError.badRequest(
          `cannot bind token for serviceaccount "${serviceAccount}" to pod running with different serviceaccount name.`,
        );
      bound.pod = { name: object.metadata.name ?? '', uid: object.metadata.uid ?? '' };
      // ServiceAccountTokenPodNodeInfo: the pod's node too; a node that is gone is named only.
      if (spec.nodeName) {
        const nodeName = spec.nodeName;
        const node = await this.getCore(ctx, 'nodes', undefined, nodeName, '0')
          .catch(() => this.getCore(ctx, 'nodes', undefined, nodeName))
          .catch((err: unknown) => {
            if (err instanceof ApiError && err.status.code === 404) return undefined;
            throw err;
          });
        bound.node = { name: nodeName, uid: node?.metadata.uid ?? '' };
      }
    } else if (group === '' && ref.kind === 'Secret') {
      object = await this.getCore(ctx, 'secrets', namespace, ref.name);
      bound.secret = { name: object.metadata.name ?? '', uid: object.metadata.uid ?? '' };
    } else if (group === '' && ref.kind === 'Node') {
      object = await this.getCore(ctx, 'nodes', undefined, ref.name);
      bound.node = { name: object.metadata.name ?? '', uid: object.metadata.uid ?? '' };
    } else {
      throw ApiError.badRequest(
        `cannot bind token to object of type ${group}/${version}, Kind=${ref.kind}`,
      );
    }
    if (ref.uid && ref.uid !== object.metadata.uid)
      throw ApiError.conflict(
        { group, resource: ref.kind },
        ref.name,
        `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`,
      );
    return bound;
  }

  /** The decoded TokenRequest, answered with its token (the handler writes it as a 201). */
  async create(ctx: RequestContext, name: string | undefined, request: KubeObject) {
    // Tokens are issued only with --service-account-signing-key-file (the registry's tokens).
    const tokens = this.registry.serviceAccountTokens;
    if (!tokens?.generator) throw ApiError.pathNotFound();
    if (name === undefined) throw ApiError.methodNotAllowed();
    const namespace = ctx.namespace ?? '';
    checkTokenRequestIdentity(request, name, namespace);
    const serviceAccount = await this.serviceAccounts.get(ctx, name, {});
    const spec = tokenRequestSpec(request);
    if (spec.audiences.length === 0) spec.audiences = [...tokens.audiences];
    request.metadata.name = serviceAccount.metadata.name ?? name;
    request.metadata.namespace = namespace;
    // Taken before the token is made, so the expiration answered is never after its exp.
    const now = new Date();
    validateTokenRequest(spec);
    const bound = await this.boundObjects(ctx, name, spec.boundObjectRef);
    const token = await tokens.generator.generate({
      namespace,
      serviceAccount: { name, uid: serviceAccount.metadata.uid ?? '' },
      audiences: spec.audiences,
      now,
      expirationSeconds: spec.expirationSeconds,
      bound,
    });
    return tokenRequestResponse(request, spec, token, now);
  }
}
