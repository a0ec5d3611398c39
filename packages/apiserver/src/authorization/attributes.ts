import type { UserInfo } from '../authentication/user.js';
import { requestedName, verbOf } from '../handlers/verb.js';
import { parseRequestInfo } from '../request/request-info.js';

/** What a request asks to do, as an authorizer sees it (k8s.io/apiserver authorizer.Attributes). */
export interface Attributes {
  user: UserInfo;
  verb: string;
  /** A request for a resource (`/api/v1/...`), as opposed to a path such as `/healthz`. */
  resourceRequest: boolean;
  /** The URL path: what nonResourceURLs rules match. */
  path: string;
  namespace?: string;
  apiGroup: string;
  resource?: string;
  subresource?: string;
  name?: string;
}

/**
 * The attributes of an HTTP request (RequestInfoFactory): resource paths get Kubernetes verbs
 * (get, list, watch, create, ...); any other path the lower-cased HTTP method.
 */
export function requestAttributes(
  user: UserInfo,
  method: string,
  path: string,
  query: URLSearchParams,
): Attributes {
  const info = parseRequestInfo(path);
  const verb = info ? verbOf(method, info, query) : undefined;
  if (!info || !verb)
    return { user, verb: method.toLowerCase(), resourceRequest: false, path, apiGroup: '' };
  // Optional fields set one by one, in this order: no spread object per request.
  const attributes: Attributes = {
    user,
    verb,
    resourceRequest: true,
    path,
    apiGroup: info.group,
    resource: info.resource,
  };
  if (info.namespace !== undefined) attributes.namespace = info.namespace;
  if (info.subresource !== undefined) attributes.subresource = info.subresource;
  const name = requestedName(verb, info, query);
  if (name !== undefined) attributes.name = name;
  return attributes;
}

/**
 * The reason a request is refused, as kube-apiserver words it (endpoints/handlers/responsewriters
 * forbiddenMessage).
 */
export function forbiddenMessage(attributes: Attributes): string {
  const user = JSON.stringify(attributes.user.name);
  if (!attributes.resourceRequest)
    return `User ${user} cannot ${attributes.verb} path ${JSON.stringify(attributes.path)}`;
  const resource = attributes.subresource
    ? `${attributes.resource ?? ''}/${attributes.subresource}`
    : (attributes.resource ?? '');
  const where = attributes.namespace
    ? `in the namespace ${JSON.stringify(attributes.namespace)}`
    : 'at the cluster scope';
  return `User ${user} cannot ${attributes.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(attributes.apiGroup)} ${where}`;
}
