import type { KubeObject } from '@listwatch/api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keyAfter } from '../keys.js';
import type { StorageEvent } from '../storage.js';
import { isStorageError } from '../storage-error.js';
import { MemoryStorage } from './memory-storage.js';

// The memory backend against the simplest model that could be right: a full snapshot of the
// store at every revision.

type State = ReadonlyMap<string, { v: string; rev: number }>;
type Expectation = 'none' | 'current' | 'stale';

type Op =
  | { op: 'create'; name: string; v: string }
  | { op: 'update'; name: string; v: string; expect: Expectation }
  | { op: 'delete'; name: string; expect: Expectation }
  | { op: 'get'; name: string }
  | { op: 'list'; back: number; limit: number; after: string | null }
  | { op: 'compact'; back: number };

const NAMES = ['a', 'b', 'c', 'd'];
const name = fc.constantFrom(...NAMES);
const expectation = fc.constantFrom<Expectation>('none', 'current', 'stale');
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('create' as const),
      name,
      v: fc.string({ maxLength: 3 }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('update' as const),
      name,
      v: fc.string({ maxLength: 3 }),
      expect: expectation,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ op: fc.constant('delete' as const), name, expect: expectation }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('get' as const), name }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('list' as const),
      back: fc.nat({ max: 6 }),
      limit: fc.nat({ max: 3 }),
      after: fc.option(name),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant('compact' as const), back: fc.nat({ max: 6 }) }),
  },
);

const PREFIX = '/registry/configmaps/ns/';
const key = (n: string) => `${PREFIX}${n}`;
const object = (n: string, v: string): KubeObject => ({
  metadata: { name: n, namespace: 'ns' },
  data: { v },
});
const view = (o: KubeObject | undefined) =>
  o && {
    name: o.metadata.name,
    v: (o['data'] as { v: string }).v,
    rev: Number(o.metadata.resourceVersion),
  };

/** What the storage answered, in a comparable shape. */
async function outcome(promise: Promise<unknown>): Promise<unknown> {
  try {
    return { ok: await promise };
  } catch (err) {
    if (!isStorageError(err)) throw err;
    return { error: err.storageCode };
  }
}

class Model {
  revision = 1;
  compacted = 0;
  readonly states: State[] = [new Map(), new Map()];
  readonly log: { type: string; name: string; rev: number; v: string }[] = [];

  get current(): State {
    return this.states[this.revision]!;
  }

  private write(name: string, v: string | undefined): { name: string; v: string; rev: number } {
    const next = new Map(this.current);
    const prev = this.current.get(name);
    this.revision++;
    if (v === undefined) next.delete(name);
    else next.set(name, { v, rev: this.revision });
    this.states.push(next);
    this.log.push({
      type: v === undefined ? 'DELETED' : prev ? 'MODIFIED' : 'ADDED',
      name,
      rev: this.revision,
      v: v ?? prev!.v,
    });
    return { name, v: v ?? prev!.v, rev: this.revision };
  }

  private check(name: string, expect: Expectation): string | undefined {
    const current = this.current.get(name);
    if (!current) return 'KeyNotFound';
    if (expect === 'stale') return 'ResourceVersionConflicts';
    return undefined;
  }

  apply(o: Op): unknown {
    switch (o.op) {
      case 'create':
        if (this.current.has(o.name)) return { error: 'KeyExists' };
        return { ok: this.write(o.name, o.v) };
      case 'update': {
        const error = this.check(o.name, o.expect);
        return error ? { error } : { ok: this.write(o.name, o.v) };
      }
      case 'delete': {
        const error = this.check(o.name, o.expect);
        return error ? { error } : { ok: this.write(o.name, undefined) };
      }
      case 'get': {
        const found = this.current.get(o.name);
        return { ok: found && { name: o.name, ...found } };
      }
      case 'list': {
        const revision = Math.max(1, this.revision - o.back);
        if (revision < this.compacted) return { error: 'Expired' };
        const all = [...this.states[revision]!.entries()]
          .filter(([n]) => o.after === null || n > o.after)
          .sort(([x], [y]) => (x < y ? -1 : 1))
          .map(([n, s]) => ({ name: n, ...s }));
        const items = o.limit > 0 ? all.slice(0, o.limit) : all;
        return { ok: { items, revision, remaining: all.length - items.length } };
      }
      case 'compact': {
        const revision = Math.max(1, this.revision - o.back);
        if (revision > this.compacted) this.compacted = revision;
        return { ok: undefined };
      }
    }
  }
}

async function run(storage: MemoryStorage, o: Op, model: Model): Promise<unknown> {
  const expected = (current: number | undefined) =>
    o.op !== 'create' &&
    o.op !== 'get' &&
    o.op !== 'list' &&
    o.op !== 'compact' &&
    o.expect !== 'none'
      ? { expectedRevision: o.expect === 'stale' ? (current ?? 0) + 1000 : (current ?? 0) }
      : {};
  const currentRev = () => model.current.get((o as { name: string }).name)?.rev;
  switch (o.op) {
    case 'create':
      return outcome(storage.create(key(o.name), object(o.name, o.v)).then(view));
    case 'update':
      return outcome(
        storage.update(key(o.name), object(o.name, o.v), expected(currentRev())).then(view),
      );
    case 'delete':
      return outcome(storage.delete(key(o.name), expected(currentRev())).then(view));
    case 'get':
      return outcome(storage.get(key(o.name)).then(view));
    case 'list': {
      const revision = Math.max(1, model.revision - o.back);
      return outcome(
        storage
          .list(PREFIX, {
            revision,
            limit: o.limit,
            ...(o.after === null ? {} : { continueFrom: keyAfter(key(o.after)) }),
          })
          .then((l) => ({
            items: l.items.map(view),
            revision: l.revision,
            remaining: l.remaining,
          })),
      );
    }
    case 'compact':
      return outcome(storage.compact(Math.max(1, model.revision - o.back)));
  }
}

describe('memory backend against a model', () => {
  it('random operation sequences give the same results, lists and watch history as the model', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 40 }), async (ops) => {
        const storage = new MemoryStorage({ compactionInterval: 0 });
        const model = new Model();
        try {
          for (const o of ops) {
            const actual = await run(storage, o, model);
            expect(actual).toEqual(model.apply(o));
          }
          expect(await storage.currentRevision()).toBe(model.revision);
          // The whole history still held, replayed from just after the compaction point.
          const from = Math.max(model.compacted, 1);
          const watch = storage.watch(PREFIX, { fromRevision: from });
          watch.requestProgress();
          const seen: unknown[] = [];
          for await (const event of watch as AsyncIterable<StorageEvent>) {
            if (event.type === 'PROGRESS') break;
            seen.push({
              type: event.type,
              name: event.object.metadata.name,
              rev: event.revision,
              v: (event.object['data'] as { v: string }).v,
            });
          }
          expect(seen).toEqual(model.log.filter((e) => e.rev > from));
        } finally {
          await storage.close();
        }
      }),
      { numRuns: 200 },
    );
  });
});
