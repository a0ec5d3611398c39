import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FieldSet, type Path } from './fieldpath.js';
import type { ManagedFields } from './merge.js';
import { fromOpenAPI } from '../apiextensions/schema/structural.js';
import { atomForKind, atomFromStructural } from './schema.js';
import {
  KBF,
  P,
  parseSmdSchema,
  runSmdCase,
  V,
  yamlObject,
  type SmdTestCase,
} from './smd-fixture.test-helper.js';
import { Conflicts, Updater } from './merge.js';

// Cases from structured-merge-diff's merge tests (merge/*_test.go), run through the fixture of
// smd-fixture.test-helper.ts; each `it` names the upstream test function and case. Versions
// are all v1 here: every kind is served at one version.

const leafFields = parseSmdSchema(
  `types:
- name: leafFields
  map:
    fields:
    - name: numeric
      type: {scalar: numeric}
    - name: string
      type: {scalar: string}
    - name: bool
      type: {scalar: boolean}`,
  'leafFields',
);

const setFields = parseSmdSchema(
  `types:
- name: sets
  map:
    fields:
    - name: list
      type:
        list:
          elementType: {scalar: string}
          elementRelationship: associative`,
  'sets',
);

const associativeList = parseSmdSchema(
  `types:
- name: type
  map:
    fields:
      - name: list
        type: {namedType: associativeList}
- name: associativeList
  list:
    elementType: {namedType: myElement}
    elementRelationship: associative
    keys: [name]
- name: myElement
  map:
    fields:
    - name: name
      type: {scalar: string}
    - name: value
      type: {scalar: numeric}`,
  'type',
);

const structMultiversion = parseSmdSchema(
  `types:
- name: v1
  map:
    fields:
      - name: struct
        type: {namedType: struct}
      - name: version
        type: {scalar: string}
- name: struct
  map:
    fields:
      - name: name
        type: {scalar: string}
      - name: scalarField_v1
        type: {scalar: string}
      - name: complexField_v1
        type: {namedType: complex}
- name: complex
  map:
    fields:
      - name: name
        type: {scalar: string}`,
  'v1',
);

const portList = parseSmdSchema(
  `types:
- name: v1
  map:
    fields:
      - name: containerPorts
        type:
          list:
            elementType:
              map:
                fields:
                - name: port
                  type: {scalar: numeric}
                - name: protocol
                  default: "TCP"
                  type: {scalar: string}
                - name: name
                  type: {scalar: string}
            elementRelationship: associative
            keys: [port, protocol]`,
  'v1',
);

function expectManaged(managers: ManagedFields, expected: Record<string, Path[]>): void {
  const got = Object.fromEntries([...managers].map(([m, vs]) => [m, vs.set.toString()]));
  const want = Object.fromEntries(
    Object.entries(expected).map(([m, paths]) => [m, FieldSet.of(...paths).toString()]),
  );
  expect(got).toEqual(want);
}

function check(schema: Parameters<typeof runSmdCase>[0], test: SmdTestCase) {
  const result = runSmdCase(schema, test);
  if (test.object !== undefined) expect(result.live).toEqual(yamlObject(test.object));
  expectManaged(result.managers, test.managed);
  const wanted = test.ops
    .filter((op) => op.op !== 'Update')
    .map((op) =>
      'conflicts' in op && op.conflicts
        ? op.conflicts.map(([m, p]) => [m, FieldSet.of(p).toString()])
        : [],
    );
  expect(result.conflicts).toEqual(wanted);
  return result;
}

describe('merge/leaf_test.go TestUpdateLeaf', () => {
  it('apply_twice', () => {
    check(leafFields, {
      ops: [
        { op: 'Apply', manager: 'default', object: 'numeric: 1\nstring: "string"' },
        { op: 'Apply', manager: 'default', object: 'numeric: 2\nstring: "string"\nbool: false' },
      ],
      object: 'numeric: 2\nstring: "string"\nbool: false',
      managed: { default: [P('numeric'), P('string'), P('bool')] },
    });
  });

  it('apply_update_apply_no_conflict', () => {
    check(leafFields, {
      ops: [
        { op: 'Apply', manager: 'default', object: 'numeric: 1\nstring: "string"' },
        { op: 'Update', manager: 'controller', object: 'numeric: 1\nstring: "string"\nbool: true' },
        { op: 'Apply', manager: 'default', object: 'numeric: 2\nstring: "string"' },
      ],
      object: 'numeric: 2\nstring: "string"\nbool: true',
      managed: { default: [P('numeric'), P('string')], controller: [P('bool')] },
    });
  });

  it('apply_update_apply_with_conflict', () => {
    check(leafFields, {
      ops: [
        { op: 'Apply', manager: 'default', object: 'numeric: 1\nstring: "string"' },
        {
          op: 'Update',
          manager: 'controller',
          object: 'numeric: 1\nstring: "controller string"\nbool: true',
        },
        {
          op: 'Apply',
          manager: 'default',
          object: 'numeric: 2\nstring: "user string"',
          conflicts: [['controller', P('string')]],
        },
        { op: 'ForceApply', manager: 'default', object: 'numeric: 2\nstring: "user string"' },
      ],
      object: 'numeric: 2\nstring: "user string"\nbool: true',
      managed: { default: [P('numeric'), P('string')], controller: [P('bool')] },
    });
  });
});

