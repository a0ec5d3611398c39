import {
  findBuiltinResource,
  parseLabelSelector,
  type KubeObject,
  type WatchEvent,
} from '@listwatch/api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryStorage } from '../memory/memory-storage.js';
import type { StorageChange } from '../storage.js';
import type { CacheWatcher } from './cache-watcher.js';
import { Cacher } from './cacher.js';
import { SelectionPredicate } from './predicate.js';

// A model-based check of the etcd robustness watch guarantees (etcd tests/robustness/validate/
// watch.go) through the cache: every watcher's events equal storage's history after its start
// revision, filtered by its selector with kube's transition rules — ordered, unique, no gaps.

const configmaps = findBuiltinResource('configmaps')!;
const KEYS = ['a', 'b', 'c', 'd'];
const COLORS = ['red', 'blue'];

type Op =
  | { kind: 'put'; name: string; color: string }
  | { kind: 'delete'; name: string }
  | { kind: 'watch'; back: number; color: string | undefined };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('put' as const),
    name: fc.constantFrom(...KEYS),
    color: fc.constantFrom(...COLORS),
  }),
  fc.record({ kind: fc.constant('delete' as const), name: fc.constantFrom(...KEYS) }),
  fc.record({
    kind: fc.constant('watch' as const),
    back: fc.nat(12),
    color: fc.option(fc.constantFrom(...COLORS), { nil: undefined }),
  }),
);

function expected(history: StorageChange[], from: number, color: string | undefined): string[] {
  const matches = (o: KubeObject | undefined) =>
    o !== undefined && (color === undefined || o.metadata.labels?.['color'] === color);
  const out: string[] = [];
  for (const c of history) {
    if (c.revision <= from) continue;
    const cur = c.type !== 'DELETED' && matches(c.object);
    const prev = matches(c.prevObject);
    const type =
      cur && !prev ? 'ADDED' : cur && prev ? 'MODIFIED' : !cur && prev ? 'DELETED' : undefined;
    if (type) out.push(`${type}:${c.object.metadata.name}@${c.revision}`);
  }
  return out;
}

const describeEvent = (e: WatchEvent) => {
  const object = e.object as KubeObject;
  return `${e.type}:${object.metadata.name ?? ''}@${object.metadata.resourceVersion}`;
};

async function drain(watcher: CacheWatcher, count: number): Promise<string[]> {
  const got: string[] = [];
  const deadline = Date.now() + 3000;
  while (got.length < count && Date.now() < deadline) {
    const batch = await Promise.race([
      watcher.nextBatch(),
      new Promise<null>((r) => setTimeout(() => r(null), 200)),
    ]);
    if (batch) got.push(...batch.map((b) => describeEvent(b.encoded.event)));
  }
  return got;
}

describe('the watch cache against a model of storage history', () => {
  it('every watcher sees exactly the filtered history after its resourceVersion, in order', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 5, maxLength: 60 }), async (ops) => {
        const storage = new MemoryStorage({ compactionInterval: 0 });
        const cacher = new Cacher({ storage, definition: configmaps });
        await cacher.start();
        const history: StorageChange[] = [];
        const revisions: number[] = [await storage.currentRevision()];
        const live = new Set<string>();
        const watchers: { watcher: CacheWatcher; from: number; color: string | undefined }[] = [];
        const key = (name: string) => `/registry/configmaps/ns/${name}`;
        try {
          for (const o of ops) {
            if (o.kind === 'watch') {
              const from = revisions[Math.max(0, revisions.length - 1 - o.back)]!;
              const predicate = new SelectionPredicate(
                o.color ? parseLabelSelector(`color=${o.color}`) : undefined,
              );
              watchers.push({
                watcher: await cacher.watch({ resourceVersion: String(from), predicate }),
                from,
                color: o.color,
              });
              continue;
            }
            const object: KubeObject = {
              metadata: {
                name: o.name,
                namespace: 'ns',
                labels: { color: o.kind === 'put' ? o.color : '' },
              },
            };
            let change: StorageChange;
            if (o.kind === 'delete') {
              if (!live.has(o.name)) continue;
              const prev = await storage.get(key(o.name));
              const last = await storage.delete(key(o.name));
              live.delete(o.name);
              change = {
                type: 'DELETED',
                key: key(o.name),
                object: last,
                prevObject: prev!,
                revision: Number(last.metadata.resourceVersion),
              };
            } else if (live.has(o.name)) {
              const prev = await storage.get(key(o.name));
              const next = await storage.update(key(o.name), object);
              change = {
                type: 'MODIFIED',
                key: key(o.name),
                object: next,
                prevObject: prev!,
                revision: Number(next.metadata.resourceVersion),
              };
            } else {
              const created = await storage.create(key(o.name), object);
              live.add(o.name);
              change = {
                type: 'ADDED',
                key: key(o.name),
                object: created,
                revision: Number(created.metadata.resourceVersion),
              };
            }
            history.push(change);
            revisions.push(change.revision);
          }
          for (const { watcher, from, color } of watchers) {
            const want = expected(history, from, color);
            expect(await drain(watcher, want.length)).toEqual(want);
          }
        } finally {
          await cacher.stop();
          await storage.close();
        }
      }),
      { numRuns: 40 },
    );
  });
});
