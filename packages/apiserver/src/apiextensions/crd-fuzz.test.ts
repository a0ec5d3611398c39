import type { Status } from '@listwatch/api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { serverForFile } from '../testing/test-server.js';
import { compileSchema } from './schema-validator.js';
import { SCHEMA_KEYS, validateOpenAPISchema } from './schema/validation.js';
import { customResourceRoot } from './schema/builtin.js';
import { applyDefaults as applyStructuralDefaults } from './schema/defaulting.js';
import { prune } from './schema/pruning.js';
import { fromOpenAPI } from './schema/structural.js';
import type { JSONSchemaProps } from './types.js';

// A CRD version's schema as its strategy walks it: rooted, metadata an ObjectMeta.
const applyDefaults = (object: unknown, schema: JSONSchemaProps) =>
  applyStructuralDefaults(object, customResourceRoot(fromOpenAPI(schema)));
const pruneObject = (object: unknown, schema: JSONSchemaProps) =>
  prune(object, customResourceRoot(fromOpenAPI(schema)));

// Hostile openAPIV3Schemas (and objects sent against whatever schema got accepted) are answered
// with a 201 or a 4xx Status, never a 500, a crash or a hang: the schema checks, the compiled
// validator (patterns run as RE2), pruning and defaulting all take any JSON.

const f = serverForFile('crdfuzz');
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

const KEYS = [...SCHEMA_KEYS, 'unknownKeyword'];
const TYPES = ['object', 'array', 'string', 'integer', 'number', 'boolean', 'null', 'weird'];

/** Schema-like JSON: real keywords with plausible or wrong values, nested. */
const schemaArb: fc.Arbitrary<Record<string, unknown>> = fc.letrec((tie) => ({
  schema: fc.dictionary(
    fc.constantFrom(...KEYS),
    fc.oneof(
      { depthSize: 'small' },
      fc.constantFrom(...TYPES),
      fc.constantFrom('(a+)+$', '[', '^x{1,1000}$', '(?<=a)b', '\\p{L}+'),
      fc.boolean(),
      fc.integer({ min: -5, max: 20 }),
      fc.constantFrom('set', 'map', 'atomic', 'granular'),
      fc.array(fc.constantFrom('name', 'a', 'b'), { maxLength: 3 }),
      fc.jsonValue({ maxDepth: 2 }),
      tie('schema'),
      fc.dictionary(fc.constantFrom('a', 'b', 'metadata', 'spec'), tie('schema'), { maxKeys: 3 }),
      fc.array(tie('schema'), { maxLength: 2 }),
    ),
    { maxKeys: 6 },
  ),
})).schema;

function crdWith(n: number, schema: unknown) {
  const plural = `fuzz${n}s`;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.fuzz.example.com` },
    spec: {
      group: 'fuzz.example.com',
      scope: 'Namespaced',
      names: { plural, singular: `fuzz${n}`, kind: `Fuzz${n}`, listKind: `Fuzz${n}List` },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }],
    },
  };
}

describe('hostile schemas', () => {
  it('the schema checks, compiler, pruning and defaulting take any schema and object without throwing', () => {
    fc.assert(
      fc.property(schemaArb, fc.jsonValue({ maxDepth: 4 }), (schema, value) => {
        const errors = validateOpenAPISchema(schema, 'schema');
        expect(Array.isArray(errors)).toBe(true);
        if (errors.length) return;
        let validator;
        try {
          validator = compileSchema(schema);
        } catch {
          return; // refused as "error building validator"
        }
        const object = {
          apiVersion: 'fuzz.example.com/v1',
          kind: 'Fuzz',
          metadata: {},
          spec: value,
        };
        applyDefaults(object, schema);
        pruneObject(object, schema);
        expect(Array.isArray(validator.validate(object))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('a CRD with any schema is created or refused with a 4xx; objects against it too', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(schemaArb, fc.jsonValue({ maxDepth: 3 }), async (schema, spec) => {
        const crd = crdWith(n++, { type: 'object', properties: { spec: schema } });
        const res = await f.api.post<Status>(CRDS, crd);
        expect([201, 400, 422]).toContain(res.status);
        if (res.status !== 201) {
          expect(res.body.kind).toBe('Status');
          return;
        }
        const name = crd.metadata.name;
        const deadline = Date.now() + 5000;
        const path = `/apis/fuzz.example.com/v1/namespaces/default/${crd.spec.names.plural}`;
        while ((await f.api.get(path)).status !== 200 && Date.now() < deadline)
          await new Promise((r) => setTimeout(r, 10));
        const made = await f.api.post<Status>(path, {
          apiVersion: 'fuzz.example.com/v1',
          kind: crd.spec.names.kind,
          metadata: { name: 'x' },
          spec,
        });
        expect([201, 400, 422]).toContain(made.status);
        await f.api.delete(`${CRDS}/${name}`);
      }),
      { numRuns: 60 },
    );
  });

  it('a pattern that backtracks exponentially elsewhere is matched in linear time (RE2)', async () => {
    const crd = crdWith(9999, {
      type: 'object',
      properties: {
        spec: { type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } } },
      },
    });
    expect((await f.api.post(CRDS, crd)).status).toBe(201);
    const validator = compileSchema(
      crd.spec.versions[0]!.schema.openAPIV3Schema as Record<string, unknown>,
    );
    const errors = validator.validate({ spec: { s: `${'a'.repeat(100_000)}!` } });
    expect(errors.map((e) => e.field)).toEqual(['spec.s']);
  });
});