describe('merge/set_test.go TestUpdateSet', () => {
  it('apply_twice', () => {
    check(setFields, {
      ops: [
        { op: 'Apply', manager: 'default', object: 'list: [a, c]' },
        { op: 'Apply', manager: 'default', object: 'list: [a, b, c, d]' },
      ],
      object: 'list: [a, b, c, d]',
      managed: { default: ['a', 'b', 'c', 'd'].map((v) => P('list', V(v))) },
    });
  });

  it('apply_update_apply_no_overlap', () => {
    check(setFields, {
      ops: [
        { op: 'Apply', manager: 'default', object: 'list: [a, c]' },
        { op: 'Update', manager: 'controller', object: 'list: [a, b, c, d]' },
        { op: 'Apply', manager: 'default', object: 'list: [a, aprime, c, cprime]' },
      ],
      object: 'list: [a, b, aprime, c, d, cprime]',
      managed: {
        default: ['a', 'aprime', 'c', 'cprime'].map((v) => P('list', V(v))),
        controller: ['b', 'd'].map((v) => P('list', V(v))),
      },
    });
  });
});

describe('merge/key_test.go TestUpdateAssociativeLists', () => {
  it('removing_obsolete_applied_structs', () => {
    check(associativeList, {
      ops: [
        { op: 'Apply', manager: 'default', object: 'list:\n- name: a\n  value: 1' },
        { op: 'Apply', manager: 'default', object: 'list:\n- name: b\n  value: 2' },
      ],
      object: 'list:\n- name: b\n  value: 2',
      managed: {
        default: [
          P('list', KBF('name', 'b')),
          P('list', KBF('name', 'b'), 'name'),
          P('list', KBF('name', 'b'), 'value'),
        ],
      },
    });
  });
});

describe('merge/multiple_appliers_test.go TestMultipleAppliersSet', () => {
  it('remove_one', () => {
    check(associativeList, {
      ops: [
        { op: 'Apply', manager: 'apply-one', object: 'list:\n- name: a\n- name: b' },
        { op: 'Apply', manager: 'apply-two', object: 'list:\n- name: c' },
        { op: 'Apply', manager: 'apply-one', object: 'list:\n- name: a' },
      ],
      object: 'list:\n- name: a\n- name: c',
      managed: {
        'apply-one': [P('list', KBF('name', 'a')), P('list', KBF('name', 'a'), 'name')],
        'apply-two': [P('list', KBF('name', 'c')), P('list', KBF('name', 'c'), 'name')],
      },
    });
  });

  it('change_value_yes_conflict', () => {
    check(associativeList, {
      ops: [
        { op: 'Apply', manager: 'apply-one', object: 'list:\n- name: a\n  value: 0' },
        {
          op: 'Apply',
          manager: 'apply-two',
          object: 'list:\n- name: a\n  value: 1',
          conflicts: [['apply-one', P('list', KBF('name', 'a'), 'value')]],
        },
      ],
      object: 'list:\n- name: a\n  value: 0',
      managed: {
        'apply-one': [
          P('list', KBF('name', 'a')),
          P('list', KBF('name', 'a'), 'name'),
          P('list', KBF('name', 'a'), 'value'),
        ],
      },
    });
  });

  it('remove_one_keep_one', () => {
    check(associativeList, {
      ops: [
        { op: 'Apply', manager: 'apply-one', object: 'list:\n- name: a\n- name: b\n- name: c' },
        { op: 'Apply', manager: 'apply-two', object: 'list:\n- name: c\n- name: d' },
        { op: 'Apply', manager: 'apply-one', object: 'list:\n- name: a' },
      ],
      object: 'list:\n- name: a\n- name: c\n- name: d',
      managed: {
        'apply-one': [P('list', KBF('name', 'a')), P('list', KBF('name', 'a'), 'name')],
        'apply-two': [
          P('list', KBF('name', 'c')),
          P('list', KBF('name', 'd')),
          P('list', KBF('name', 'c'), 'name'),
          P('list', KBF('name', 'd'), 'name'),
        ],
      },
    });
  });
});

