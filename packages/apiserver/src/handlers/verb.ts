import { queryBool, type Verb } from '@listwatch/api';
import type { RequestInfo } from '../registry/request-info.js';

/** The Kubernetes verb of a resource request (RequestInfoFactory's verb rules). */
export function verbOf(
  method: string,
  info: RequestInfo,
  query: URLSearchParams,
): Verb | undefined {
  const watch = info.legacyWatch || queryBool(query.getAll('watch'));
  switch (method) {
    case 'GET':
    case 'HEAD':
      if (watch) return 'watch';
      return info.name !== undefined ? 'get' : 'list';
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
