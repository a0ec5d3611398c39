import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeTypedObject, exceedsJsonDepth } from './object-decoding.js';
import { canonicalQuantity, compareQuantities } from './quantity.js';

/** `levels` nested objects, built without recursion. */
function nested(levels: number): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  let at = root;
  for (let i = 1; i < levels; i++) at = at['a'] = {};
  return root;
}

describe('exceedsJsonDepth', () => {
  it('counts objects and arrays as Go does: 10000 levels pass, 10001 do not, 100000 do not overflow', () => {
    expect(exceedsJsonDepth(nested(10_000))).toBe(false);
    expect(exceedsJsonDepth(nested(10_001))).toBe(true);
    expect(exceedsJsonDepth(nested(100_000))).toBe(true);
    expect(exceedsJsonDepth([[[1]]], 3)).toBe(false);
    expect(exceedsJsonDepth([[[[]]]], 3)).toBe(true);
    expect(exceedsJsonDepth('x', 0)).toBe(false);
  });
});

describe('decodeTypedObject', () => {
  const decode = (object: Record<string, unknown>) =>
    decodeTypedObject(object, 'ConfigMap', 'io.k8s.api.core.v1.ConfigMap')?.message;

  it('accepts a well-typed object and leaves it as it is', () => {
    const object = {
      apiVersion: 'v1',
      metadata: {
        name: 'a',
        generation: 3,
        labels: { a: 'b' },
        ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'u', controller: true }],
        finalizers: ['f'],
        managedFields: [{ manager: 'm', fieldsV1: { 'f:data': {} } }],
      },
      data: { k: 'v' },
    };
    const copy = structuredClone(object);
    expect(decode(object)).toBeUndefined();
    expect(object).toEqual(copy);
  });

  it.each([
    [{ metadata: [] }, 'ConfigMap.metadata of type v1.ObjectMeta', 'array'],
    [{ metadata: { uid: true } }, 'ObjectMeta.metadata.uid of type string', 'bool'],
    [
      { metadata: { labels: 'a=b' } },
      'ObjectMeta.metadata.labels of type map[string]string',
      'string',
    ],
    [{ metadata: { generation: '1' } }, 'ObjectMeta.metadata.generation of type int64', 'string'],
    [
      { metadata: { deletionGracePeriodSeconds: 2 ** 64 } },
      'ObjectMeta.metadata.deletionGracePeriodSeconds of type int64',
      `number ${2 ** 64}`,
    ],
    [
      { metadata: { creationTimestamp: 5 } },
      'ObjectMeta.metadata.creationTimestamp of type string',
      'number',
    ],
    [
      { metadata: { ownerReferences: {} } },
      'ObjectMeta.metadata.ownerReferences of type []v1.OwnerReference',
      'object',
    ],
    [
      { metadata: { ownerReferences: [{ controller: 'yes' }] } },
      'OwnerReference.metadata.ownerReferences.controller of type bool',
      'string',
    ],
    [
      { metadata: { managedFields: [{ operation: 1 }] } },
      // Named string types are printed as string: the schema source does not name them.
      'ManagedFieldsEntry.metadata.managedFields.operation of type string',
      'number',
    ],
  ])('%j: cannot unmarshal into %s', (object, field, what) => {
    expect(decode(object)).toBe(`json: cannot unmarshal ${what} into Go struct field ${field}`);
  });

  it('reports apiVersion and kind as the type meta read, and depth before anything else', () => {
    expect(decodeTypedObject({ kind: [] }, 'ConfigMap')).toEqual({
      message: 'json: cannot unmarshal array into Go struct field .kind of type string',
      typeMeta: true,
    });
    expect(decodeTypedObject({ kind: 5, data: nested(10_000) }, 'ConfigMap')).toEqual({
      message: 'exceeded max depth',
      typeMeta: true,
    });
  });

  it('turns nulls into what Go decodes them to', () => {
    const object: Record<string, unknown> = {
      apiVersion: null,
      metadata: {
        name: null,
        labels: { a: null },
        annotations: null,
        finalizers: [null],
        ownerReferences: [null, { name: 'n', controller: null }],
        managedFields: [null],
      },
    };
    expect(decode(object)).toBeUndefined();
    const empty = { apiVersion: '', kind: '', name: '', uid: '' };
    expect(object).toEqual({
      metadata: {
        labels: { a: '' },
        finalizers: [''],
        ownerReferences: [empty, { ...empty, name: 'n' }],
        managedFields: [{}],
      },
    });
    const bare: Record<string, unknown> = { metadata: null };
    expect(decode(bare)).toBeUndefined();
    expect(bare).toEqual({ metadata: {} });
  });

  it("checks the kind's own fields", () => {
    const secret = 'io.k8s.api.core.v1.Secret';
    expect(decodeTypedObject({ data: { a: 1 } }, 'Secret', secret)?.message).toBe(
      'json: cannot unmarshal number into Go struct field Secret.data of type []uint8',
    );
  });

  it("an int32 field takes exactly the integers Go's int32 holds, and names int32 when it refuses", () => {
    const decodeReplicas = (replicas: number) =>
      decodeTypedObject({ spec: { replicas } }, 'Scale', 'io.k8s.api.autoscaling.v1.Scale')
        ?.message;
    expect(decodeReplicas(2 ** 31)).toBe(
      'json: cannot unmarshal number 2147483648 into Go struct field ScaleSpec.spec.replicas of type int32',
    );
    fc.assert(
      fc.property(fc.integer(), (n) => {
        expect(decodeReplicas(n)).toBeUndefined();
      }),
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.double({ min: 2 ** 31, max: 2 ** 60, noNaN: true }),
          fc.double({ min: -(2 ** 60), max: -(2 ** 31) - 1, noNaN: true }),
          fc.double({ noNaN: true, noDefaultInfinity: true }).filter((d) => !Number.isInteger(d)),
        ),
        (n) => {
          expect(decodeReplicas(n)).toMatch(/^json: cannot unmarshal number .* of type int32$/);
        },
      ),
    );
  });
});