describe('merge/multiple_appliers_test.go TestMultipleAppliersFieldUnsetting (v1-v1-v1)', () => {
  it('unset_scalar_sole_owner', () => {
    check(structMultiversion, {
      ops: [
        { op: 'Apply', manager: 'apply-one', object: 'struct:\n  name: a\n  scalarField_v1: a' },
        { op: 'Apply', manager: 'apply-one', object: 'struct:\n  name: a' },
      ],
      object: 'struct:\n  name: a',
      managed: { 'apply-one': [P('struct', 'name')] },
    });
  });

  it('unset_scalar_shared_with_updater', () => {
    check(structMultiversion, {
      ops: [
        { op: 'Update', manager: 'updater', object: 'struct:\n  name: a\n  scalarField_v1: a' },
        { op: 'Apply', manager: 'applier', object: 'struct:\n  name: a\n  scalarField_v1: a' },
        { op: 'Apply', manager: 'applier', object: 'struct:\n  name: a' },
      ],
      object: 'struct:\n  name: a\n  scalarField_v1: a',
      managed: {
        updater: [P('struct'), P('struct', 'name'), P('struct', 'scalarField_v1')],
        applier: [P('struct', 'name')],
      },
    });
  });

  it('unset_complex_sole_owner', () => {
    check(structMultiversion, {
      ops: [
        {
          op: 'Apply',
          manager: 'apply-one',
          object: 'struct:\n  name: a\n  complexField_v1:\n    name: b',
        },
        { op: 'Apply', manager: 'apply-one', object: 'struct:\n  name: a' },
      ],
      object: 'struct:\n  name: a',
      managed: { 'apply-one': [P('struct', 'name')] },
    });
  });

  it('unset_complex_shared_with_applier', () => {
    check(structMultiversion, {
      ops: [
        {
          op: 'Apply',
          manager: 'apply-one',
          object: 'struct:\n  name: a\n  complexField_v1:\n    name: b',
        },
        { op: 'Apply', manager: 'apply-two', object: 'struct:\n  complexField_v1:\n    name: b' },
        { op: 'Apply', manager: 'apply-one', object: 'struct:\n  name: a' },
      ],
      object: 'struct:\n  name: a\n  complexField_v1:\n    name: b',
      managed: {
        'apply-one': [P('struct', 'name')],
        'apply-two': [P('struct', 'complexField_v1', 'name')],
      },
    });
  });
});

describe('merge/default_keys_test.go TestDefaultKeysFlat', () => {
  it('apply_missing_defaulted_key_A', () => {
    const port80 = KBF('port', 80, 'protocol', 'TCP');
    check(portList, {
      ops: [{ op: 'Apply', manager: 'default', object: 'containerPorts:\n- port: 80' }],
      object: 'containerPorts:\n- port: 80',
      managed: { default: [P('containerPorts', port80), P('containerPorts', port80, 'port')] },
    });
  });

  it('apply_missing_defaulted_key_with_conflict', () => {
    const port80 = KBF('port', 80, 'protocol', 'TCP');
    check(portList, {
      ops: [
        {
          op: 'Apply',
          manager: 'apply-one',
          object: 'containerPorts:\n- port: 80\n  protocol: TCP\n  name: foo',
        },
        {
          op: 'Apply',
          manager: 'apply-two',
          object: 'containerPorts:\n- port: 80\n  name: bar',
          conflicts: [['apply-one', P('containerPorts', port80, 'name')]],
        },
      ],
      object: 'containerPorts:\n- port: 80\n  protocol: TCP\n  name: foo',
      managed: {
        'apply-one': [
          P('containerPorts', port80),
          P('containerPorts', port80, 'port'),
          P('containerPorts', port80, 'protocol'),
          P('containerPorts', port80, 'name'),
        ],
      },
    });
  });
});

