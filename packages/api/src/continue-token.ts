import { ApiError } from './api-error.js';
import { goJsonMarshal } from './go-json.js';

// Continue tokens exactly as k8s.io/apiserver/pkg/storage/continue.go writes and reads them:
// base64url (no padding) of {"v":"meta.k8s.io/v1","rv":<int64>,"start":"<key after prefix>"}.
// Tokens from a kube-apiserver decode here and ours decode there.

export const CONTINUE_TOKEN_VERSION = 'meta.k8s.io/v1';
/** A token's rv after its revision was compacted: continue at the latest revision. */
export const CONTINUE_AT_LATEST = -1;

export interface ContinueToken {
  /** The revision every page is read at; negative (-1): the latest. Never 0. */
  resourceVersion: number;
  /** Where the next page starts, relative to the resource's key prefix (no leading `/`). */
  start: string;
}

const INVALID = 'invalid continue token: continue key is not valid';

function invalid(detail?: string): ApiError {
  return ApiError.badRequest(detail === undefined ? INVALID : `${INVALID}: ${detail}`);
}

/** The token for `token` (storage.EncodeContinue's JSON, field order v, rv, start). */
export function encodeContinueToken(token: ContinueToken): string {
  if (!Number.isSafeInteger(token.resourceVersion)) {
    throw ApiError.internalError(
      `continue token resourceVersion ${token.resourceVersion} is not an integer`,
    );
  }
  const json = `{"v":${goJsonMarshal(CONTINUE_TOKEN_VERSION)},"rv":${token.resourceVersion},"start":${goJsonMarshal(token.start)}}`;
  return Buffer.from(json, 'utf8').toString('base64url');
}

/**
 * The token for the page after `lastKey`, read at `resourceVersion` (-1: latest). As the etcd3
 * store does, the start key is `lastKey + "\u0000"`: the smallest key after lastKey. A key outside
 * `keyPrefix` is a programming error (500), as in EncodeContinue.
 */
export function encodeContinue(
  resourceVersion: number,
  lastKey: string,
  keyPrefix: string,
): string {
  if (keyPrefix === '' || !lastKey.startsWith(keyPrefix)) {
    throw ApiError.internalError(
      `unable to encode next field: the key and key prefix do not match ${keyPrefix} ${lastKey}`,
    );
  }
  return encodeContinueToken({
    resourceVersion,
    start: `${lastKey.slice(keyPrefix.length)}\u0000`,
  });
}

/** Go's base64.RawURLEncoding.DecodeString: no padding, `\r`/`\n` skipped, nothing else allowed. */
function decodeBase64Url(token: string): Buffer {
  const text = token.replace(/[\r\n]/g, '');
  const bad = text.search(/[^A-Za-z0-9_-]/);
  if (bad >= 0) throw invalid(`illegal base64 data at input byte ${bad}`);
  if (text.length % 4 === 1) throw invalid(`illegal base64 data at input byte ${text.length - 1}`);
  return Buffer.from(text, 'base64url');
}

const INT64_LIMIT = 2 ** 63;

function jsonType(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  return typeof value;
}

/** A path is clean (Go's path.Clean leaves it alone) when no segment is empty, `.` or `..`. */
function isCleanRootedPath(path: string): boolean {
  if (path === '/') return true;
  return path
    .slice(1)
    .split('/')
    .every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}

/**
 * Reads a continue token (storage.DecodeContinue). Malformed tokens, other versions, rv 0, an empty
 * start and start keys that `path.Clean` would change (`..`, `.`, `//`, a trailing `/`: escaping
 * or widening the key range) are 400 BadRequest, worded as kube-apiserver words them:
 * `invalid continue token: continue key is not valid: ...`.
 *
 * Like Go's json, field names match case-insensitively and unknown fields are ignored. rv values
 * beyond 2^53 (never real revisions) clamp to Number.MAX_SAFE_INTEGER.
 */
export function decodeContinueToken(token: string): ContinueToken {
  const data = decodeBase64Url(token);
  let parsed: unknown;
  try {
    parsed = JSON.parse(data.toString('utf8')) as unknown;
  } catch (err) {
    throw invalid((err as Error).message);
  }
  if (parsed === null) parsed = {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw invalid(
      `json: cannot unmarshal ${jsonType(parsed)} into Go value of type storage.continueToken`,
    );
  }
  let version = '';
  let rv = 0;
  let start = '';
  // Go's UnmarshalTypeError text; a number is shown with its value only where it had to be an int.
  const mismatch = (value: unknown, field: string, type: string): ApiError =>
    invalid(
      `json: cannot unmarshal ${typeof value === 'number' && type === 'int64' ? `number ${value}` : jsonType(value)} into Go struct field continueToken.${field} of type ${type}`,
    );
  for (const [name, value] of Object.entries(parsed as Record<string, unknown>)) {
    if (value === null) continue;
    switch (name.toLowerCase()) {
      case 'v':
        if (typeof value !== 'string') throw mismatch(value, 'v', 'string');
        version = value;
        break;
      case 'rv':
        if (
          typeof value !== 'number' ||
          !Number.isInteger(value) ||
          Math.abs(value) >= INT64_LIMIT
        ) {
          throw mismatch(value, 'rv', 'int64');
        }
        rv = Math.max(Math.min(value, Number.MAX_SAFE_INTEGER), -Number.MAX_SAFE_INTEGER);
        break;
      case 'start':
        if (typeof value !== 'string') throw mismatch(value, 'start', 'string');
        start = value;
        break;
    }
  }
  if (version !== CONTINUE_TOKEN_VERSION) {
    throw invalid(`server does not recognize this encoded version ${version}`);
  }
  if (rv === 0)
    throw invalid(`incorrect encoded start resourceVersion (version ${CONTINUE_TOKEN_VERSION})`);
  if (start === '') throw invalid(`encoded start key empty (version ${CONTINUE_TOKEN_VERSION})`);
  // Defends against path traversal: the start key can never leave (or widen) the key prefix.
  const key = start.startsWith('/') ? start : `/${start}`;
  if (!isCleanRootedPath(key)) throw invalid(start);
  return { resourceVersion: rv, start: key.slice(1) };
}

/** DecodeContinue: the full key to start from (`keyPrefix` + start) and the revision to read at. */
export function decodeContinue(
  token: string,
  keyPrefix: string,
): { fromKey: string; resourceVersion: number } {
  const decoded = decodeContinueToken(token);
  return { fromKey: keyPrefix + decoded.start, resourceVersion: decoded.resourceVersion };
}
