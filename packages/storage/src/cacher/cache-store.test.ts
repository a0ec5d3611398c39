import { findBuiltinResource, type KubeObject } from '@listwatch/api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareKeys, keyAfter } from '../keys.js';
import { CacheStore, type StoreSnapshot } from './cache-store.js';

// The watch cache's B+ tree store (k8s.io/apiserver pkg/storage/cacher/store/store_btree.go)
// against a plain model: a Map, sorted in etcd's byte order when read.

const pods = findBuiltinResource('pods')!;
// Names whose UTF-16 and UTF-8 orders differ (U+FF5E vs U+1F600) and that share prefixes.
const NAMES = ['a', 'a0', 'b', 'ｚ', '😀', 'a-1'];
const NAMESPACES = ['n', 'n-2'];
const NODES = ['node-1', 'node-2', ''];

type Op =
  | { kind: 'upsert'; ns: string; name: string; node: string }
  | { kind: 'delete'; ns: string; name: string }
  | { kind: 'snapshot' };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('upsert' as const),
    ns: fc.constantFrom(...NAMESPACES),
    name: fc.constantFrom(...NAMES),
    node: fc.constantFrom(...NODES),
  }),
  fc.record({
    kind: fc.constant('delete' as const),
    ns: fc.constantFrom(...NAMESPACES),
    name: fc.constantFrom(...NAMES),
  }),
  fc.record({ kind: fc.constant('snapshot' as const) }),
);

const pod = (ns: string, name: string, node: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: ns },
  spec: { nodeName: node },
});

const sorted = (model: Map<string, KubeObject>) =>
  [...model.entries()].sort(([a], [b]) => compareKeys(a, b));

function expectLike(
  view: Pick<StoreSnapshot, 'range' | 'count' | 'get'>,
  model: Map<string, KubeObject>,
) {
  for (const prefix of ['/registry/pods/', ...NAMESPACES.map((ns) => `/registry/pods/${ns}/`)]) {
    const want = sorted(model).filter(([k]) => k.startsWith(prefix));
    expect([...view.range(prefix)].map((e) => e.key)).toEqual(want.map(([k]) => k));
    expect(view.count(prefix)).toBe(want.length);
    for (const [i, [key]] of want.entries()) {
      const rest = want.slice(i + 1).map(([k]) => k);
      expect([...view.range(prefix, keyAfter(key))].map((e) => e.key)).toEqual(rest);
      expect(view.count(prefix, keyAfter(key))).toBe(rest.length);
    }
  }
  for (const [key, object] of model) expect(view.get(key)?.object).toBe(object);
}

describe('the watch-cache store', () => {
  it('reads as a map sorted in byte order, its index by node matches, and every snapshot keeps the state it was taken at', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        const store = new CacheStore(pods);
        const model = new Map<string, KubeObject>();
        const snapshots: { snapshot: StoreSnapshot; model: Map<string, KubeObject> }[] = [];
        let revision = 0;
        for (const o of ops) {
          revision++;
          if (o.kind === 'snapshot') {
            snapshots.push({ snapshot: store.snapshot(revision), model: new Map(model) });
            continue;
          }
          const key = `/registry/pods/${o.ns}/${o.name}`;
          if (o.kind === 'delete') {
            store.delete(key);
            model.delete(key);
          } else {
            const object = pod(o.ns, o.name, o.node);
            store.upsert(store.element(object, key));
            model.set(key, object);
          }
        }
        expectLike(store, model);
        expect(store.size).toBe(model.size);
        for (const node of NODES) {
          const want = sorted(model)
            .filter(([, o]) => (o.spec as { nodeName: string }).nodeName === node)
            .map(([k]) => k);
          expect(store.byIndex('spec.nodeName', node).map((e) => e.key)).toEqual(want);
        }
        for (const { snapshot, model: then } of snapshots) {
          expectLike(snapshot, then);
          expect(snapshot.size).toBe(then.size);
        }
      }),
      { numRuns: 200 },
    );
  });
});
