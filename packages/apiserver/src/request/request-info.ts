import { ApiError } from '@listwatch/api';

/** What a resource request asks for, parsed from its path (k8s.io/apiserver RequestInfoFactory). */
export interface RequestInfo {
  /** `''` for the core group (`/api/v1`). */
  group: string;
  version: string;
  namespace?: string;
  resource: string;
  name?: string;
  subresource?: string;
  /** The legacy `/watch/` path prefix was used. */
  legacyWatch: boolean;
}

/** Subresources of a namespace object that are not a namespaced resource of the same name. */
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

/**
 * Splits `/api/v1/namespaces/ns/pods/name/status` and friends into their parts. Returns
 * undefined for paths that are not resource paths (discovery, health, metrics).
 */
export function parseRequestInfo(path: string): RequestInfo | undefined {
  // Authorization, audit and the router each ask for the same request's path.
  if (parsed.has(path)) {
    const info = parsed.get(path);
    return info && { ...info };
  }
  const info = parse(path);
  if (parsed.size >= PARSED_PATHS) parsed.clear();
  parsed.set(path, info && { ...info });
  return info;
}

/** Paths parsed lately (a request's own path is asked for by several filters). */
const parsed = new Map<string, RequestInfo | undefined>();
const PARSED_PATHS = 512;

function parse(path: string): RequestInfo | undefined {
  const parts = path.replace(/^\/+|\/+$/g, '').split('/');
  if (parts.some((p) => p === '')) return undefined;
  let group: string;
  let version: string;
  let rest: string[];
  if (parts[0] === 'api' && parts.length >= 3) {
    group = '';
    version = parts[1]!;
    rest = parts.slice(2);
  } else if (parts[0] === 'apis' && parts.length >= 4) {
    group = parts[1]!;
    version = parts[2]!;
    rest = parts.slice(3);
  } else {
    return undefined;
  }
  let decoded: string[];
  try {
    decoded = rest.map((p) => decodeURIComponent(p));
  } catch {
    throw ApiError.badRequest(`malformed path: ${path}`);
  }
  const info: RequestInfo = { group, version, resource: '', legacyWatch: false };
  if (decoded[0] === 'watch') {
    info.legacyWatch = true;
    decoded = decoded.slice(1);
  }
  if (decoded[0] === 'namespaces' && decoded.length > 1) {
    info.namespace = decoded[1]!;
    if (decoded.length > 2 && !NAMESPACE_SUBRESOURCES.has(decoded[2]!)) decoded = decoded.slice(2);
    else {
      // The namespace object itself: /api/v1/namespaces/{name}[/status]
      decoded = ['namespaces', ...decoded.slice(1)];
      delete info.namespace;
    }
  }
  if (decoded.length === 0 || decoded.length > 3) return undefined;
  info.resource = decoded[0]!;
  if (decoded[1] !== undefined) info.name = decoded[1];
  if (decoded[2] !== undefined) info.subresource = decoded[2];
  return info;
}
