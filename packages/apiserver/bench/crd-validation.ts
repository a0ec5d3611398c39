// What validating a custom object costs per write: a 5 KB Foo decoded and copied as every write
// does (the baseline) vs the same plus its CRD version's strategy — structural defaulting,
// pruning, the ajv-compiled schema and one CEL rule — side by side in one run.
// `pnpm bench --scenario crd-validation`.
import type { KubeObject } from '@listwatch/api';
import type { Scenario } from '../../../bench/lib.js';
import { customResourceStrategy } from '../src/apiextensions/custom-resource-strategy.js';
import { prune } from '../src/apiextensions/schema/pruning.js';
import type {
  CustomResourceDefinition,
  CustomResourceDefinitionVersion,
} from '../src/apiextensions/types.js';

let WRITES = 20_000;

const container = {
  type: 'object',
  properties: {
    name: { type: 'string', maxLength: 63 },
    image: { type: 'string' },
    port: { 'x-kubernetes-int-or-string': true },
    env: {
      type: 'array',
      maxItems: 50,
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      items: {
        type: 'object',
        required: ['name'],
        properties: { name: { type: 'string' }, value: { type: 'string', default: '' } },
      },
    },
  },
};

const version: CustomResourceDefinitionVersion = {
  name: 'v1',
  served: true,
  storage: true,
  schema: {
    openAPIV3Schema: {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          'x-kubernetes-validations': [{ rule: 'self.replicas <= 10' }],
          properties: {
            deploymentName: { type: 'string', minLength: 1 },
            replicas: { type: 'integer', minimum: 0, default: 1 },
            containers: { type: 'array', maxItems: 20, items: container },
          },
        },
        status: { type: 'object', properties: { availableReplicas: { type: 'integer' } } },
      },
    },
  },
};

function fiveKbFoo(): KubeObject {
  const containers = Array.from({ length: 7 }, (_, c) => ({
    name: `c${c}`,
    image: `registry.example.com/team/app-${c}:1.2.3`,
    port: 8080 + c,
    env: Array.from({ length: 12 }, (_, e) => ({
      name: `VAR_${c}_${e}`,
      value: `value-${c}-${e}-xxxxxxxx`,
    })),
  }));
  return {
    apiVersion: 'example.com/v1',
    kind: 'Foo',
    metadata: { name: 'foo', namespace: 'default', labels: { app: 'foo' } },
    spec: { deploymentName: 'foo', replicas: 3, containers },
  };
}

const object = fiveKbFoo();
const text = JSON.stringify(object);
const crd: CustomResourceDefinition = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'foos.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'foos', singular: 'foo', kind: 'Foo', listKind: 'FooList' },
    versions: [version],
  },
};
const strategy = customResourceStrategy(crd, version);

function run(name: string, write: (o: KubeObject) => void): { name: string; usPerWrite: number } {
  for (let i = 0; i < 500; i++) write(JSON.parse(text) as KubeObject); // warm up
  const start = performance.now();
  for (let i = 0; i < WRITES; i++) write(JSON.parse(text) as KubeObject);
  return { name, usPerWrite: ((performance.now() - start) * 1000) / WRITES };
}

export const scenario: Scenario = {
  name: 'crd-validation',
  title: 'validation cost per write of a 5 KB custom object vs decoding alone',
  processes: () => 'the runner alone (in-process)',
  rounds: (ctx) => (ctx.quick ? 1 : 3),
  open(ctx) {
    WRITES = ctx.quick ? 2_000 : 20_000;
    return Promise.resolve({
      round() {
        const [decode, validate] = [
          run('decode only', (o) => void structuredClone(o)),
          run('decode + default, prune, validate (ajv + CEL)', (o) => {
            const copy = structuredClone(o);
            strategy.decode?.(copy);
            if (strategy.structural) prune(copy, strategy.structural);
            const errors = strategy.validateCreate?.(copy) ?? [];
            if (errors.length) throw new Error(JSON.stringify(errors));
          }),
        ];
        return Promise.resolve({
          metrics: {
            object_kb: text.length / 1024,
            decode_us_per_write: decode.usPerWrite,
            validated_us_per_write: validate.usPerWrite,
          },
          ratios: { validated_vs_decode: validate.usPerWrite / decode.usPerWrite },
        });
      },
      close: () => Promise.resolve(),
    });
  },
};
