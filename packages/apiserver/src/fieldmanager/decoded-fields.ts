import type { FieldSet } from './fieldpath.js';
import { fieldsV1ToSet } from './fields-v1.js';

// managedFields kept decoded. Every update decodes the live object's managedFields into
// FieldSets before it merges (k8s.io/apimachinery pkg/util/managedfields/internal/
// managedfields.go DecodeManagedFields), and the FieldsV1 of a kind's objects repeat: each Pod
// of a Deployment, each ConfigMap a controller writes, has the same fields owned by the same
// managers. FieldSets are never changed once built (union, difference and the rest make new
// ones, sharing subtrees), so one decoded set serves every entry with the same FieldsV1.

/** Bytes of FieldsV1 JSON the cache holds at most; the whole cache is dropped past it. */
const MAX_BYTES = 4 * 2 ** 20;

/**
 * By the FieldsV1's JSON, not by object: most live objects are fresh decodes of stored bytes, and
 * a WeakMap entry for each would be an ephemeron for the garbage collector to trace per write.
 */
const byJson = new Map<string, FieldSet>();
let bytes = 0;

/** fieldsV1ToSet of `fields`, decoded once for every equal FieldsV1; throws as it does. */
export function decodedFieldSet(fields: unknown): FieldSet {
  if (fields === null || typeof fields !== 'object') return fieldsV1ToSet(fields);
  const json = JSON.stringify(fields);
  let set = byJson.get(json);
  if (set === undefined) {
    set = fieldsV1ToSet(fields);
    if (bytes + json.length > MAX_BYTES) {
      byJson.clear();
      bytes = 0;
    }
    byJson.set(json, set);
    bytes += json.length;
  }
  return set;
}
