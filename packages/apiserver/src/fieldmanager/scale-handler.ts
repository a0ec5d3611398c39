import { FieldSet, type Path } from './fieldpath.js';
import {
  decodeManagedFields,
  encodeManagedFields,
  emptyManaged,
  type ManagedFieldsEntry,
} from './managed-fields.js';

// The managedFields of the scale subresource and of its parent, as
// k8s.io/apimachinery/pkg/util/managedfields/scalehandler.go converts them: a Scale write is
// tracked on the autoscaling/v1 Scale, whose spec.replicas stands for the parent's replicas
// path of its apiVersion (spec.replicas; a CRD version's specReplicasPath).

const SCALE_API_VERSION = 'autoscaling/v1';
const REPLICAS_IN_SCALE: Path = [{ field: 'spec' }, { field: 'replicas' }];

/**
 * ResourcePathMappings: the replicas path of each apiVersion of the parent; undefined for a
 * version without a scale subresource (a CRD version without one). Versions not listed are
 * unknown: their entries are dropped.
 */
export type ReplicasPathMappings = ReadonlyMap<string, Path | undefined>;

/** A path of field names from a CRD's specReplicasPath (`.spec.replicas`). */
export function replicasPath(jsonPath: string): Path {
  return jsonPath
    .replace(/^\./, '')
    .split('.')
    .map((field) => ({ field }));
}

/**
 * ScaleHandler.ToSubresource: the parent's entries that own its replicas, as entries of the
 * Scale owning spec.replicas.
 */
export function scaleEntries(
  parentEntries: readonly unknown[] | undefined,
  mappings: ReplicasPathMappings,
): ManagedFieldsEntry[] | undefined {
  const parent = decodeManagedFields(parentEntries ?? []);
  const out = emptyManaged();
  for (const [manager, vs] of parent.fields) {
    const path = mappings.get(vs.apiVersion);
    if (!path || !vs.set.has(path)) continue;
    out.fields.set(manager, {
      set: FieldSet.of(REPLICAS_IN_SCALE),
      apiVersion: SCALE_API_VERSION,
      applied: vs.applied,
    });
    out.times.set(manager, parent.times.get(manager));
  }
  return encodeManagedFields(out);
}

/**
 * ScaleHandler.ToParent: the parent's entries after a Scale write of `apiVersion`. A manager of
 * the Scale's spec.replicas owns the parent's replicas path; a parent entry whose manager did
 * not write the Scale loses it ("stolen"). As upstream, an entry keeps the parent's time for its
 * manager (none for a manager new to the parent).
 */
export function parentEntries(
  parentEntries: readonly unknown[] | undefined,
  scaleEntries: readonly unknown[] | undefined,
  apiVersion: string,
  mappings: ReplicasPathMappings,
): ManagedFieldsEntry[] | undefined {
  const parent = decodeManagedFields(parentEntries ?? []);
  const scale = decodeManagedFields(scaleEntries ?? []).fields;
  const out = emptyManaged();
  for (const [manager, vs] of parent.fields) {
    if (!mappings.has(vs.apiVersion)) continue;
    const path = mappings.get(vs.apiVersion);
    const keep = () => {
      out.fields.set(manager, vs);
      out.times.set(manager, parent.times.get(manager));
    };
    if (!path || !vs.set.has(path)) keep();
    else if (!scale.has(manager)) {
      const set = vs.set.difference(FieldSet.of(path));
      if (!set.empty()) {
        out.fields.set(manager, { ...vs, set });
        out.times.set(manager, parent.times.get(manager));
      }
    } else {
      keep();
      scale.delete(manager);
    }
  }
  const path = mappings.get(apiVersion);
  for (const [manager, vs] of scale) {
    if (!vs.set.has(REPLICAS_IN_SCALE)) continue;
    out.fields.set(manager, {
      set: path ? FieldSet.of(path) : new FieldSet(),
      apiVersion,
      applied: vs.applied,
    });
    out.times.set(manager, parent.times.get(manager));
  }
  return encodeManagedFields(out);
}