describe('apply properties (built-in ConfigMap and Deployment schemas)', () => {
  const configMap = atomForKind({ group: '', version: 'v1', kind: 'ConfigMap' });
  const key = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f');
  const data = fc.dictionary(key, fc.string({ maxLength: 4 }), { maxKeys: 4 });

  it('applying the same configuration twice changes nothing the second time', () => {
    fc.assert(
      fc.property(data, data, (before, applied) => {
        const updater = new Updater(configMap);
        const first = updater.apply(
          { data: before },
          { data: applied },
          'v1',
          new Map(),
          'm',
          false,
        );
        const live = first.object ?? { data: before };
        const second = updater.apply(live, { data: applied }, 'v1', first.managers, 'm', false);
        expect(second.object).toBeUndefined();
        expect([...second.managers.keys()]).toEqual([...first.managers.keys()]);
      }),
    );
  });

  it('applies of A then B by different managers on disjoint fields equal B then A', () => {
    fc.assert(
      fc.property(data, data, (a, b) => {
        const bOnly = Object.fromEntries(Object.entries(b).filter(([k]) => !(k in a)));
        const run = (first: Record<string, string>, second: Record<string, string>) => {
          const updater = new Updater(configMap);
          const one = updater.apply({}, { data: first }, 'v1', new Map(), 'one', false);
          const two = updater.apply(
            one.object ?? {},
            { data: second },
            'v1',
            one.managers,
            'two',
            false,
          );
          return two.object ?? one.object ?? {};
        };
        const ab = run(a, bOnly) as { data?: Record<string, string> };
        const ba = run(bOnly, a) as { data?: Record<string, string> };
        expect(ab.data ?? {}).toEqual(ba.data ?? {});
      }),
    );
  });

  it('an apply that only reorders an associative list is a change, in the applied order', () => {
    const updater = new Updater(atomForKind({ group: '', version: 'v1', kind: 'Pod' }));
    const pod = (...names: string[]) => ({
      spec: { containers: names.map((name) => ({ name, image: name })) },
    });
    const first = updater.apply({}, pod('a', 'b'), 'v1', new Map(), 'm', false);
    const again = updater.apply(
      first.object ?? {},
      pod('b', 'a'),
      'v1',
      first.managers,
      'm',
      false,
    );
    expect(again.object).toEqual(pod('b', 'a'));
  });

  it('containers merge by name and ports by containerPort and protocol (patch merge keys)', () => {
    const deployment = atomForKind({ group: 'apps', version: 'v1', kind: 'Deployment' });
    const updater = new Updater(deployment);
    const containers = (image: string, extra: object = {}) => ({
      spec: { template: { spec: { containers: [{ name: 'app', image, ...extra }] } } },
    });
    const one = updater.apply(
      {},
      containers('nginx:1', { ports: [{ containerPort: 80 }] }),
      'v1',
      new Map(),
      'one',
      false,
    );
    const two = updater.apply(
      one.object ?? {},
      { spec: { template: { spec: { containers: [{ name: 'sidecar', image: 'busybox' }] } } } },
      'v1',
      one.managers,
      'two',
      false,
    );
    expect(two.object).toMatchObject({
      spec: {
        template: {
          spec: {
            containers: [
              { name: 'app', image: 'nginx:1', ports: [{ containerPort: 80 }] },
              { name: 'sidecar', image: 'busybox' },
            ],
          },
        },
      },
    });
    expect(one.managers.get('one')?.set.toString()).toContain(
      '.spec.template.spec.containers[name="app"].ports[containerPort=80,protocol="TCP"].containerPort',
    );
  });
});

describe('custom resource schemas (kube-openapi schemaconv of a structural schema)', () => {
  const crd = atomFromStructural(
    fromOpenAPI({
      type: 'object',
      properties: {
        apiVersion: { type: 'string' },
        kind: { type: 'string' },
        metadata: { type: 'object' },
        spec: {
          type: 'object',
          properties: {
            items: {
              type: 'array',
              'x-kubernetes-list-type': 'map',
              'x-kubernetes-list-map-keys': ['name'],
              items: {
                type: 'object',
                properties: { name: { type: 'string' }, size: { type: 'integer' } },
              },
            },
            tags: { type: 'array', items: { type: 'string' } },
            selector: {
              type: 'object',
              'x-kubernetes-map-type': 'atomic',
              additionalProperties: { type: 'string' },
            },
            free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          },
        },
      },
    }),
  );

  it('x-kubernetes-list-type map merges items by key; lists without a type are atomic', () => {
    const updater = new Updater(crd);
    const one = updater.apply(
      {},
      { spec: { items: [{ name: 'a', size: 1 }], tags: ['x'], free: { deep: { a: 1 } } } },
      'v1',
      new Map(),
      'one',
      false,
    );
    const two = updater.apply(
      one.object ?? {},
      { spec: { items: [{ name: 'b', size: 2 }], free: { deep: { b: 2 } } } },
      'v1',
      one.managers,
      'two',
      false,
    );
    expect(two.object).toEqual({
      spec: {
        items: [
          { name: 'a', size: 1 },
          { name: 'b', size: 2 },
        ],
        tags: ['x'],
        free: { deep: { a: 1, b: 2 } },
      },
    });
    expect(one.managers.get('one')?.set.toString()).toContain('.spec.tags');
    expect(() =>
      updater.apply(one.object ?? {}, { spec: { tags: ['y'] } }, 'v1', one.managers, 'two', false),
    ).toThrow(Conflicts);
  });

  it('x-kubernetes-map-type atomic is owned and replaced whole', () => {
    const updater = new Updater(crd);
    const one = updater.apply(
      {},
      { spec: { selector: { a: '1' } } },
      'v1',
      new Map(),
      'one',
      false,
    );
    expect(one.managers.get('one')?.set.toString()).toBe('.spec.selector');
  });
});
