import { ApiError, type KubeObject } from '@listwatch/api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { configMap, settle } from '../testing/fixtures.js';
import { DeletedFinalStateUnknown } from './deleted-final-state-unknown.js';
import type { Deltas } from './delta.js';
import { DeltaFIFO } from './delta-fifo.js';
import { newIndexer, type Indexer } from './indexer.js';
import { processDeltas } from './process-deltas.js';
import { FIFOClosedError, type Queue, type TransformFunc } from './queue.js';
import { RealFIFO } from './real-fifo.js';
import type { KeyListerGetter } from './store.js';

type Notification =
  | ['add', string, boolean]
  | ['update', string, string]
  | ['delete', string, 'tombstone' | 'object'];

interface FifoKind {
  name: string;
  make(knownObjects: KeyListerGetter, transformer?: TransformFunc): Queue;
}

const kinds: FifoKind[] = [
  {
    name: 'DeltaFIFO',
    make: (knownObjects, transformer) =>
      new DeltaFIFO({ knownObjects, ...(transformer ? { transformer } : {}) }),
  },
  {
    name: 'RealFIFO',
    make: (knownObjects, transformer) =>
      new RealFIFO({ knownObjects, ...(transformer ? { transformer } : {}) }),
  },
];

const rv = (obj: KubeObject | DeletedFinalStateUnknown | undefined): string =>
  obj instanceof DeletedFinalStateUnknown
    ? `tombstone:${rv(obj.obj)}`
    : (obj?.metadata.resourceVersion ?? '?');

/** A FIFO wired to an indexer and a recording handler, as an informer wires them. */
function harness(kind: FifoKind, transformer?: TransformFunc) {
  const indexer: Indexer = newIndexer();
  const fifo = kind.make(indexer, transformer);
  const seen: Notification[] = [];
  const tombstones: DeletedFinalStateUnknown[] = [];
  const handler = {
    onAdd: (obj: KubeObject, initial: boolean) =>
      seen.push(['add', `${obj.metadata.name}@${rv(obj)}`, initial]),
    onUpdate: (old: KubeObject, obj: KubeObject) =>
      seen.push(['update', `${old.metadata.name}@${rv(old)}`, `${obj.metadata.name}@${rv(obj)}`]),
    onDelete: (obj: KubeObject | DeletedFinalStateUnknown) => {
      if (obj instanceof DeletedFinalStateUnknown) tombstones.push(obj);
      const name =
        obj instanceof DeletedFinalStateUnknown
          ? obj.key
          : `${obj.metadata.namespace}/${obj.metadata.name}`;
      seen.push(['delete', name, obj instanceof DeletedFinalStateUnknown ? 'tombstone' : 'object']);
    },
  };
  const popped: Deltas[] = [];
  const pop = async () => {
    popped.push(
      await fifo.pop((deltas, initial) => processDeltas(handler, indexer, deltas, initial)),
    );
  };
  const drain = async () => {
    while (fifo.len() > 0) await pop();
  };
  return { indexer, fifo, seen, tombstones, popped, pop, drain };
}

