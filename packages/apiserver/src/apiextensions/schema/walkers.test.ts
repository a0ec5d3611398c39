import { decodeTypedObject, schemaSource } from '@listwatch/api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { atomForCustomResource, atomFromStructural, type Atom } from '../../fieldmanager/index.js';
import { builtinDefaulters } from '../../registry/defaulting.js';
import type { JSONSchemaProps } from '../types.js';
import { customResourceRoot, structuralForType } from './builtin.js';
import { pruneAndDefaultVisitor } from './decode-visitor.js';
import { applyDefaults } from './defaulting.js';
import { pruneAndDefault } from './prune-and-default.js';
import { prune } from './pruning.js';
import { fromOpenAPI, type Structural } from './structural.js';
import {
  atomForCustomResourceBefore,
  atomForTypeBefore,
  builtinDefaultBefore,
  builtinPruneBefore,
  crdDefaultBefore,
  crdPruneBefore,
  objectMetaPruneBefore,
} from './walkers-before.test-helper.js';

// One structural form, one walker each: built-in kinds and CRDs are pruned, defaulted, checked
// for unknown fields and converted for server-side apply by the same walkers over
// apiextensions/schema's Structural, with the results the two parallel walkers gave before.

const KINDS = [
  'io.k8s.api.core.v1.ConfigMap',
  'io.k8s.api.core.v1.Pod',
  'io.k8s.api.apps.v1.Deployment',
  'io.k8s.api.core.v1.Service',
  'io.k8s.api.batch.v1.CronJob',
  'io.k8s.api.core.v1.Node',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition',
];

const scalar = fc.oneof(fc.string({ maxLength: 4 }), fc.integer(), fc.boolean(), fc.double());
const unknownKey = fc.constantFrom('zz', 'foo', 'x-unknown', 'constructor');

/** Values shaped roughly like `s` (some fields, some unknown ones, some of the wrong type). */
function valueFor(s: Structural, depth: number): fc.Arbitrary<unknown> {
  if (depth <= 0) return scalar;
  const below = (child: Structural) => valueFor(child, depth - 1);
  if (s.type === 'array' || (s.items && !s.properties))
    return fc.oneof(
      { weight: 4, arbitrary: fc.array(s.items ? below(s.items) : scalar, { maxLength: 2 }) },
      scalar,
    );
  if (s.properties && s.properties.size > 0) {
    const names = [...s.properties.keys()];
    return fc
      .tuple(
        fc.subarray(names, { maxLength: Math.min(3, names.length) }),
        fc.array(fc.tuple(unknownKey, scalar), { maxLength: 1 }),
        fc.boolean(),
      )
      .chain(([picked, extra, unknownLast]) =>
        fc.tuple(...picked.map((name) => below(s.properties!.get(name)!))).map((values) => {
          // Unknown fields before or after the known ones: paths come in document order.
          const object: Record<string, unknown> = {};
          if (!unknownLast) for (const [k, v] of extra) object[k] = v;
          picked.forEach((name, i) => (object[name] = values[i]));
          if (unknownLast) for (const [k, v] of extra) object[k] = v;
          return object;
        }),
      );
  }
  if (typeof s.additionalProperties === 'object')
    return fc.dictionary(fc.string({ maxLength: 3 }), below(s.additionalProperties), {
      maxKeys: 2,
    });
  if (s.type === 'object') return fc.dictionary(unknownKey, scalar, { maxKeys: 2 });
  return scalar;
}

const builtinValue = fc
  .constantFrom(...KINDS)
  .chain((name) => valueFor(structuralForType(name), 6).map((value) => ({ name, value })))
  .filter(({ value }) => typeof value === 'object' && value !== null && !Array.isArray(value));

