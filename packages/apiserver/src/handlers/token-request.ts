import { ApiError, type KubeObject, type ResourceDefinition, type Verb } from '@listwatch/api';
import type { BoundObjects } from '../authentication/service-account-token.js';
import { fieldValidationOf } from '../registry/field-validation.js';
import { checkTypeMeta, decodeObject } from '../registry/strategy.js';
import {
  checkTokenRequestIdentity,
  TOKEN_REQUEST_GVK,
  tokenRequestResponse,
  tokenRequestSpec,
  validateTokenRequest,
  type BoundObjectReference,
} from '../registry/token-request.js';
import type { ServerContext } from '../server-context.js';
import { decodeBody, readBody } from './body.js';
import { readObject } from './read.js';
import { requireName, type RequestScope } from './request-scope.js';
import { writeObject } from './response.js';
import { dropUnknownBodyFields, fromInput } from './write.js';

// The serviceaccounts/token subresource as kube-apiserver serves it
// (pkg/registry/core/serviceaccount/storage/token.go TokenREST.Create): POST a TokenRequest,
// get it back with a token signed for the service account, bound to a pod, secret or node if
// asked. Nothing is stored. Served only with --service-account-signing-key-file.

/** The TokenRequest kind where the service account's definition is expected (type meta, schema). */
function tokenRequestDefinition(definition: ResourceDefinition): ResourceDefinition {
  return { ...definition, ...TOKEN_REQUEST_GVK, listKind: 'TokenRequestList' };
}

/** A core/v1 object by name, or a 404 worded as its own GET's (`pods "x" not found`). */
async function getCore(
  server: ServerContext,
  resource: 'pods' | 'secrets' | 'nodes',
  namespace: string | undefined,
  name: string,
  resourceVersion?: '0',
): Promise<KubeObject> {
  // The store's key function refuses an empty name before any lookup.
  if (name === '') throw ApiError.badRequest('Name parameter required.');
  const source = server.registry.lookup('', 'v1', resource)?.source;
  const object = await source?.get({
    ...(namespace !== undefined ? { namespace } : {}),
    name,
    ...(resourceVersion !== undefined ? { resourceVersion } : {}),
  });
  if (!object) throw ApiError.notFound({ resource }, name);
  return object;
}

/** runtime/schema.FromAPIVersionAndKind: `v1` is the core group, `g/v` a named one. */
function groupVersionOf(apiVersion: string): { group: string; version: string } {
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: parts[0]! };
  if (parts.length === 2) return { group: parts[0]!, version: parts[1]! };
  return { group: '', version: '' };
}

/**
 * What the token is bound to: a Pod that runs as this service account (with its node, when it
 * has one), a Secret or a Node of the namespace, each looked up now; a uid the reference gives
 * must be the object's (409 otherwise: it was deleted and recreated).
 */
async function boundObjects(
  scope: RequestScope,
  serviceAccount: string,
  ref: BoundObjectReference | undefined,
): Promise<BoundObjects> {
  if (!ref) return {};
  const { server } = scope;
  const namespace = scope.namespace ?? '';
  const { group, version } = groupVersionOf(ref.apiVersion);
  let object: KubeObject;
  const bound: BoundObjects = {};
  if (group === '' && ref.kind === 'Pod') {
    object = await getCore(server, 'pods', namespace, ref.name);
    const spec = (object['spec'] ?? {}) as { serviceAccountName?: string; nodeName?: string };
    // The ServiceAccount admission plugin gives a pod without one the `default` account.
    if (serviceAccount !== (spec.serviceAccountName || 'default'))
      throw ApiError.badRequest(
        `cannot bind token for serviceaccount "${serviceAccount}" to pod running with different serviceaccount name.`,
      );
    bound.pod = { name: object.metadata.name ?? '', uid: object.metadata.uid ?? '' };
    // ServiceAccountTokenPodNodeInfo: the pod's node too; a node that is gone is named only.
    if (spec.nodeName) {
      const node = await getCore(server, 'nodes', undefined, spec.nodeName, '0')
        .catch(() => getCore(server, 'nodes', undefined, spec.nodeName!))
        .catch((err: unknown) => {
          if (err instanceof ApiError && err.status.code === 404) return undefined;
          throw err;
        });
      bound.node = { name: spec.nodeName, uid: node?.metadata.uid ?? '' };
    }
  } else if (group === '' && ref.kind === 'Secret') {
    object = await getCore(server, 'secrets', namespace, ref.name);
    bound.secret = { name: object.metadata.name ?? '', uid: object.metadata.uid ?? '' };
  } else if (group === '' && ref.kind === 'Node') {
    object = await getCore(server, 'nodes', undefined, ref.name);
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

/** POST serviceaccounts/{name}/token: a TokenRequest in, the same with a signed token out (201). */
export async function serveTokenRequest(scope: RequestScope, verb: Verb): Promise<void> {
  const generator = scope.server.serviceAccountTokens?.generator;
  if (!generator || !scope.definition.subresources.includes('token')) throw ApiError.pathNotFound();
  if (verb !== 'create') throw ApiError.methodNotAllowed();
  const name = requireName(scope);
  const namespace = scope.namespace ?? '';
  const definition = tokenRequestDefinition(scope.definition);
  const validation = fieldValidationOf(scope.query, 'CreateOptions');
  const raw = await readBody(scope.ctx.req, scope.server.maxRequestBodyBytes);
  const request = fromInput(scope, () => {
    const value = decodeBody(raw, scope.ctx.get('content-type'));
    const object = decodeObject(definition, value, 'body', TOKEN_REQUEST_GVK);
    checkTypeMeta(definition, object);
    return dropUnknownBodyFields(scope, definition, object, validation);
  });
  checkTokenRequestIdentity(request, name, namespace);
  const serviceAccount = await readObject(scope, name);
  const spec = tokenRequestSpec(request);
  if (spec.audiences.length === 0)
    spec.audiences = [...scope.server.serviceAccountTokens!.audiences];
  request.metadata.name = serviceAccount.metadata.name ?? name;
  request.metadata.namespace = namespace;
  // Taken before the token is made, so the expiration answered is never after its exp.
  const now = new Date();
  validateTokenRequest(spec);
  const bound = await boundObjects(scope, name, spec.boundObjectRef);
  const token = await generator.generate({
    namespace,
    serviceAccount: { name, uid: serviceAccount.metadata.uid ?? '' },
    audiences: spec.audiences,
    now,
    expirationSeconds: spec.expirationSeconds,
    bound,
  });
  writeObject(scope.ctx, 201, tokenRequestResponse(request, spec, token, now));
}