describe('types that unmarshal themselves', () => {
  const POD = 'io.k8s.api.core.v1.Pod';
  const decodePod = (object: Record<string, unknown>) => decodeTypedObject(object, 'Pod', POD);
  const withLimits = (cpu: unknown) => ({
    spec: { containers: [{ name: 'c', resources: { limits: { cpu } } }] },
  });

  it('metav1.Time: RFC 3339 as time.Parse reads it, written back in UTC without fractions', () => {
    const object = { metadata: { creationTimestamp: '2024-02-29T23:30:00.5-01:00' } };
    expect(decodePod(object)).toBeUndefined();
    expect(object.metadata.creationTimestamp).toBe('2024-03-01T00:30:00Z');
    expect(decodePod({ metadata: { creationTimestamp: '2024-02-30T00:00:00Z' } })?.message).toBe(
      'parsing time "2024-02-30T00:00:00Z": day out of range',
    );
    expect(decodePod({ metadata: { creationTimestamp: '2024-01-01 00:00:00Z' } })?.message).toBe(
      'parsing time "2024-01-01 00:00:00Z" as "2006-01-02T15:04:05Z07:00": cannot parse " 00:00:00Z" as "T"',
    );
    expect(
      decodePod({ metadata: { creationTimestamp: '2024-01-01T00:00:00Zjunk' } })?.message,
    ).toBe('parsing time "2024-01-01T00:00:00Zjunk": extra text: "junk"');
  });

  it('any instant Date can write reads back as itself (whole seconds, UTC)', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('1970-01-01'), max: new Date('9999-12-31'), noInvalidDate: true }),
        (date) => {
          const text = date.toISOString().replace(/\.\d{3}Z$/, 'Z');
          const object = { metadata: { creationTimestamp: text } };
          expect(decodePod(object)).toBeUndefined();
          expect(object.metadata.creationTimestamp).toBe(text);
        },
      ),
    );
  });

  it('metav1.MicroTime: six fraction digits, as RFC3339Micro', () => {
    const event = { eventTime: '2024-01-01T00:00:00.123456Z' };
    expect(decodeTypedObject(event, 'Event', 'io.k8s.api.core.v1.Event')).toBeUndefined();
    expect(event.eventTime).toBe('2024-01-01T00:00:00.123456Z');
    expect(
      decodeTypedObject({ eventTime: '2024-01-01T00:00:00Z' }, 'Event', 'io.k8s.api.core.v1.Event')
        ?.message,
    ).toBe(
      'parsing time "2024-01-01T00:00:00Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"',
    );
  });

  it.each([
    ['500m', undefined],
    ['1.5Gi', undefined],
    ['1e3', undefined],
    [2, undefined],
    ['1mi', "unable to parse quantity's suffix"],
    [
      '1Qi',
      "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    ],
    [
      'lots',
      "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    ],
    [
      true,
      "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    ],
  ])('resource.Quantity %j: %s', (cpu, error) => {
    const object = withLimits(cpu);
    expect(decodePod(object)?.message).toBe(error);
    // Written back canonical and, in a resource list, rounded up to milli-units.
    if (!error)
      expect(object.spec.containers[0]?.resources.limits.cpu).toBe(
        canonicalQuantity(String(cpu), true),
      );
  });

  it('intstr.IntOrString: a string, or an int32 named as such when it is not one', () => {
    const service = 'io.k8s.api.core.v1.Service';
    const port = (targetPort: unknown) =>
      decodeTypedObject({ spec: { ports: [{ port: 80, targetPort }] } }, 'Service', service)
        ?.message;
    expect(port('http')).toBeUndefined();
    expect(port(8080)).toBeUndefined();
    expect(port(1.5)).toBe(
      'json: cannot unmarshal number 1.5 into Go struct field ServicePort.spec.ports.targetPort of type int32',
    );
    expect(port([])).toBe(
      'json: cannot unmarshal array into Go struct field ServicePort.spec.ports.targetPort of type int32',
    );
  });

  it('fields without omitempty are written as their zero value, as Go does', () => {
    const object = { spec: { containers: [{ image: 'i', ports: [{}] }] } };
    expect(decodePod(object)).toBeUndefined();
    expect(object.spec.containers[0]).toEqual({
      name: '',
      image: 'i',
      ports: [{ containerPort: 0 }],
    });
  });

  it('every field whose Go json tag lacks omitempty is written, from the Go facts of the source (StatefulSetStatus.replicas and availableReplicas, not collisionCount)', () => {
    const object = { status: { observedGeneration: 2 } };
    expect(
      decodeTypedObject(object, 'StatefulSet', 'io.k8s.api.apps.v1.StatefulSet'),
    ).toBeUndefined();
    expect(object.status).toEqual({ observedGeneration: 2, replicas: 0, availableReplicas: 0 });
  });
});

describe('canonicalQuantity (resource.Quantity CanonicalizeBytes, as kube writes quantities)', () => {
  it.each([
    ['1000m', '1'],
    ['1500m', '1500m'],
    ['1.5', '1500m'],
    ['2000', '2k'],
    ['1500', '1500'],
    ['0.1', '100m'],
    ['100Mi', '100Mi'],
    ['1024Mi', '1Gi'],
    ['1.5Gi', '1536Mi'],
    ['0.5Ki', '512'],
    ['1536', '1536'],
    ['1e3', '1e3'],
    ['1E6', '1e6'],
    ['0', '0'],
    ['0Gi', '0'],
    ['+5', '5'],
    ['-250m', '-250m'],
    ['12e-1', '1200e-3'],
    ['0.0000000001', '1n'],
  ])('%s is written %s', (text, canonical) => {
    expect(canonicalQuantity(text)).toBe(canonical);
  });

  it('resource lists round up to milli-units (SetDefaults_ResourceList)', () => {
    expect(canonicalQuantity('0.0001', true)).toBe('1m');
    expect(canonicalQuantity('100u', true)).toBe('1m');
    const object = { spec: { containers: [{ name: 'c', resources: { limits: { cpu: 0.5 } } }] } };
    expect(decodeTypedObject(object, 'Pod', 'io.k8s.api.core.v1.Pod')).toBeUndefined();
    expect(object.spec.containers[0]?.resources.limits.cpu).toBe('500m');
  });
});

describe('compareQuantities (resource.Quantity Cmp)', () => {
  it.each([
    ['1', '1000m', 0],
    ['500m', '1', -1],
    ['1Gi', '1G', 1],
    ['1e3', '1k', 0],
    ['-1', '0', -1],
    ['0.1', '100m', 0],
    ['1Ki', '1024', 0],
  ] as const)('%s against %s is %d', (a, b, want) => {
    expect(compareQuantities(a, b)).toBe(want);
  });

  it('is antisymmetric and agrees with the canonical form, for any two quantities', () => {
    const quantity = fc
      .tuple(
        fc.integer({ min: -5000, max: 5000 }),
        fc.constantFrom('', 'm', 'k', 'Ki', 'Mi', 'M', 'e2', 'n'),
      )
      .map(([n, suffix]) => `${n}${suffix}`);
    fc.assert(
      fc.property(quantity, quantity, (a, b) => {
        const ab = compareQuantities(a, b);
        expect(ab).toBe(-(compareQuantities(b, a) ?? 0) || 0);
        expect(compareQuantities(canonicalQuantity(a), b)).toBe(ab);
      }),
    );
  });
});