describe.each(kinds)('$name (the Queue contract both FIFOs share)', (kind) => {
  it('add, update and delete reach the indexer and the handler in order', async () => {
    const h = harness(kind);
    h.fifo.add(configMap('ns', 'a', '1'));
    h.fifo.update(configMap('ns', 'a', '2'));
    h.fifo.delete(configMap('ns', 'a', '3'));
    await h.drain();
    expect(h.seen).toEqual([
      ['add', 'a@1', false],
      ['update', 'a@1', 'a@2'],
      ['delete', 'ns/a', 'object'],
    ]);
    expect(h.indexer.list()).toEqual([]);
  });

  it('the first replace is the initial list: synced only once all of it is popped', async () => {
    const h = harness(kind);
    expect(h.fifo.hasSynced()).toBe(false);
    h.fifo.replace([configMap('ns', 'a'), configMap('ns', 'b')], '10');
    expect(h.fifo.hasSynced()).toBe(false);
    await h.pop();
    expect(h.fifo.hasSynced()).toBe(false);
    h.fifo.add(configMap('ns', 'c'));
    await h.pop();
    expect(h.fifo.hasSynced()).toBe(true);
    await h.drain();
    expect(h.seen).toEqual([
      ['add', 'a@1', true],
      ['add', 'b@1', true],
      ['add', 'c@1', false],
    ]);
  });

  it('an empty first replace makes the queue synced at once', () => {
    const h = harness(kind);
    h.fifo.replace([], '1');
    expect(h.fifo.hasSynced()).toBe(true);
  });

  it('an add before any replace makes the queue synced at once', () => {
    const h = harness(kind);
    h.fifo.add(configMap('ns', 'a'));
    expect(h.fifo.hasSynced()).toBe(true);
  });

  it('onSynced fires once, when the last item of the first replace has been processed — or at once if already synced', async () => {
    const h = harness(kind);
    const fired: string[] = [];
    h.fifo.onSynced(() => fired.push(`synced with ${h.indexer.listKeys().length} stored`));
    const cancelled = h.fifo.onSynced(() => fired.push('cancelled'));
    cancelled();
    h.fifo.replace([configMap('ns', 'a'), configMap('ns', 'b')], '10');
    await h.pop();
    expect(fired).toEqual([]);
    await h.pop();
    h.fifo.add(configMap('ns', 'c'));
    await h.pop();
    expect(fired).toEqual(['synced with 2 stored']);
    h.fifo.onSynced(() => fired.push('late'));
    expect(fired).toEqual(['synced with 2 stored', 'late']);

    const empty = harness(kind);
    let emptySynced = false;
    empty.fifo.onSynced(() => (emptySynced = true));
    empty.fifo.replace([], '1');
    expect(emptySynced).toBe(true);
  });

  it('a relist turns stored objects missing from the list into DeletedFinalStateUnknown', async () => {
    const h = harness(kind);
    h.fifo.replace([configMap('ns', 'a', '1'), configMap('ns', 'b', '1')], '1');
    await h.drain();
    h.fifo.replace([configMap('ns', 'b', '2')], '2');
    await h.drain();
    // Order differs: RealFIFO queues tombstones first, DeltaFIFO after the listed keys.
    expect(h.seen.slice(2)).toHaveLength(2);
    expect(h.seen.slice(2)).toEqual(
      expect.arrayContaining([
        ['delete', 'ns/a', 'tombstone'],
        ['update', 'b@1', 'b@2'],
      ]),
    );
    expect(h.tombstones[0]?.obj?.metadata.resourceVersion).toBe('1');
    expect(h.indexer.listKeys()).toEqual(['ns/b']);
  });

  it('a relist tombstones a queued object missing from the list with its queued state', async () => {
    const h = harness(kind);
    h.fifo.add(configMap('ns', 'a', '7'));
    h.fifo.replace([], '8');
    await h.drain();
    expect(h.seen).toEqual([
      ['add', 'a@7', false],
      ['delete', 'ns/a', 'tombstone'],
    ]);
    expect(h.tombstones[0]?.obj?.metadata.resourceVersion).toBe('7');
    expect(h.indexer.list()).toEqual([]);
  });

  it('a relist adds no tombstone for a key whose last queued change is a delete', async () => {
    const h = harness(kind);
    h.fifo.add(configMap('ns', 'a', '1'));
    await h.drain();
    h.fifo.delete(configMap('ns', 'a', '2'));
    h.fifo.replace([], '3');
    await h.drain();
    expect(h.seen).toEqual([
      ['add', 'a@1', false],
      ['delete', 'ns/a', 'object'],
    ]);
  });

  it('resync queues Sync only for stored objects with no pending change', async () => {
    const h = harness(kind);
    h.fifo.replace([configMap('ns', 'a', '1'), configMap('ns', 'b', '1')], '1');
    await h.drain();
    h.fifo.update(configMap('ns', 'b', '2'));
    h.fifo.resync();
    await h.drain();
    const types = h.popped
      .slice(2)
      .flatMap((d) =>
        d.map(
          (x) =>
            `${x.type}:${x.object instanceof DeletedFinalStateUnknown ? '' : x.object.metadata.name}`,
        ),
      );
    expect(types.sort()).toEqual(['Sync:a', 'Updated:b']);
    // A resync is an update with the same object (client-go: equal resourceVersions).
    expect(h.seen).toContainEqual(['update', 'a@1', 'a@1']);
    expect(h.seen).toContainEqual(['update', 'b@1', 'b@2']);
  });

  it('pop waits until an item is queued', async () => {
    const h = harness(kind);
    let done = false;
    const popping = h.pop().then(() => (done = true));
    await settle();
    expect(done).toBe(false);
    h.fifo.add(configMap('ns', 'a'));
    await popping;
    expect(h.seen).toEqual([['add', 'a@1', false]]);
  });

  it('close ends a waiting pop with FIFOClosedError, a 503', async () => {
    const h = harness(kind);
    const popping = h.fifo.pop(() => {});
    h.fifo.close();
    const err = await popping.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(FIFOClosedError);
    expect((err as ApiError).code).toBe(503);
    expect(h.fifo.isClosed()).toBe(true);
  });

  it('items queued before close can still be popped, then pop rejects', async () => {
    const h = harness(kind);
    h.fifo.add(configMap('ns', 'a'));
    h.fifo.close();
    await h.pop();
    expect(h.indexer.listKeys()).toEqual(['ns/a']);
    await expect(h.fifo.pop(() => {})).rejects.toBeInstanceOf(FIFOClosedError);
  });

  it('an error thrown while processing rejects pop as an ApiError and drops the item', async () => {
    const h = harness(kind);
    h.fifo.add(configMap('ns', 'a'));
    const err: unknown = await h.fifo
      .pop(() => {
        throw new Error('handler broke');
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe(500);
    expect((err as ApiError).cause).toBeInstanceOf(Error);
    expect(h.fifo.len()).toBe(0);
  });

  it('an object without a key is refused with a 400 and nothing is queued', () => {
    const h = harness(kind);
    const bad = { kind: 'ConfigMap' } as unknown as KubeObject;
    expect(() => h.fifo.add(bad)).toThrow(ApiError);
    expect(() => h.fifo.replace([configMap('ns', 'a'), bad], '1')).toThrow(/couldn't create key/);
    expect(h.fifo.len()).toBe(0);
  });

  it('the transformer sees incoming objects but not tombstones or resyncs', async () => {
    const transformed: string[] = [];
    const strip: TransformFunc = (obj) => {
      transformed.push(obj.metadata.name ?? '');
      return { ...obj, metadata: { ...obj.metadata, managedFields: [] } };
    };
    const h = harness(kind, strip);
    h.fifo.replace([configMap('ns', 'a'), configMap('ns', 'b')], '1');
    await h.drain();
    h.fifo.resync();
    h.fifo.replace([configMap('ns', 'a', '2')], '2');
    await h.drain();
    expect(transformed).toEqual(['a', 'b', 'a']);
    expect(h.indexer.getByKey('ns/a')?.metadata.managedFields).toEqual([]);
  });

  it('after random events, the indexer equals what the events describe', async () => {
    const key = fc.constantFrom('a', 'b', 'c', 'd');
    const event = fc.oneof(
      fc.record({ op: fc.constantFrom('add' as const, 'update' as const, 'delete' as const), key }),
      fc.record({
        op: fc.constant('replace' as const),
        keys: fc.uniqueArray(key, { maxLength: 4 }),
      }),
      fc.record({ op: fc.constant('resync' as const) }),
      fc.record({ op: fc.constant('pop' as const), n: fc.integer({ min: 1, max: 3 }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(event, { maxLength: 40 }), async (events) => {
        const h = harness(kind);
        const model = new Map<string, string>();
        let version = 0;
        for (const e of events) {
          const next = String(++version);
          if (e.op === 'add' || e.op === 'update') {
            h.fifo[e.op](configMap('ns', e.key, next));
            model.set(`ns/${e.key}`, next);
          } else if (e.op === 'delete') {
            h.fifo.delete(configMap('ns', e.key, next));
            model.delete(`ns/${e.key}`);
          } else if (e.op === 'replace') {
            h.fifo.replace(
              e.keys.map((k) => configMap('ns', k, next)),
              next,
            );
            model.clear();
            for (const k of e.keys) model.set(`ns/${k}`, next);
          } else if (e.op === 'resync') {
            h.fifo.resync();
          } else if (e.op === 'pop') {
            for (let i = 0; i < e.n && h.fifo.len() > 0; i++) await h.pop();
          }
        }
        await h.drain();
        const stored = new Map(h.indexer.list().map((o) => [`ns/${o.metadata.name}`, rv(o)]));
        expect(stored).toEqual(model);
      }),
    );
  });
});
