import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Interner } from './interning.js';

// JSON values as storage decodes them (JSON.parse of their text), `__proto__` keys included.
const decoded = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** A pod's managedFields entry, as the create of a Deployment's pod leaves it. */
const entry = (volume: string) => ({
  manager: 'kube-controller-manager',
  operation: 'Update',
  apiVersion: 'v1',
  time: '2026-12-02T16:00:00Z',
  fieldsType: 'FieldsV1',
  fieldsV1: {
    'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
    'f:spec': {
      'f:containers': { 'k:{"name":"app"}': { '.': {}, 'f:image': {}, 'f:name': {} } },
      'f:volumes': { [`k:{"name":"${volume}"}`]: { '.': {}, 'f:name': {}, 'f:projected': {} } },
    },
  },
});
const pod = (name: string, volume: string) =>
  decoded({
    metadata: { name, namespace: 'default', managedFields: [entry(volume)] },
    spec: { containers: [{ name: 'app', image: 'registry.example.com/shop/checkout:1.24.7' }] },
  });

/** Heap in use after full collections (the test process's own gc, enabled for this). */
function heapUsed(): number {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

describe('Interner: what recurs across cached objects is kept once', () => {
  it('changes nothing an encoding shows: every object encodes as it did', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), fc.jsonValue({ maxDepth: 5 }), (a, b) => {
        const interner = new Interner();
        const objects = [a, b, a].map((v) =>
          decoded({ metadata: { managedFields: [{ fieldsV1: v }, v] }, v }),
        );
        const texts = objects.map((o) => JSON.stringify(o));
        objects.forEach((o, i) => interner.intern(o, i === 2 ? objects[0] : undefined));
        expect(objects.map((o) => JSON.stringify(o))).toEqual(texts);
      }),
    );
  });

  it('the FieldsV1 subtrees two objects have alike are one frozen object; the ones they differ in stay their own', () => {
    const interner = new Interner();
    const [a, b] = [pod('a', 'kube-api-access-x1'), pod('b', 'kube-api-access-y2')];
    interner.intern(a);
    interner.intern(b);
    const fa = a.metadata.managedFields[0]!.fieldsV1;
    const fb = b.metadata.managedFields[0]!.fieldsV1;
    expect(fb['f:metadata']).toBe(fa['f:metadata']);
    expect(fb['f:spec']['f:containers']).toBe(fa['f:spec']['f:containers']);
    expect(fb['f:spec']['f:volumes']).not.toBe(fa['f:spec']['f:volumes']);
    // A write into a shared tree would change every object holding it: it fails instead.
    expect(() => {
      (fa['f:metadata']['f:labels'] as Record<string, unknown>)['f:tier'] = {};
    }).toThrow(TypeError);
    expect(JSON.stringify(b)).toBe(JSON.stringify(pod('b', 'kube-api-access-y2')));
  });

  it('a part the previous version holds already is left as it is (the one copy shareUnchanged kept)', () => {
    const interner = new Interner();
    const previous = interner.intern(pod('a', 'v'));
    const next = pod('a', 'v');
    next.spec = previous.spec;
    const spec = next.spec;
    interner.intern(next, previous);
    expect(next.spec).toBe(spec);
    expect(next.metadata.managedFields[0]!.fieldsV1['f:metadata']).toBe(
      previous.metadata.managedFields[0]!.fieldsV1['f:metadata'],
    );
  });

  it('a string that recurs across objects (an image) costs its bytes once, not once per object', () => {
    const n = 20_000;
    const text = JSON.stringify({ image: `registry.example.com/${'a'.repeat(180)}:1.0.0` });
    const held: unknown[] = [];
    const measure = (intern: boolean) => {
      const interner = new Interner();
      held.length = 0;
      const before = heapUsed();
      for (let i = 0; i < n; i++) {
        const o = JSON.parse(text) as { image: string };
        held.push(intern ? interner.intern(o) : o);
      }
      return heapUsed() - before;
    };
    const copies = measure(false);
    const interned = measure(true);
    // Each copy is ≥ 200 bytes of characters: 4 MB for the copies, one string interned.
    expect(copies - interned).toBeGreaterThan(n * 150);
  });
});
