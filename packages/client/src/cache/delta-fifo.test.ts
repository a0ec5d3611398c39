import type { KubeObject } from '@listwatch/api';
import { describe, expect, it } from 'vitest';
import { configMap } from '../testing/fixtures.js';
import { DeletedFinalStateUnknown } from './deleted-final-state-unknown.js';
import type { Deltas } from './delta.js';
import { DeltaFIFO } from './delta-fifo.js';
import { newIndexer } from './indexer.js';
import { RealFIFO } from './real-fifo.js';

const shape = (deltas: Deltas) =>
  deltas.map((d) =>
    d.object instanceof DeletedFinalStateUnknown
      ? `${d.type}:tombstone(${d.object.key})`
      : `${d.type}:${d.object.metadata.name}@${d.object.metadata.resourceVersion}`,
  );

async function popAll(fifo: { len(): number; pop(p: () => void): Promise<Deltas> }) {
  const out: string[][] = [];
  while (fifo.len() > 0) out.push(shape(await fifo.pop(() => {})));
  return out;
}

// client-go tools/cache/delta_fifo.go and delta_fifo_test.go.
describe('DeltaFIFO', () => {
  it('coalesces the changes of a key into one pop, keys in first-queued order', async () => {
    const fifo = new DeltaFIFO();
    fifo.add(configMap('ns', 'a', '1'));
    fifo.add(configMap('ns', 'b', '1'));
    fifo.update(configMap('ns', 'a', '2'));
    expect(fifo.listKeys()).toEqual(['ns/a', 'ns/b']);
    expect(await popAll(fifo)).toEqual([['Added:a@1', 'Updated:a@2'], ['Added:b@1']]);
  });

  it('where RealFIFO delivers the same changes one by one in arrival order', async () => {
    const fifo = new RealFIFO<KubeObject>({ knownObjects: newIndexer() });
    fifo.add(configMap('ns', 'a', '1'));
    fifo.add(configMap('ns', 'b', '1'));
    fifo.update(configMap('ns', 'a', '2'));
    expect(await popAll(fifo)).toEqual([['Added:a@1'], ['Added:b@1'], ['Updated:a@2']]);
  });

  it('tryPop processes the next key at once, handing over that key, and undefined once empty', () => {
    const fifo = new DeltaFIFO();
    fifo.add(configMap('ns', 'a', '1'));
    fifo.update(configMap('ns', 'a', '2'));
    const seen: string[] = [];
    const process = (deltas: Deltas, _initial: boolean, key?: string) =>
      void seen.push(`${shape(deltas).join(',')} ${key}`);
    expect(fifo.tryPop(process)).toHaveLength(2);
    expect(fifo.tryPop(process)).toBeUndefined();
    expect(seen).toEqual(['Added:a@1,Updated:a@2 ns/a']);
  });

  it('a key popped and queued again goes to the back of the queue', async () => {
    const fifo = new DeltaFIFO();
    fifo.add(configMap('ns', 'a', '1'));
    fifo.add(configMap('ns', 'b', '1'));
    await fifo.pop(() => {});
    fifo.update(configMap('ns', 'a', '2'));
    expect(fifo.listKeys()).toEqual(['ns/b', 'ns/a']);
  });

  it('two deletions in a row collapse into one, keeping the real object over a tombstone', () => {
    const fifo = new DeltaFIFO();
    fifo.add(configMap('ns', 'a', '1'));
    fifo.delete(configMap('ns', 'a', '2'));
    fifo.delete(new DeletedFinalStateUnknown('ns/a', configMap('ns', 'a', '1')));
    expect(shape(fifo.getByKey('ns/a')!)).toEqual(['Added:a@1', 'Deleted:a@2']);

    const other = new DeltaFIFO();
    other.add(configMap('ns', 'b', '1'));
    other.delete(new DeletedFinalStateUnknown('ns/b', configMap('ns', 'b', '1')));
    other.delete(configMap('ns', 'b', '3'));
    expect(shape(other.getByKey('ns/b')!)).toEqual(['Added:b@1', 'Deleted:b@3']);
  });

  it('a delete of a key neither queued nor known is dropped: a relist already reported it', () => {
    const fifo = new DeltaFIFO({ knownObjects: newIndexer() });
    fifo.delete(configMap('ns', 'ghost'));
    expect(fifo.len()).toBe(0);
  });

  it('a delete of a known key that is not queued is queued', () => {
    const known = newIndexer();
    known.add(configMap('ns', 'a'));
    const fifo = new DeltaFIFO({ knownObjects: known });
    fifo.delete(configMap('ns', 'a', '2'));
    expect(shape(fifo.getByKey('ns/a')!)).toEqual(['Deleted:a@2']);
  });

  it('resync adds no Sync after a pending delete, which would resurrect the object', () => {
    const known = newIndexer();
    known.add(configMap('ns', 'a', '1'));
    const fifo = new DeltaFIFO({ knownObjects: known });
    fifo.delete(configMap('ns', 'a', '2'));
    fifo.resync();
    expect(shape(fifo.getByKey('ns/a')!)).toEqual(['Deleted:a@2']);
  });

  it('without knownObjects, replace only tombstones queued keys and resync does nothing', () => {
    const fifo = new DeltaFIFO();
    fifo.add(configMap('ns', 'a', '1'));
    fifo.replace([configMap('ns', 'b', '1')], '2');
    fifo.resync();
    expect(shape(fifo.getByKey('ns/a')!)).toEqual(['Added:a@1', 'Deleted:tombstone(ns/a)']);
    expect(fifo.listKeys()).toEqual(['ns/a', 'ns/b']);
  });

  it('a tombstone of a queued tombstone carries the object, not a nested tombstone', () => {
    const fifo = new DeltaFIFO();
    fifo.add(configMap('ns', 'a', '1'));
    fifo.replace([], '2');
    fifo.update(configMap('ns', 'a', '3'));
    fifo.replace([], '4');
    const deltas = fifo.getByKey('ns/a')!;
    const last = deltas[deltas.length - 1]!.object as DeletedFinalStateUnknown;
    expect(last.obj?.metadata.resourceVersion).toBe('3');
  });

  it('hasSynced counts keys, not deltas, of the first replace', async () => {
    const known = newIndexer();
    const fifo = new DeltaFIFO({ knownObjects: known });
    fifo.replace([configMap('ns', 'a', '1'), configMap('ns', 'a', '2'), configMap('ns', 'b')], '1');
    expect(fifo.len()).toBe(2);
    await fifo.pop(() => {});
    expect(fifo.hasSynced()).toBe(false);
    await fifo.pop(() => {});
    expect(fifo.hasSynced()).toBe(true);
  });

  it('list gives the newest object of each queued key', () => {
    const fifo = new DeltaFIFO();
    fifo.add(configMap('ns', 'a', '1'));
    fifo.update(configMap('ns', 'a', '2'));
    expect(
      fifo
        .list()
        .map((o) => (o as { metadata: { resourceVersion: string } }).metadata.resourceVersion),
    ).toEqual(['2']);
    expect(fifo.keyOf([{ type: 'Added', object: configMap('ns', 'a') }])).toBe('ns/a');
    expect(() => fifo.keyOf([])).toThrow(/0 length Deltas/);
  });
});