/** JSONSchemaProps a CRD may have (structural, without junctors). */
const crdSchema: fc.Arbitrary<JSONSchemaProps> = fc.letrec<{ node: JSONSchemaProps }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record(
      {
        type: fc.constantFrom('string', 'integer', 'boolean'),
        default: scalar,
      },
      { requiredKeys: ['type'] },
    ),
    fc.record(
      {
        type: fc.constant('object'),
        properties: fc.dictionary(fc.constantFrom('a', 'b', 'spec', 'c'), tie('node'), {
          maxKeys: 3,
        }),
        'x-kubernetes-preserve-unknown-fields': fc.constant(true),
        'x-kubernetes-embedded-resource': fc.constant(true),
        'x-kubernetes-map-type': fc.constantFrom('atomic', 'granular'),
        default: fc.dictionary(fc.constantFrom('a', 'd'), scalar, { maxKeys: 2 }),
        nullable: fc.boolean(),
      },
      { requiredKeys: ['type'] },
    ),
    fc.record({ type: fc.constant('object'), additionalProperties: tie('node') }),
    fc.record(
      {
        type: fc.constant('array'),
        items: tie('node'),
        'x-kubernetes-list-type': fc.constantFrom('atomic', 'set', 'map'),
        'x-kubernetes-list-map-keys': fc.constant(['a']),
      },
      { requiredKeys: ['type', 'items'] },
    ),
    fc.record({ 'x-kubernetes-int-or-string': fc.constant(true) }),
  ),
})).node;

const crdCase = fc
  .record({ spec: crdSchema, preserve: fc.boolean() })
  .map(({ spec, preserve }) => ({
    type: 'object',
    properties: { spec, status: spec },
    ...(preserve ? { 'x-kubernetes-preserve-unknown-fields': true } : {}),
  }))
  .chain((schema) =>
    fc
      .tuple(
        valueFor(customResourceRoot(fromOpenAPI(schema)), 6),
        fc.dictionary(fc.constantFrom('name', 'labels', 'bogus'), scalar, { maxKeys: 2 }),
      )
      .filter(([v]) => typeof v === 'object' && v !== null && !Array.isArray(v))
      .map(([value, metadata]) => ({
        schema,
        value: { metadata, ...(value as Record<string, unknown>) },
      })),
  );

/** Structural equality of two atom graphs (both may be cyclic). */
function sameAtom(
  a: Atom,
  b: Atom,
  seen = new Set<string>(),
  ids = new Map<Atom, number>(),
): boolean {
  const id = (x: Atom) => ids.get(x) ?? (ids.set(x, ids.size), ids.size - 1);
  const key = `${id(a)}:${id(b)}`;
  if (seen.has(key)) return true;
  seen.add(key);
  if (a.kind !== b.kind) return false;
  if (a.kind === 'list' && b.kind === 'list')
    return (
      a.atomic === b.atomic &&
      JSON.stringify(a.keys) === JSON.stringify(b.keys) &&
      sameAtom(a.element, b.element, seen, ids)
    );
  if (a.kind === 'map' && b.kind === 'map') {
    if (a.atomic !== b.atomic || !sameAtom(a.element, b.element, seen, ids)) return false;
    if (!a.fields !== !b.fields) return false;
    const fieldsA = [...(a.fields ?? [])];
    if (fieldsA.length !== (b.fields?.size ?? 0)) return false;
    for (const [name, atom] of fieldsA) {
      const other = b.fields?.get(name);
      if (!other || !sameAtom(atom, other, seen, ids)) return false;
    }
    return JSON.stringify([...(a.defaults ?? [])]) === JSON.stringify([...(b.defaults ?? [])]);
  }
  return true;
}

