// What validating a custom object costs per write: a 5 KB Foo decoded and copied as every write
// does (the baseline) vs the same plus its CRD version's strategy — structural defaulting,
// pruning, the ajv-compiled schema and one CEL rule — side by side in one run.
// `pnpm --filter @listwatch/apiserver bench`.
import type { KubeObject } from '@listwatch/api';
import { customResourceStrategy } from '../src/apiextensions/custom-resource-strategy.js';
import type { CustomResourceDefinitionVersion } from '../src/apiextensions/types.js';

const WRITES = Number(process.env['WRITES'] ?? 20_000);

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
const strategy = customResourceStrategy(version);

function run(name: string, write: (o: KubeObject) => void): { name: string; usPerWrite: number } {
  for (let i = 0; i < 500; i++) write(JSON.parse(text) as KubeObject); // warm up
  const start = performance.now();
  for (let i = 0; i < WRITES; i++) write(JSON.parse(text) as KubeObject);
  return { name, usPerWrite: ((performance.now() - start) * 1000) / WRITES };
}

const results = [
  run('decode only', (o) => void structuredClone(o)),
  run('decode + default, prune, validate (ajv + CEL)', (o) => {
    const copy = structuredClone(o);
    strategy.decode?.(copy);
    strategy.pruneUnknownFields?.(copy);
    const errors = strategy.validate?.(copy) ?? [];
    if (errors.length) throw new Error(JSON.stringify(errors));
  }),
];
console.log(`${WRITES} writes of a ${(text.length / 1024).toFixed(1)} KB custom object`);
console.table(results.map((r) => ({ '': r.name, 'µs/write': r.usPerWrite.toFixed(1) })));
console.log(
  `validation adds ${(results[1]!.usPerWrite - results[0]!.usPerWrite).toFixed(1)} µs per write`,
);
