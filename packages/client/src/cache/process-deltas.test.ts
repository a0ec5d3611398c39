import type { KubeObject } from '@listwatch/api';
import { describe, expect, it } from 'vitest';
import { configMap } from '../testing/fixtures.js';
import { DeletedFinalStateUnknown } from './deleted-final-state-unknown.js';
import { newIndexer } from './indexer.js';
import { processDeltas } from './process-deltas.js';

function recorder() {
  const calls: unknown[][] = [];
  return {
    calls,
    handler: {
      onAdd: (obj: KubeObject, initial: boolean) =>
        calls.push(['add', obj.metadata.resourceVersion, initial]),
      onUpdate: (old: KubeObject, obj: KubeObject) =>
        calls.push(['update', old.metadata.resourceVersion, obj.metadata.resourceVersion]),
      onDelete: (obj: KubeObject | DeletedFinalStateUnknown) =>
        calls.push([
          'delete',
          obj instanceof DeletedFinalStateUnknown ? obj.key : obj.metadata.resourceVersion,
        ]),
    },
  };
}

// client-go tools/cache/controller.go processDeltas.
describe('processDeltas', () => {
  it('Added, Updated, Replaced and Sync of an unknown key add it, with the initial-list flag', () => {
    for (const type of ['Added', 'Updated', 'Replaced', 'Sync'] as const) {
      const store = newIndexer();
      const r = recorder();
      processDeltas(r.handler, store, [{ type, object: configMap('ns', 'a', '1') }], true);
      expect(r.calls).toEqual([['add', '1', true]]);
      expect(store.listKeys()).toEqual(['ns/a']);
    }
  });

  it('any non-delete delta of a known key is an update carrying the old object', () => {
    for (const type of ['Added', 'Updated', 'Replaced', 'Sync'] as const) {
      const store = newIndexer();
      store.add(configMap('ns', 'a', '1'));
      const r = recorder();
      processDeltas(r.handler, store, [{ type, object: configMap('ns', 'a', '2') }], false);
      expect(r.calls).toEqual([['update', '1', '2']]);
      expect(store.getByKey('ns/a')?.metadata.resourceVersion).toBe('2');
    }
  });

  it('deltas apply oldest first, and a tombstone deletes by its key', () => {
    const store = newIndexer();
    const r = recorder();
    processDeltas(
      r.handler,
      store,
      [
        { type: 'Added', object: configMap('ns', 'a', '1') },
        { type: 'Updated', object: configMap('ns', 'a', '2') },
        {
          type: 'Deleted',
          object: new DeletedFinalStateUnknown('ns/a', configMap('ns', 'a', '2')),
        },
      ],
      false,
    );
    expect(r.calls).toEqual([
      ['add', '1', false],
      ['update', '1', '2'],
      ['delete', 'ns/a'],
    ]);
    expect(store.list()).toEqual([]);
  });

  it('the store is updated before the handler runs, so handlers read the new state', () => {
    const store = newIndexer();
    const seen: (string | undefined)[] = [];
    processDeltas(
      { onAdd: () => seen.push(store.getByKey('ns/a')?.metadata.resourceVersion) },
      store,
      [{ type: 'Added', object: configMap('ns', 'a', '5') }],
      false,
    );
    expect(seen).toEqual(['5']);
  });

  it('a handler without some methods is fine', () => {
    const store = newIndexer();
    processDeltas({}, store, [{ type: 'Added', object: configMap('ns', 'a') }], false);
    processDeltas({}, store, [{ type: 'Deleted', object: configMap('ns', 'a') }], false);
    expect(store.list()).toEqual([]);
  });
});
