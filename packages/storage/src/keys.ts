import { StorageError } from './storage-error.js';

/** Where kube-apiserver keeps its objects in etcd (`--etcd-prefix`). */
export const DEFAULT_PREFIX = '/registry';

/**
 * Why a path segment is unusable, or undefined when it is fine. Empty, `.` and `..` segments
 * could make two spellings name one object or escape the prefix (k8s.io/apiserver
 * pkg/storage/etcd3/store.go prepareKey rejects the same); control characters and lone
 * surrogates have no stable byte form in etcd, SQLite and JSON alike.
 */
function segmentProblem(segment: string): string | undefined {
  if (segment === '') return 'empty path segment';
  if (segment === '.' || segment === '..') return `path segment "${segment}" is not allowed`;
  for (let i = 0; i < segment.length; i++) {
    const c = segment.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return 'control character';
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = segment.charCodeAt(i + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) return 'lone surrogate';
      i++;
    } else if (c >= 0xdc00 && c <= 0xdfff) {
      return 'lone surrogate';
    }
  }
  return undefined;
}

function checkSegments(original: string, path: string): void {
  for (const segment of path.split('/')) {
    const problem = segmentProblem(segment);
    if (problem) throw StorageError.invalidKey(original, problem);
  }
}

/** A storage prefix: absolute, no trailing slash, clean segments (`/registry`). */
export function validateStoragePrefix(prefix: string): string {
  if (!prefix.startsWith('/'))
    throw StorageError.invalidKey(prefix, 'the storage prefix must start with "/"');
  checkSegments(prefix, prefix.slice(1));
  return prefix;
}

/** The key of one object: `<prefix>/<resource>/[<namespace>/]<name>`, clean segments. */
export function validateKey(storagePrefix: string, key: string): string {
  if (!key.startsWith(`${storagePrefix}/`)) {
    throw StorageError.invalidKey(key, `not under the storage prefix ${storagePrefix}`);
  }
  checkSegments(key, key.slice(storagePrefix.length + 1));
  return key;
}

/**
 * A list or watch prefix under the storage prefix, returned ending in `/`: kube-apiserver appends
 * the slash too, so listing `/registry/pods/ns` never picks up `/registry/pods/ns-2/...`.
 */
export function validateListPrefix(storagePrefix: string, prefix: string): string {
  if (prefix === storagePrefix || prefix === `${storagePrefix}/`) return `${storagePrefix}/`;
  if (!prefix.startsWith(`${storagePrefix}/`)) {
    throw StorageError.invalidKey(prefix, `not under the storage prefix ${storagePrefix}`);
  }
  const rest = prefix.slice(storagePrefix.length + 1);
  checkSegments(prefix, rest.endsWith('/') ? rest.slice(0, -1) : rest);
  return rest.endsWith('/') ? prefix : `${prefix}/`;
}

/** A list continuation point: any position inside the listed prefix (often `lastKey + "\0"`). */
export function validateContinueFrom(listPrefix: string, from: string): string {
  if (!from.startsWith(listPrefix))
    throw StorageError.invalidKey(from, `continue key is not under ${listPrefix}`);
  return from;
}

/** The smallest key after every key starting with `prefix` (etcd's range_end for a prefix). */
export function prefixEnd(prefix: string): string {
  // Prefixes here end in '/', the byte before '0'; bumping it keeps the result valid UTF-8.
  if (!prefix.endsWith('/')) throw new Error(`prefixEnd needs a prefix ending in "/": ${prefix}`);
  return `${prefix.slice(0, -1)}0`;
}

/** The key right after `key` in byte order: where the next page of a list starts. */
export function keyAfter(key: string): string {
  return `${key}\u0000`;
}

/**
 * Orders keys by their UTF-8 bytes, as etcd and SQLite do. UTF-16 code-unit order agrees except
 * between surrogates (U+10000 and up) and U+E000..U+FFFF, which is fixed up here.
 */
export function compareKeys(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x - y;
  }
  return a.length - b.length;
}
