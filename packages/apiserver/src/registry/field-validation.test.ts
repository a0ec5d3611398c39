import {
  ApiError,
  builtinResources,
  type KubeObject,
  type ResourceDefinition,
} from '@listwatch/api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  fieldValidationOf,
  pruneUnknownFields,
  strictBodyError,
  strictDecodingMessage,
} from './field-validation.js';

// Server-side field validation against the schema source: the unknown fields a strict decode of
// k8s.io/api types would report (sigs.k8s.io/json paths), pruned as a typed decode drops them.

const def = (kind: string): ResourceDefinition => {
  const found = builtinResources.find((d) => d.kind === kind);
  if (!found) throw new Error(kind);
  return found;
};
const CONFIG_MAP = def('ConfigMap');
const DEPLOYMENT = def('Deployment');
const POD = def('Pod');

const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/);
const labels = fc.dictionary(fc.stringMatching(/^[a-z][a-z0-9./-]{0,15}$/), fc.string(), {
  maxKeys: 3,
});
/** A field name no built-in kind declares anywhere. */
const unknownName = fc.stringMatching(/^zz[a-zA-Z0-9]{0,8}$/);
const json = fc.jsonValue({ maxDepth: 2 });

const configMap: fc.Arbitrary<KubeObject> = fc
  .record(
    {
      metadata: fc.record({ name, labels, annotations: labels }, { requiredKeys: ['name'] }),
      data: labels,
      binaryData: fc.dictionary(name, fc.base64String()),
      immutable: fc.boolean(),
    },
    { requiredKeys: ['metadata'] },
  )
  .map((cm) => ({ apiVersion: 'v1', kind: 'ConfigMap', ...cm }));

const deployment: fc.Arbitrary<KubeObject> = fc
  .record({
    name,
    replicas: fc.nat({ max: 10 }),
    ports: fc.array(fc.record({ containerPort: fc.integer({ min: 1, max: 65535 }), name }), {
      maxLength: 2,
    }),
  })
  .map(({ name: n, replicas, ports }) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: n },
    spec: {
      replicas,
      selector: { matchLabels: { app: n } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%' } },
      template: {
        metadata: { labels: { app: n } },
        spec: { containers: [{ name: n, image: 'nginx', ports }] },
      },
    },
  }));

/** Where a Deployment is closed, the path to the object there, and how the path is written. */
const CLOSED_IN_DEPLOYMENT: [string[], string][] = [
  [[], ''],
  [['metadata'], 'metadata.'],
  [['spec'], 'spec.'],
  [['spec', 'selector'], 'spec.selector.'],
  [['spec', 'strategy', 'rollingUpdate'], 'spec.strategy.rollingUpdate.'],
  [['spec', 'template'], 'spec.template.'],
  [['spec', 'template', 'metadata'], 'spec.template.metadata.'],
  [['spec', 'template', 'spec'], 'spec.template.spec.'],
];

function at(object: KubeObject, path: readonly string[]): Record<string, unknown> {
  let node: unknown = object;
  for (const step of path) node = (node as Record<string, unknown>)[step];
  return node as Record<string, unknown>;
}

