import type { FieldSet } from './fieldpath.js';
import { fieldsV1ToSet } from './fields-v1.js';

// managedFields kept decoded. Every update decodes the live object's managedFields into
// FieldSets before it merges (k8s.io/apimachinery pkg/util/managedfields/internal/
// managedfields.go DecodeManagedFields), and the FieldsV1 of a kind's objects repeat: each Pod
// of a Deployment, each ConfigMap a controller writes, has the same fields owned by the same
// managers. FieldSets are never changed once built (union, difference and the rest make new
// ones, sharing subtrees), so one decoded set serves every entry with the same FieldsV1.

/**
 * Bytes of FieldsV1 JSON per generation. A decoded FieldSet costs about 7 times its JSON, and a
 * pod's own FieldsV1 is unique to it (its `kube-api-access-<random>` volume, its owner's uid), so
 * the cache mostly holds the sets of the objects written in the last seconds: 4 MB of JSON held
 * 29 MB of sets in a 3,000-pod density run (issue 35), 256 KB holds about a hundred pods.
 */
const GENERATION_BYTES = 256 * 1024;

/**
 * By the FieldsV1's JSON, not by object: most live objects are fresh decodes of stored bytes, and
 * a WeakMap entry for each would be an ephemeron for the garbage collector to trace per write.
 * Two generations: a full one becomes the old one, and an entry read from the old one moves to
 * the new, so what the next writes need survives a turn (a pod's bind and status writes follow
 * its create) and the rest is dropped with the old generation.
 */
let current = new Map<string, FieldSet>();
let previous = new Map<string, FieldSet>();
let bytes = 0;

/** fieldsV1ToSet of `fields`, decoded once for every equal FieldsV1; throws as it does. */
export function decodedFieldSet(fields: unknown): FieldSet {
  if (fields === null || typeof fields !== 'object') return fieldsV1ToSet(fields);
  const json = JSON.stringify(fields);
  let set = current.get(json);
  if (set !== undefined) return set;
  set = previous.get(json) ?? fieldsV1ToSet(fields);
  if (bytes + json.length > GENERATION_BYTES) {
    previous = current;
    current = new Map();
    bytes = 0;
  }
  current.set(json, set);
  bytes += json.length;
  return set;
}