describe('one structural form for built-in kinds and CRDs', () => {
  it('a built-in kind loses the same unknown fields, reported at the same paths, as the schema-source walk did', () => {
    fc.assert(
      fc.property(builtinValue, ({ name, value }) => {
        const before = structuredClone(value) as Record<string, unknown>;
        const after = structuredClone(value) as Record<string, unknown>;
        expect(prune(after, structuralForType(name))).toEqual(builtinPruneBefore(name, before));
        expect(after).toEqual(before);
      }),
      { numRuns: 300 },
    );
  });

  it('a built-in kind gets the same defaults (SetDefaults_* and +default markers) as the schema-source walk gave', () => {
    fc.assert(
      fc.property(builtinValue, ({ name, value }) => {
        const before = structuredClone(value) as Record<string, unknown>;
        const after = structuredClone(value) as Record<string, unknown>;
        builtinDefaultBefore(name, before);
        applyDefaults(after, structuralForType(name), builtinDefaulters);
        expect(after).toEqual(before);
      }),
      { numRuns: 300 },
    );
  });

  it('a custom resource loses the same fields (its metadata by ObjectMeta, the rest by its CRD schema) as before', () => {
    fc.assert(
      fc.property(crdCase, ({ schema, value }) => {
        const before = structuredClone(value);
        const after = structuredClone(value);
        const was = [...objectMetaPruneBefore(before), ...crdPruneBefore(before, schema)];
        const now = prune(after, customResourceRoot(fromOpenAPI(schema)));
        // Document order, the metadata's first as before (it comes first in these objects).
        expect(now).toEqual(was);
        expect(after).toEqual(before);
      }),
      { numRuns: 300 },
    );
  });

  it("a custom resource gets its CRD schema's defaults as before", () => {
    fc.assert(
      fc.property(crdCase, ({ schema, value }) => {
        const before = structuredClone(value);
        const after = structuredClone(value);
        crdDefaultBefore(before, schema);
        applyDefaults(after, customResourceRoot(fromOpenAPI(schema)));
        expect(after).toEqual(before);
      }),
      { numRuns: 300 },
    );
  });

  it('a written custom resource body is pruned and defaulted in one walk with the result of the two walks it had', () => {
    fc.assert(
      fc.property(crdCase, ({ schema, value }) => {
        const before = structuredClone(value);
        const after = structuredClone(value);
        const was = [...objectMetaPruneBefore(before), ...crdPruneBefore(before, schema)];
        crdDefaultBefore(before, schema);
        expect(pruneAndDefault(after, customResourceRoot(fromOpenAPI(schema)))).toEqual(was);
        expect(after).toEqual(before);
        // Key order too: what is written is what a client reads back.
        expect(JSON.stringify(after)).toBe(JSON.stringify(before));
      }),
      { numRuns: 500 },
    );
  });

  it('a written built-in body is pruned, decoded and defaulted in one pass with the result of the three walks it had', () => {
    fc.assert(
      fc.property(builtinValue, ({ name, value }) => {
        const kind = name.slice(name.lastIndexOf('.') + 1);
        const before = structuredClone(value) as Record<string, unknown>;
        const after = structuredClone(value) as Record<string, unknown>;
        const failedBefore = decodeTypedObject(before, kind, name);
        let unknownBefore: string[] = [];
        if (!failedBefore) {
          builtinDefaultBefore(name, before);
          unknownBefore = builtinPruneBefore(name, before);
        }
        const unknown: string[] = [];
        const failed = decodeTypedObject(
          after,
          kind,
          name,
          pruneAndDefaultVisitor(unknown, builtinDefaulters),
        );
        expect(failed).toEqual(failedBefore);
        if (failed) return;
        expect(unknown).toEqual(unknownBefore);
        expect(after).toEqual(before);
      }),
      { numRuns: 500 },
    );
  });

  it('every type of the schema source converts to the server-side apply schema it had', () => {
    for (const name of Object.keys(schemaSource.types)) {
      const structural = structuralForType(name);
      if (structural.marshals) continue;
      expect(sameAtom(atomFromStructural(structural), atomForTypeBefore(name)), name).toBe(true);
    }
  });

  it("a CRD's schema converts to the server-side apply schema it had", () => {
    fc.assert(
      fc.property(crdCase, ({ schema }) => {
        expect(sameAtom(atomForCustomResource(schema), atomForCustomResourceBefore(schema))).toBe(
          true,
        );
      }),
      { numRuns: 300 },
    );
  });
});
