import { describe, expect, it } from 'vitest';
import { builtinResources } from './builtin-resource-definitions.js';
import {
  fieldAtPath,
  jsonFields,
  jsonShape,
  kindsOfType,
  mergeKeyAt,
  patchStrategyOf,
  schemaFor,
  schemaSource,
  schemaType,
  type JsonShape,
} from './schema.js';

// The generated schema source cannot be compared with upstream here (the .proto files stay
// outside the repository): these are the properties its consumers rely on.

const types = Object.entries(schemaSource.types);
const fieldsOfAll = types.flatMap(([name, t]) => t.fields.map((f) => ({ type: name, field: f })));

function elementOf(shape: JsonShape): JsonShape {
  return shape.kind === 'list' ? elementOf(shape.items) : shape;
}

describe('the schema source', () => {
  it('has a kind with a type for every served resource and its list, and no list kind for a create-only review', () => {
    for (const def of builtinResources) {
      const kind = schemaFor(def);
      expect(kind?.name, `${def.group}/${def.version}/${def.kind}`).toMatch(
        new RegExp(`^io\\.k8s\\.api\\.\\w+\\.${def.version}\\.${def.kind}$`),
      );
      expect(jsonFields(kind?.name ?? '').get('metadata')?.type).toBe(
        'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
      );
      const list = schemaFor({ ...def, kind: def.listKind });
      if (!def.verbs.includes('list')) {
        expect(list, `${def.kind} has no list`).toBeUndefined();
        continue;
      }
      expect(jsonFields(list?.name ?? '').get('items')?.type).toBe(`[]${kind?.name ?? ''}`);
    }
  });

  it('has the subresource bodies and the metav1 kinds the apiserver writes', () => {
    for (const [group, kind] of [
      ['', 'Binding'],
      ['autoscaling', 'Scale'],
      ['policy', 'Eviction'],
      ['', 'Status'],
      ['', 'DeleteOptions'],
      ['meta.k8s.io', 'DeleteOptions'],
      ['', 'APIResourceList'],
    ] as const) {
      expect(schemaFor({ group, version: 'v1', kind }), kind).toBeDefined();
    }
    expect(kindsOfType('io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions').length).toBe(2);
  });

  it('resolves every field type: each named type is in the source', () => {
    for (const { type, field } of fieldsOfAll) {
      expect(() => jsonShape(field.type), `${type}.${field.name}`).not.toThrow();
    }
    for (const kind of schemaSource.kinds) expect(schemaType(kind.type), kind.kind).toBeDefined();
  });

  it('numbers and names each field of a type once, embedded fields included', () => {
    for (const [name, type] of types) {
      const numbers = type.fields.map((f) => f.number);
      expect(new Set(numbers).size, name).toBe(numbers.length);
      const own = type.fields.filter((f) => !f.inline).length;
      const embedded = type.fields
        .filter((f) => f.inline)
        .reduce((n, f) => n + jsonFields(f.type).size, 0);
      expect(
        jsonFields(name).size - (schemaSource.kinds.some((k) => k.type === name) ? 2 : 0),
        name,
      ).toBe(own + embedded);
    }
  });

  it('keys merged and map lists by fields their items have', () => {
    for (const { type, field } of fieldsOfAll) {
      const item = elementOf(jsonShape(field.type));
      const keys = [
        ...(field.listMapKeys ?? []),
        ...(field.patchMergeKey ? [field.patchMergeKey] : []),
      ];
      if (keys.length === 0) continue;
      expect(jsonShape(field.type).kind, `${type}.${field.name}`).toBe('list');
      if (item.kind !== 'struct') throw new Error(`${type}.${field.name} keys non-structs`);
      for (const key of keys)
        expect(jsonFields(item.name).has(key), `${type}.${field.name}: ${key}`).toBe(true);
      if (field.listType === 'map')
        expect(field.listMapKeys?.length, `${type}.${field.name}`).toBeGreaterThan(0);
    }
  });

  it('describes without the Go markers', () => {
    for (const { type, field } of fieldsOfAll) {
      expect(field.description ?? '', `${type}.${field.name}`).not.toMatch(/(^|\n)\+\w/);
    }
    expect(jsonFields('io.k8s.api.core.v1.Container').get('image')?.description).toMatch(
      /^Container image name\. More info: /,
    );
  });

  it('carries the strategic merge keys and strategies of k8s.io/api', () => {
    const pod = { group: '', version: 'v1', kind: 'Pod' };
    expect(mergeKeyAt(pod, 'spec.containers')).toBe('name');
    expect(mergeKeyAt(pod, 'spec.initContainers')).toBe('name');
    expect(mergeKeyAt(pod, 'spec.ephemeralContainers')).toBe('name');
    expect(mergeKeyAt(pod, 'spec.containers.ports')).toBe('containerPort');
    expect(mergeKeyAt(pod, 'spec.containers.env')).toBe('name');
    expect(mergeKeyAt(pod, 'spec.volumes')).toBe('name');
    expect(mergeKeyAt(pod, 'metadata.ownerReferences')).toBe('uid');
    expect(mergeKeyAt(pod, 'spec.tolerations')).toBeUndefined();
    const volumes = fieldAtPath(pod, 'spec.volumes');
    expect(volumes && patchStrategyOf(volumes)).toEqual({
      merge: true,
      replace: false,
      retainKeys: true,
      mergeKey: 'name',
    });
    const strategy = fieldAtPath(
      { group: 'apps', version: 'v1', kind: 'Deployment' },
      'spec.strategy',
    );
    expect(strategy?.patchStrategy).toBe('retainKeys');
    expect(fieldAtPath(pod, 'metadata.finalizers')?.patchStrategy).toBe('merge');
    expect(fieldAtPath(pod, 'spec.containers.ports')?.listMapKeys).toEqual([
      'containerPort',
      'protocol',
    ]);
    expect(mergeKeyAt({ group: '', version: 'v1', kind: 'Service' }, 'spec.ports')).toBe('port');
  });

  it('writes the fields of embedded structs in their parent, as Go embeds them', () => {
    const has = (type: string, ...names: string[]) => {
      for (const n of names) expect(jsonFields(type).has(n), `${type}.${n}`).toBe(true);
    };
    has('io.k8s.api.core.v1.Volume', 'name', 'hostPath', 'configMap', 'projected');
    has('io.k8s.api.core.v1.Probe', 'httpGet', 'exec', 'periodSeconds');
    has('io.k8s.api.core.v1.EphemeralContainer', 'name', 'image', 'targetContainerName');
    has('io.k8s.api.core.v1.SecretKeySelector', 'name', 'key');
    expect(jsonFields('io.k8s.api.core.v1.Volume').has('volumeSource')).toBe(false);
  });

  it('gives kinds apiVersion and kind first, other types neither', () => {
    expect([...jsonFields('io.k8s.api.core.v1.Pod').keys()]).toEqual([
      'apiVersion',
      'kind',
      'metadata',
      'spec',
      'status',
    ]);
    expect(jsonFields('io.k8s.api.core.v1.PodSpec').has('kind')).toBe(false);
  });

  it('knows the JSON of types that marshal themselves', () => {
    const meta = 'io.k8s.apimachinery.pkg.apis.meta.v1';
    expect(jsonShape(`${meta}.Time`)).toEqual({
      kind: 'special',
      form: 'date-time',
      name: `${meta}.Time`,
    });
    expect(jsonShape('io.k8s.apimachinery.pkg.api.resource.Quantity')).toMatchObject({
      form: 'quantity',
    });
    expect(jsonShape('io.k8s.apimachinery.pkg.util.intstr.IntOrString')).toMatchObject({
      form: 'int-or-string',
    });
    expect(jsonShape(`${meta}.FieldsV1`)).toMatchObject({ form: 'object' });
    // metav1.Verbs is a named []string: JSON has the list.
    expect(jsonShape(`${meta}.Verbs`)).toEqual({
      kind: 'list',
      items: { kind: 'scalar', scalar: 'string' },
    });
    expect(jsonShape('map[string]bytes')).toEqual({
      kind: 'map',
      values: { kind: 'scalar', scalar: 'bytes' },
    });
  });

  it('finds fields by path through lists and maps, and nothing for unknown or inherited names', () => {
    const deployment = { group: 'apps', version: 'v1', kind: 'Deployment' };
    expect(
      fieldAtPath(deployment, 'spec.template.spec.containers.livenessProbe.httpGet.port')?.type,
    ).toBe('io.k8s.apimachinery.pkg.util.intstr.IntOrString');
    expect(fieldAtPath(deployment, ['spec', 'replicas'])?.type).toBe('int32');
    expect(fieldAtPath(deployment, 'spec.nonsense')).toBeUndefined();
    expect(fieldAtPath(deployment, 'spec.replicas.more')).toBeUndefined();
    expect(fieldAtPath(deployment, 'constructor')).toBeUndefined();
    expect(
      fieldAtPath({ group: 'example.com', version: 'v1', kind: 'Widget' }, 'spec'),
    ).toBeUndefined();
    expect(schemaType('constructor')).toBeUndefined();
    expect(schemaType('__proto__')).toBeUndefined();
  });

  it('marks required only what upstream marks +required', () => {
    const spec = [...jsonFields('io.k8s.api.apps.v1.DeploymentSpec').values()];
    expect(spec.filter((f) => f.required).map((f) => f.name)).toEqual(['selector', 'template']);
    expect(jsonFields('io.k8s.api.apps.v1.DeploymentSpec').get('replicas')?.optional).toBe(true);
  });
});