describe('pruneUnknownFields', () => {
  it('finds nothing in an object made of declared fields, and leaves it as it was', () => {
    fc.assert(
      fc.property(fc.oneof(configMap, deployment), (object) => {
        const copy = structuredClone(object);
        const definition = object.kind === 'ConfigMap' ? CONFIG_MAP : DEPLOYMENT;
        expect(pruneUnknownFields(definition, copy)).toEqual([]);
        expect(copy).toEqual(object);
      }),
    );
  });

  it('reports every unknown top-level field in document order and removes exactly those', () => {
    fc.assert(
      fc.property(
        configMap,
        fc.uniqueArray(unknownName, { minLength: 1, maxLength: 4 }),
        json,
        (cm, extra, value) => {
          const withExtra = {
            ...structuredClone(cm),
            ...Object.fromEntries(extra.map((k) => [k, value])),
          };
          expect(pruneUnknownFields(CONFIG_MAP, withExtra)).toEqual(extra);
          expect(withExtra).toEqual(cm);
        },
      ),
    );
  });

  it('names a nested unknown field by its dotted path, list items by index', () => {
    fc.assert(
      fc.property(
        deployment,
        fc.constantFrom(...CLOSED_IN_DEPLOYMENT),
        unknownName,
        json,
        (d, [path, prefix], field, value) => {
          const object = structuredClone(d);
          at(object, path)[field] = value;
          expect(pruneUnknownFields(DEPLOYMENT, object)).toEqual([`${prefix}${field}`]);
          expect(object).toEqual(d);
        },
      ),
    );
    const d: KubeObject = {
      metadata: { name: 'web' },
      spec: {
        template: {
          spec: {
            containers: [{ name: 'a' }, { name: 'b', ports: [{ containerPort: 80, zzBogus: 1 }] }],
          },
        },
      },
    };
    expect(pruneUnknownFields(DEPLOYMENT, d)).toEqual([
      'spec.template.spec.containers[1].ports[0].zzBogus',
    ]);
  });

  it('finds unknown fields at any depth, as every Go struct is closed: pod specs, containers, status', () => {
    fc.assert(
      fc.property(unknownName, json, (field, value) => {
        const pod: KubeObject = {
          metadata: { name: 'p' },
          spec: { [field]: value, containers: [{ name: 'c', [field]: value }] },
          status: { [field]: value, conditions: [{ type: 'Ready', [field]: value }] },
        };
        expect(pruneUnknownFields(POD, pod)).toEqual([
          `spec.${field}`,
          `spec.containers[0].${field}`,
          `status.${field}`,
          `status.conditions[0].${field}`,
        ]);
        expect(pod).toEqual({
          metadata: { name: 'p' },
          spec: { containers: [{ name: 'c' }] },
          status: { conditions: [{ type: 'Ready' }] },
        });
      }),
    );
  });

  it('takes what marshals itself as it is: quantities, int-or-strings, managed fields, embedded structs', () => {
    const pod: KubeObject = {
      metadata: {
        name: 'p',
        managedFields: [{ manager: 'kubectl', fieldsV1: { 'f:spec': { 'f:containers': {} } } }],
      },
      spec: {
        containers: [
          {
            name: 'c',
            resources: { limits: { cpu: '1', memory: 1e9 } },
            livenessProbe: { httpGet: { port: 'http' }, periodSeconds: 3 },
          },
        ],
        volumes: [{ name: 'v', configMap: { name: 'settings' } }],
      },
    };
    const copy = structuredClone(pod);
    expect(pruneUnknownFields(POD, copy)).toEqual([]);
    expect(copy).toEqual(pod);
  });

  it('keeps any spec and status of a kind the schema source lacks, as a custom resource', () => {
    const widget: ResourceDefinition = { ...CONFIG_MAP, group: 'example.com', kind: 'Widget' };
    const object = JSON.parse(
      '{"metadata":{"name":"w","zzMeta":1},"spec":{"anything":[1]},"status":{"at":"all"},"zzTop":true}',
    ) as KubeObject;
    expect(pruneUnknownFields(widget, object)).toEqual(['metadata.zzMeta', 'zzTop']);
    expect(object).toEqual({
      metadata: { name: 'w' },
      spec: { anything: [1] },
      status: { at: 'all' },
    });
  });

  it('does not take inherited names for declared fields', () => {
    const cm = JSON.parse(
      '{"metadata":{"name":"a"},"__proto__":{"x":1},"constructor":1}',
    ) as KubeObject;
    expect(pruneUnknownFields(CONFIG_MAP, cm)).toEqual(['__proto__', 'constructor']);
    expect(Object.keys(cm)).toEqual(['metadata']);
  });
});

describe('fieldValidationOf', () => {
  it('reads Ignore, Warn and Strict; unset or empty is Warn', () => {
    const of = (query: string) => fieldValidationOf(new URLSearchParams(query), 'CreateOptions');
    expect(of('')).toBe('Warn');
    expect(of('fieldValidation=')).toBe('Warn');
    expect(of('fieldValidation=Ignore')).toBe('Ignore');
    expect(of('fieldValidation=Warn')).toBe('Warn');
    expect(of('fieldValidation=Strict')).toBe('Strict');
  });

  it('refuses any other value with 422 Invalid on the options kind of the verb', () => {
    fc.assert(
      fc.property(
        fc.string().filter((v) => !['', 'Ignore', 'Warn', 'Strict'].includes(v)),
        fc.constantFrom('CreateOptions', 'UpdateOptions', 'PatchOptions' as const),
        (value, kind) => {
          try {
            fieldValidationOf(new URLSearchParams({ fieldValidation: value }), kind);
            expect.unreachable();
          } catch (err) {
            expect(err).toBeInstanceOf(ApiError);
            expect((err as ApiError).status).toMatchObject({
              code: 422,
              reason: 'Invalid',
              message: `${kind}.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: ${JSON.stringify(value)}: supported values: "", "Ignore", "Strict", "Warn"`,
            });
          }
        },
      ),
    );
  });
});

describe('strict errors', () => {
  it('word a strict decoding error as runtime.NewStrictDecodingError does', () => {
    expect(strictDecodingMessage(['spec.foo'])).toBe(
      'strict decoding error: unknown field "spec.foo"',
    );
    expect(strictDecodingMessage(['a', 'b[0].c'])).toBe(
      'strict decoding error: unknown field "a", unknown field "b[0].c"',
    );
  });

  it('wrap a create or update body error with the kind and version the body claims, defaulted from the URL', () => {
    expect(
      strictBodyError(DEPLOYMENT, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: {} }, [
        'spec.foo',
      ]).status,
    ).toMatchObject({
      code: 400,
      reason: 'BadRequest',
      message:
        'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.foo"',
    });
    expect(strictBodyError(CONFIG_MAP, { metadata: {} }, ['x']).message).toBe(
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "x"',
    );
  });
});
