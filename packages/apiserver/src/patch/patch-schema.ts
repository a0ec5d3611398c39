// What strategic merge patch needs to know about the built-in types we serve: which lists merge
// by key instead of being replaced. Transcribed from the `patchStrategy`/`patchMergeKey` struct
// tags in k8s.io/api (core/v1/types.go, apps/v1/types.go, coordination/v1/types.go) and
// k8s.io/apimachinery/pkg/apis/meta/v1/types.go. Fields not listed have no strategy: maps merge
// key by key and lists are replaced whole — exactly what an untagged Go field does.
// Untagged on purpose (as upstream): tolerations, NodeSpec.taints, readinessGates, envFrom,
// container resizePolicy, status container statuses.

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

/** A struct: its JSON fields that carry patch metadata or lead to ones that do. */
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

function mergeList(mergeKey: string, schema?: PatchSchema, retainKeys = false): PatchField {
  return {
    strategy: 'merge',
    mergeKey,
    ...(retainKeys ? { retainKeys } : {}),
    ...(schema ? { schema } : {}),
  };
}

function struct(schema: PatchSchema): PatchField {
  return { schema };
}

/** A list of primitives merged as a set (`patchStrategy:"merge"`, no key): finalizers, podCIDRs. */
const MERGE_SET: PatchField = { strategy: 'merge' };

// metav1.ObjectMeta
const OBJECT_META: PatchSchema = {
  finalizers: MERGE_SET,
  ownerReferences: mergeList('uid'),
};

// core/v1 Container and EphemeralContainerCommon carry the same tags.
const CONTAINER: PatchSchema = {
  ports: mergeList('containerPort'),
  env: mergeList('name'),
  volumeMounts: mergeList('mountPath'),
  volumeDevices: mergeList('devicePath'),
};

const POD_SPEC: PatchSchema = {
  volumes: mergeList('name', undefined, true),
  initContainers: mergeList('name', CONTAINER),
  containers: mergeList('name', CONTAINER),
  ephemeralContainers: mergeList('name', CONTAINER),
  imagePullSecrets: mergeList('name'),
  hostAliases: mergeList('ip'),
  topologySpreadConstraints: mergeList('topologyKey'),
  schedulingGates: mergeList('name'),
  resourceClaims: mergeList('name', undefined, true),
};

const POD_STATUS: PatchSchema = {
  conditions: mergeList('type'),
  podIPs: mergeList('ip'),
  hostIPs: mergeList('ip'),
  resourceClaimStatuses: mergeList('name', undefined, true),
};

const POD_TEMPLATE_SPEC: PatchSchema = {
  metadata: struct(OBJECT_META),
  spec: struct(POD_SPEC),
};

/** Conditions merged by type: the shape of most status structs. */
const CONDITIONS_STATUS: PatchSchema = { conditions: mergeList('type') };

function kind(fields: PatchSchema = {}): PatchSchema {
  return { metadata: struct(OBJECT_META), ...fields };
}

const SCHEMAS: ReadonlyMap<string, PatchSchema> = new Map<string, PatchSchema>([
  ['Pod', kind({ spec: struct(POD_SPEC), status: struct(POD_STATUS) })],
  ['ConfigMap', kind()],
  ['Secret', kind()],
  ['Event', kind()],
  ['Namespace', kind({ status: struct(CONDITIONS_STATUS) })],
  [
    'Node',
    kind({
      spec: struct({ podCIDRs: MERGE_SET }),
      status: struct({ conditions: mergeList('type'), addresses: mergeList('type') }),
    }),
  ],
  [
    'Service',
    kind({ spec: struct({ ports: mergeList('port') }), status: struct(CONDITIONS_STATUS) }),
  ],
  [
    'Deployment.apps',
    kind({
      spec: struct({ strategy: { retainKeys: true }, template: struct(POD_TEMPLATE_SPEC) }),
      status: struct(CONDITIONS_STATUS),
    }),
  ],
  [
    'ReplicaSet.apps',
    kind({
      spec: struct({ template: struct(POD_TEMPLATE_SPEC) }),
      status: struct(CONDITIONS_STATUS),
    }),
  ],
  ['Lease.coordination.k8s.io', kind()],
]);

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
  const key =
    typeof groupKind === 'string'
      ? groupKind
      : groupKind.group
        ? `${groupKind.kind}.${groupKind.group}`
        : groupKind.kind;
  return SCHEMAS.get(key);
}
