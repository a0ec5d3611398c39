import { isRecord, type KubeObject } from '@listwatch/api';
import type { Revision } from './storage.js';
import { StorageError, isStorageError } from './storage-error.js';
import type { TransformerForKey } from './value/transformer.js';
import { setResourceVersion } from './api-object-versioner.js';

/** What a backend stores for an object: its JSON, or the bytes its transformers make of it. */
export type StoredValue = string | Uint8Array;

/** etcd's default `--max-request-bytes` (1.5 MiB): the largest write etcd accepts. */
export const MAX_REQUEST_BYTES = 1_572_864;

/**
 * Bytes of an etcd write request beyond the value and keys (txn framing, compare, raft entry).
 * Measured against etcd 3.4 with generous headroom, so every backend refuses the same objects.
 */
const REQUEST_OVERHEAD = 512;

/**
 * The largest stored object (JSON bytes) allowed under `key`: a write carries the key three times
 * (compare, put and the else-branch read) besides the value.
 */
export function maxObjectBytes(key: string): number {
  return MAX_REQUEST_BYTES - REQUEST_OVERHEAD - 3 * Buffer.byteLength(key);
}

/**
 * The bytes stored for an object: its JSON without `metadata.resourceVersion`, which the storage
 * owns (kube-apiserver's etcd3 store clears it before writing too). Refuses non-objects, values
 * JSON cannot represent, and anything over the size limit, before any backend is touched.
 */
export function encodeObject(key: string, object: KubeObject): string {
  if (!isRecord(object)) throw StorageError.invalidObject(key, 'not a JSON object');
  if (!isRecord(object.metadata))
    throw StorageError.invalidObject(key, 'metadata is not an object');
  const { resourceVersion: _ignored, ...metadata } = object.metadata;
  let data: string;
  try {
    data = JSON.stringify({ ...object, metadata });
  } catch (err) {
    throw StorageError.invalidObject(
      key,
      `not serializable as JSON: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  const bytes = Buffer.byteLength(data);
  const limit = maxObjectBytes(key);
  if (bytes > limit) throw StorageError.tooLarge(key, bytes, limit);
  return data;
}

/**
 * The object stored under `key` at `revision`, with `metadata.resourceVersion` set from it.
 * Anything that is not a JSON object with a metadata object is CorruptObject, naming the key.
 */
export function decodeObject(key: string, data: StoredValue, revision: Revision): KubeObject {
  const text =
    typeof data === 'string'
      ? data
      : Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw StorageError.corruptObject(
      key,
      `stored value is not JSON: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  if (!isRecord(parsed)) throw StorageError.corruptObject(key, 'stored value is not a JSON object');
  const metadata = parsed['metadata'];
  if (!isRecord(metadata))
    throw StorageError.corruptObject(key, 'stored value has no metadata object');
  setResourceVersion(metadata, revision);
  return parsed as KubeObject;
}

/** Objects read through a transformer that would now write them differently (an old key). */
const staleObjects = new WeakSet<KubeObject>();

/**
 * Whether `object`, as storage returned it, was stored by an older transformer: an update that
 * changes nothing must still be written, so that rewriting re-encrypts (kube's GuaranteedUpdate
 * `origState.stale`).
 */
export function isStale(object: KubeObject): boolean {
  return staleObjects.has(object);
}

/**
 * Objects to stored values and back through the storage's transformers (encryption at rest);
 * what every backend writes and reads. Without transformers the value is the JSON itself.
 */
export class StoredObjectCodec {
  constructor(private readonly transformerFor: TransformerForKey = () => undefined) {}

  encode(key: string, object: KubeObject): StoredValue {
    return this.fromJson(key, encodeObject(key, object));
  }

  /** The stored value of an object already encoded by encodeObject. */
  fromJson(key: string, json: string): StoredValue {
    const transformer = this.transformerFor(key);
    if (!transformer) return json;
    const data = transformer.toStorage(Buffer.from(json), key);
    const limit = maxObjectBytes(key);
    if (data.length > limit) throw StorageError.tooLarge(key, data.length, limit);
    return data;
  }

  decode(key: string, data: StoredValue, revision: Revision): KubeObject {
    const transformer = this.transformerFor(key);
    if (!transformer) return decodeObject(key, data, revision);
    let plain: { data: Uint8Array; stale: boolean };
    try {
      plain = transformer.fromStorage(typeof data === 'string' ? Buffer.from(data) : data, key);
    } catch (err) {
      // value/transformer.go: no configured key reads it (a key removed from the config).
      throw StorageError.corruptObject(
        key,
        `unable to transform stored value: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
    const object = decodeObject(key, plain.data, revision);
    if (plain.stale) staleObjects.add(object);
    return object;
  }
}

/** The codec of a storage without transformers. */
export const plainObjects = new StoredObjectCodec();

/**
 * Decodes a page of rows. A row that does not decode (CorruptObject) fails the LIST naming
 * every such key, as kube's GetList; with `skipCorrupt` it is left out and reported instead
 * (what the watch cache lists with, so one unreadable object never keeps it from starting).
 */
export function decodeRows<R>(
  prefix: string,
  rows: readonly R[],
  keyOf: (row: R) => string,
  decode: (row: R) => KubeObject,
  skipCorrupt: boolean | undefined,
): { items: KubeObject[]; keys: string[]; corrupt?: StorageError[] } {
  const items: KubeObject[] = [];
  const keys: string[] = [];
  const corrupt: StorageError[] = [];
  for (const row of rows) {
    try {
      items.push(decode(row));
      keys.push(keyOf(row));
    } catch (err) {
      if (!isStorageError(err, 'CorruptObject')) throw err;
      corrupt.push(err);
    }
  }
  if (corrupt.length === 0) return { items, keys };
  if (!skipCorrupt) throw StorageError.corruptList(prefix, corrupt);
  return { items, keys, corrupt };
}
