import { isValidPathSegmentName, parseFieldSelector, queryBool, type Verb } from '@listwatch/api';
import type { RequestInfo } from '../request/request-info.js';

/**
 * The Kubernetes verb of a resource request (requestinfo.go). The legacy `/watch/` prefix is a
 * watch; otherwise a GET naming an object is a `get` whatever its query says, and `watch` only
 * turns a collection's `list` into a `watch`: a named GET with `watch=true` answers the object.
 */
export function verbOf(
  method: string,
  info: RequestInfo,
  query: URLSearchParams,
): Verb | undefined {
  switch (method) {
    case 'GET':
    case 'HEAD':
      if (info.legacyWatch) return 'watch';
      if (info.name !== undefined) return 'get';
      return queryBool(query.getAll('watch')) ? 'watch' : 'list';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return info.name !== undefined ? 'delete' : 'deletecollection';
    default:
      return undefined;
  }
}

/**
 * The name a request is for: its path's, else, for a list or watch of the collection path, the
 * one an exact `metadata.name=` field selector pins (requestinfo.go), so a Role limited by
 * `resourceNames` allows `kubectl get pod X -w`. A selector that does not parse, or a name that
 * is no valid path segment, names nothing. The legacy `/watch/` prefix keeps its path's name.
 */
export function requestedName(
  verb: Verb,
  info: RequestInfo,
  query: URLSearchParams,
): string | undefined {
  if (info.name !== undefined || info.legacyWatch) return info.name;
  if (verb !== 'list' && verb !== 'watch') return undefined;
  const selector = query.get('fieldSelector');
  if (!selector) return undefined;
  let name: string | undefined;
  try {
    name = parseFieldSelector(selector).requiresExactMatch('metadata.name');
  } catch {
    return undefined;
  }
  return name && isValidPathSegmentName(name).length === 0 ? name : undefined;
}
