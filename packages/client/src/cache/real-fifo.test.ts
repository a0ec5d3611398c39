import type { KubeObject } from '@listwatch/api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { configMap } from '../testing/fixtures.js';
import { DeletedFinalStateUnknown } from './deleted-final-state-unknown.js';
import type { Delta } from './delta.js';
import { newIndexer } from './indexer.js';
import { RealFIFO } from './real-fifo.js';

const label = (d: Delta) =>
  d.object instanceof DeletedFinalStateUnknown
    ? `${d.type}:tombstone(${d.object.key})`
    : `${d.type}:${d.object.metadata.name}@${d.object.metadata.resourceVersion}`;

async function popAll(fifo: RealFIFO) {
  const out: string[] = [];
  while (fifo.len() > 0) {
    const deltas = await fifo.pop(() => {});
    expect(deltas).toHaveLength(1);
    out.push(label(deltas[0]!));
  }
  return out;
}

// client-go tools/cache/the_real_fifo.go and the_real_fifo_test.go.
describe('RealFIFO', () => {
  it('keeps every notification of a key, even an add followed by a delete', async () => {
    const fifo = new RealFIFO<KubeObject>({ knownObjects: newIndexer() });
    fifo.add(configMap('ns', 'a', '1'));
    fifo.delete(configMap('ns', 'a', '2'));
    fifo.delete(configMap('ns', 'a', '2'));
    expect(await popAll(fifo)).toEqual(['Added:a@1', 'Deleted:a@2', 'Deleted:a@2']);
  });

  it('tryPop processes what is queued at once, with the key it computed, and undefined once empty', () => {
    const fifo = new RealFIFO<KubeObject>({ knownObjects: newIndexer() });
    fifo.replace([configMap('ns', 'a', '1'), configMap('ns', 'b', '1')], '1');
    const seen: string[] = [];
    const process = (deltas: readonly Delta[], initial: boolean, key?: string) =>
      void seen.push(`${label(deltas[0]!)} ${key} ${initial}`);
    expect(fifo.tryPop(process)).toHaveLength(1);
    expect(fifo.tryPop(process)).toHaveLength(1);
    expect(fifo.tryPop(process)).toBeUndefined();
    expect(seen).toEqual(['Replaced:a@1 ns/a true', 'Replaced:b@1 ns/b true']);
    expect(fifo.hasSynced()).toBe(true);
  });

  it('hands over no key for a transformed object: the transform may change what the key is made of', () => {
    const fifo = new RealFIFO<KubeObject>({
      knownObjects: newIndexer(),
      transformer: (o) => ({ ...o, metadata: { ...o.metadata, name: 'renamed' } }),
    });
    fifo.add(configMap('ns', 'a', '1'));
    fifo.delete(new DeletedFinalStateUnknown<KubeObject>('ns/b', undefined));
    const keys: (string | undefined)[] = [];
    const process = (_d: readonly Delta[], _i: boolean, key?: string) => void keys.push(key);
    while (fifo.tryPop(process));
    expect(keys).toEqual([undefined, 'ns/b']);
  });

  it('a relist queues its tombstones before the listed objects', async () => {
    const known = newIndexer();
    known.add(configMap('ns', 'gone', '1'));
    const fifo = new RealFIFO<KubeObject>({ knownObjects: known });
    fifo.add(configMap('ns', 'queued', '2'));
    fifo.replace([configMap('ns', 'kept', '3')], '3');
    expect(await popAll(fifo)).toEqual([
      'Added:queued@2',
      'Deleted:tombstone(ns/queued)',
      'Deleted:tombstone(ns/gone)',
      'Replaced:kept@3',
    ]);
  });

  it('hasSynced counts every notification of the first replace, tombstones included', async () => {
    const known = newIndexer();
    known.add(configMap('ns', 'gone'));
    const fifo = new RealFIFO<KubeObject>({ knownObjects: known });
    fifo.replace([configMap('ns', 'a')], '1');
    expect(fifo.len()).toBe(2);
    await fifo.pop(() => {});
    expect(fifo.hasSynced()).toBe(false);
    await fifo.pop(() => {});
    expect(fifo.hasSynced()).toBe(true);
  });

  it('delivers add, update and delete notifications exactly in the order they arrived', async () => {
    const op = fc.record({
      op: fc.constantFrom('add' as const, 'update' as const, 'delete' as const),
      key: fc.constantFrom('a', 'b', 'c'),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 30 }), fc.array(fc.nat(5)), async (ops, pops) => {
        const fifo = new RealFIFO<KubeObject>({ knownObjects: newIndexer() });
        const sent: string[] = [];
        const received: string[] = [];
        let version = 0;
        for (const [i, o] of ops.entries()) {
          const obj: KubeObject = configMap('ns', o.key, String(++version));
          fifo[o.op](obj);
          sent.push(
            `${{ add: 'Added', update: 'Updated', delete: 'Deleted' }[o.op]}:${o.key}@${version}`,
          );
          // Interleave pops with pushes.
          for (let n = pops[i] ?? 0; n > 0 && fifo.len() > 0; n--) {
            received.push(label((await fifo.pop(() => {}))[0]!));
          }
        }
        received.push(...(await popAll(fifo)));
        expect(received).toEqual(sent);
      }),
    );
  });
});
