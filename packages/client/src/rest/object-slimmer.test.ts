import { samplePod } from '@listwatch/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ObjectSlimmer } from './object-slimmer.js';

/** Every object and array in `value`, depth first. */
function* nodes(value: unknown): Generator<object> {
  if (typeof value !== 'object' || value === null) return;
  yield value;
  for (const child of Object.values(value)) yield* nodes(child);
}

const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    // Long, repeated strings: what the slimmer shares.
    fc.constantFrom(
      '',
      'short',
      'registry.example.com/shop/checkout:1.8.1',
      '2025-01-01T00:00:03Z',
    ),
    fc.string({ unit: 'binary' }),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom('a', 'f:metadata', '.', '__proto__', 'k'), tie('value'), {
      maxKeys: 3,
    }),
  ),
})).value;

describe('ObjectSlimmer', () => {
  it('leaves every value exactly as JSON.parse made it: same content, plain objects, extensible', () => {
    fc.assert(
      fc.property(fc.array(json, { maxLength: 8 }), (items) => {
        const text = JSON.stringify(items);
        const slimmed = JSON.parse(text) as unknown[];
        new ObjectSlimmer().slim(slimmed);
        expect(slimmed).toStrictEqual(JSON.parse(text));
        expect(JSON.stringify(slimmed)).toBe(text);
        for (const node of nodes(slimmed)) {
          if (Array.isArray(node)) continue;
          expect(Object.getPrototypeOf(node)).toBe(Object.prototype);
          expect(Object.isExtensible(node)).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('turns empty objects into plain {} that take new properties like any other', () => {
    type Tree = { [key: string]: Tree } & { metadata: { managedFields: { fieldsV1: Tree }[] } };
    const [pod] = JSON.parse(JSON.stringify([samplePod(1)])) as [Tree];
    new ObjectSlimmer().slim([pod]);
    const empty = pod.metadata.managedFields[0]!.fieldsV1['f:metadata']!['f:labels']!['.']!;
    expect(empty).toStrictEqual({});
    expect(empty.constructor).toBe(Object);
    (empty as Record<string, unknown>)['added'] = 1;
    expect(JSON.stringify(empty)).toBe('{"added":1}');
    expect(structuredClone(empty)).toStrictEqual({ added: 1 });
  });

  it('leaves objects nested deeper than any Kubernetes object as they are', () => {
    let deep: unknown = { leaf: 'registry.example.com/shop/checkout:1.8.1', empty: {} };
    for (let i = 0; i < 1000; i++) deep = { next: deep };
    const text = JSON.stringify([deep]);
    const slimmed = JSON.parse(text) as unknown[];
    new ObjectSlimmer().slim(slimmed);
    expect(JSON.stringify(slimmed)).toBe(text);
  });
});
