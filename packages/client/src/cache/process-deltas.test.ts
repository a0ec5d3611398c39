import type { KubeObject } from '@listwatch/api';
import { describe, expect, it } from 'vitest';
import { configMap } from '../testing/fixtures.js';
import { DeletedFinalStateUnknown } from './deleted-final-state-unknown.js';
import { NamespaceIndex, newIndexer } from './indexer.js';
import { processDeltas } from './process-deltas.js';
import type { Store } from './store.js';

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

  it('with the key its queue computed, an add and an update leave store, index and handler calls as without it', () => {
    const run = (withKey: boolean) => {
      const store = newIndexer();
      const r = recorder();
      for (const [obj, initial] of [
        [configMap('ns', 'a', '1'), true],
        [configMap('ns', 'a', '2'), false],
        [configMap('other', 'b', '3'), false],
      ] as const) {
        const key = withKey ? `${obj.metadata.namespace}/${obj.metadata.name}` : undefined;
        processDeltas(r.handler, store, [{ type: 'Replaced', object: obj }], initial, key);
      }
      return {
        calls: r.calls,
        items: store.list(),
        inNs: store.byIndex(NamespaceIndex, 'ns'),
        namespaces: store.listIndexFuncValues(NamespaceIndex).sort(),
      };
    };
    expect(run(true)).toEqual(run(false));
    expect(run(true).inNs.map((o) => o.metadata.resourceVersion)).toEqual(['2']);
  });

  it('a Store of its own gets the key-given add and update through add and update', () => {
    const inner = newIndexer();
    const seen: string[] = [];
    const store: Store = {
      ...inner,
      getByKey: (key) => inner.getByKey(key),
      get: (obj) => inner.get(obj),
      add: (obj) => (seen.push('add'), inner.add(obj)),
      update: (obj) => (seen.push('update'), inner.update(obj)),
    };
    processDeltas(
      {},
      store,
      [{ type: 'Replaced', object: configMap('ns', 'a', '1') }],
      true,
      'ns/a',
    );
    processDeltas(
      {},
      store,
      [{ type: 'Replaced', object: configMap('ns', 'a', '2') }],
      false,
      'ns/a',
    );
    expect(seen).toEqual(['add', 'update']);
    expect(inner.getByKey('ns/a')?.metadata.resourceVersion).toBe('2');
  });
});
