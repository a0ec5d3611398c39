import { builtinResources, jsonFields, jsonShape, schemaFor, type JsonShape } from '@listwatch/api';
import { describe, expect, it } from 'vitest';
import {
  NO_PATCH_FIELD,
  patchField,
  patchSchemaFor,
  type PatchField,
  type PatchSchema,
} from './patch-schema.js';

/** The metadata at a dotted field path (list items are walked through transparently). */
function fieldAt(schema: PatchSchema | undefined, path: string): PatchField {
  let field: PatchField = { ...(schema ? { schema } : {}) };
  for (const part of path.split('.')) field = patchField(field.schema, part);
  return field;
}

// Expected tags, from k8s.io/api core/v1 and apps/v1 types.go and metav1 types.go.
const TAGS: [string, string, PatchField['strategy'], string | undefined][] = [
  ['Pod', 'metadata.finalizers', 'merge', undefined],
  ['Pod', 'metadata.ownerReferences', 'merge', 'uid'],
  ['Pod', 'spec.containers', 'merge', 'name'],
  ['Pod', 'spec.initContainers', 'merge', 'name'],
  ['Pod', 'spec.ephemeralContainers', 'merge', 'name'],
  ['Pod', 'spec.containers.env', 'merge', 'name'],
  ['Pod', 'spec.containers.ports', 'merge', 'containerPort'],
  ['Pod', 'spec.containers.volumeMounts', 'merge', 'mountPath'],
  ['Pod', 'spec.initContainers.volumeDevices', 'merge', 'devicePath'],
  ['Pod', 'spec.volumes', 'merge', 'name'],
  ['Pod', 'spec.imagePullSecrets', 'merge', 'name'],
  ['Pod', 'spec.hostAliases', 'merge', 'ip'],
  ['Pod', 'spec.topologySpreadConstraints', 'merge', 'topologyKey'],
  ['Pod', 'spec.schedulingGates', 'merge', 'name'],
  ['Pod', 'spec.tolerations', undefined, undefined],
  ['Pod', 'spec.containers.envFrom', undefined, undefined],
  ['Pod', 'status.conditions', 'merge', 'type'],
  ['Pod', 'status.podIPs', 'merge', 'ip'],
  ['Pod', 'status.containerStatuses', undefined, undefined],
  ['Node', 'spec.podCIDRs', 'merge', undefined],
  ['Node', 'spec.taints', undefined, undefined],
  ['Node', 'status.conditions', 'merge', 'type'],
  ['Node', 'status.addresses', 'merge', 'type'],
  ['Service', 'spec.ports', 'merge', 'port'],
  ['Namespace', 'status.conditions', 'merge', 'type'],
  ['Deployment.apps', 'spec.template.spec.containers', 'merge', 'name'],
  ['Deployment.apps', 'spec.template.spec.containers.env', 'merge', 'name'],
  ['Deployment.apps', 'spec.template.metadata.finalizers', 'merge', undefined],
  ['Deployment.apps', 'status.conditions', 'merge', 'type'],
  ['ReplicaSet.apps', 'spec.template.spec.volumes', 'merge', 'name'],
  ['ReplicaSet.apps', 'status.conditions', 'merge', 'type'],
  ['ConfigMap', 'metadata.ownerReferences', 'merge', 'uid'],
  ['Secret', 'metadata.finalizers', 'merge', undefined],
  ['Event', 'metadata.finalizers', 'merge', undefined],
  ['Lease.coordination.k8s.io', 'metadata.ownerReferences', 'merge', 'uid'],
  ['Pod', 'spec.resourceClaims', 'merge', 'name'],
  ['Pod', 'spec.containers.resizePolicy', undefined, undefined],
  ['Pod', 'spec.readinessGates', undefined, undefined],
];

function structOf(shape: JsonShape): string | undefined {
  if (shape.kind === 'list') return structOf(shape.items);
  if (shape.kind === 'map') return structOf(shape.values);
  return shape.kind === 'struct' ? shape.name : undefined;
}

describe('patchSchemaFor (struct tags of the built-in kinds)', () => {
  it.each(TAGS)('%s %s has strategy %s and merge key %s', (kind, path, strategy, mergeKey) => {
    const field = fieldAt(patchSchemaFor(kind), path);
    expect(field.strategy).toBe(strategy);
    expect(field.mergeKey).toBe(mergeKey);
  });

  it('retainKeys is recorded where upstream tags it', () => {
    expect(fieldAt(patchSchemaFor('Deployment.apps'), 'spec.strategy').retainKeys).toBe(true);
    expect(fieldAt(patchSchemaFor('Pod'), 'spec.volumes').retainKeys).toBe(true);
    expect(fieldAt(patchSchemaFor('Pod'), 'spec.containers').retainKeys).toBeUndefined();
  });

  it('takes a GroupKind or its string form', () => {
    expect(patchSchemaFor({ group: 'apps', kind: 'Deployment' })).toBe(
      patchSchemaFor('Deployment.apps'),
    );
    expect(patchSchemaFor({ group: '', kind: 'Pod' })).toBe(patchSchemaFor('Pod'));
    expect(patchSchemaFor({ kind: 'Lease', group: 'coordination.k8s.io' })).toBeDefined();
  });

  it('has no schema for kinds we do not serve or that need a group', () => {
    expect(patchSchemaFor('Deployment')).toBeUndefined();
    expect(patchSchemaFor('Widget.example.com')).toBeUndefined();
  });

  it('agrees with the schema source on every field of every served kind, at any depth', () => {
    for (const def of builtinResources) {
      const seen = new Set<string>();
      const walk = (type: string, schema: PatchSchema | undefined) => {
        if (seen.has(type)) return;
        seen.add(type);
        for (const [name, field] of jsonFields(type)) {
          const meta = patchField(schema, name);
          const strategy = field.patchStrategy?.split(',') ?? [];
          expect(meta.mergeKey, `${type}.${name}`).toBe(field.patchMergeKey);
          expect(meta.strategy, `${type}.${name}`).toBe(
            strategy.includes('merge')
              ? 'merge'
              : strategy.includes('replace')
                ? 'replace'
                : undefined,
          );
          expect(meta.retainKeys ?? false, `${type}.${name}`).toBe(strategy.includes('retainKeys'));
          const inner = structOf(jsonShape(field.type));
          if (inner) walk(inner, meta.schema);
          else expect(meta.schema).toBeUndefined();
        }
      };
      walk(schemaFor(def)?.name ?? '', patchSchemaFor(def));
    }
  });

  it('unknown fields, prototype names included, have no metadata', () => {
    const pod = patchSchemaFor('Pod');
    expect(patchField(pod, 'nonsense')).toBe(NO_PATCH_FIELD);
    expect(patchField(pod, 'constructor')).toBe(NO_PATCH_FIELD);
    expect(patchField(pod, '__proto__')).toBe(NO_PATCH_FIELD);
    expect(patchField(undefined, 'spec')).toBe(NO_PATCH_FIELD);
  });
});
