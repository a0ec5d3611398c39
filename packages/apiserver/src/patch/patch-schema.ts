import {
  jsonFields,
  jsonShape,
  patchStrategyOf,
  schemaSource,
  type JsonShape,
} from '@listwatch/api';

// What strategic merge patch needs to know about the built-in types we serve: which lists merge
// by key instead of being replaced. Read from the schema source of @listwatch/api, whose
// +patchStrategy/+patchMergeKey come from upstream's generated.proto (the `patchStrategy` and
// `patchMergeKey` struct tags of k8s.io/api). A field without them has no strategy: maps merge
// key by key and lists are replaced whole, exactly what an untagged Go field does.

/** One field's patch metadata (forkedjson.LookupPatchMetadata). */
export interface PatchField {
  /** `patchStrategy:"merge"` merges lists (by `mergeKey`, or as a set for primitives); `replace` replaces maps. */
  readonly strategy?: 'merge' | 'replace';
  /** `patchStrategy:"...,retainKeys"`: only matters when building patches; applying honours `$retainKeys`. */
  readonly retainKeys?: boolean;
  /** `patchMergeKey`: the member that identifies an item of a merged list of objects. */
  readonly mergeKey?: string;
  /** The struct this field holds, or the struct each item of this list holds. */
  readonly schema?: PatchSchema;
}

/** A struct: its JSON fields, each with its patch metadata. */
export interface PatchSchema {
  readonly [field: string]: PatchField;
}

/** A field with no metadata and no known fields below it. */
export const NO_PATCH_FIELD: PatchField = Object.freeze({});

/** The metadata for one field of a struct; unknown fields have none. */
export function patchField(schema: PatchSchema | undefined, field: string): PatchField {
  return schema !== undefined && Object.hasOwn(schema, field)
    ? (schema[field] as PatchField)
    : NO_PATCH_FIELD;
}

const structs = new Map<string, PatchSchema>();

/** The struct a list holds, a map holds, or the field itself, if any. */
function structOf(shape: JsonShape): string | undefined {
  let inner = shape;
  while (inner.kind === 'list' || inner.kind === 'map') {
    inner = inner.kind === 'list' ? inner.items : inner.values;
  }
  return inner.kind === 'struct' ? inner.name : undefined;
}

/** A struct's fields with their tags, built once per type (and so safe for recursive types). */
function structSchema(name: string): PatchSchema {
  const known = structs.get(name);
  if (known) return known;
  const fields: Record<string, PatchField> = {};
  structs.set(name, fields);
  for (const [key, field] of jsonFields(name)) {
    const { merge, replace, retainKeys, mergeKey } = patchStrategyOf(field);
    const struct = structOf(jsonShape(field.type));
    fields[key] = Object.freeze({
      ...(merge ? { strategy: 'merge' } : replace ? { strategy: 'replace' } : {}),
      ...(retainKeys ? { retainKeys } : {}),
      ...(mergeKey ? { mergeKey } : {}),
      ...(struct ? { schema: structSchema(struct) } : {}),
    } satisfies PatchField);
  }
  return Object.freeze(fields);
}

/** A group and kind, as a ResourceDefinition carries them (`''` is the core group). */
export interface GroupKind {
  group?: string;
  kind: string;
}

/**
 * The strategic-merge schema of a built-in kind, or undefined for kinds we have no struct tags
 * for (kube refuses strategic merge patch for those, as for custom resources). Takes a
 * GroupKind or its string form: `Pod`, `Deployment.apps`, `Lease.coordination.k8s.io`.
 */
export function patchSchemaFor(groupKind: GroupKind | string): PatchSchema | undefined {
  let group = typeof groupKind === 'string' ? '' : (groupKind.group ?? '');
  let kind = typeof groupKind === 'string' ? groupKind : groupKind.kind;
  if (typeof groupKind === 'string' && groupKind.includes('.')) {
    group = groupKind.slice(groupKind.indexOf('.') + 1);
    kind = groupKind.slice(0, groupKind.indexOf('.'));
  }
  const found = schemaSource.kinds.find((k) => k.group === group && k.kind === kind);
  return found && structSchema(found.type);
}
