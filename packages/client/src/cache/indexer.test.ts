import { ApiError, type KubeObject } from '@listwatch/api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { configMap, namespaceObject } from '../testing/fixtures.js';
import { DeletedFinalStateUnknown } from './deleted-final-state-unknown.js';
import { metaNamespaceIndexFunc, NamespaceIndex, newIndexer, type IndexFunc } from './indexer.js';
import { newStore } from './store.js';

function thrown(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    return e as ApiError;
  }
  throw new Error('expected a throw');
}

const byApp: IndexFunc = (obj) => {
  const app = obj.metadata.labels?.['app'];
  return app === undefined ? [] : [app];
};

// client-go tools/cache/store.go, thread_safe_store.go, index.go.
describe('Store', () => {
  it('stores objects under namespace/name and name for cluster-scoped ones', () => {
    const store = newStore();
    store.add(configMap('ns', 'a'));
    store.add(namespaceObject('ns'));
    expect(store.listKeys().sort()).toEqual(['ns', 'ns/a']);
    expect(store.getByKey('ns/a')?.metadata.name).toBe('a');
    expect(store.get(namespaceObject('ns'))?.kind).toBe('Namespace');
  });

  it('update replaces the stored object; add of an existing key does too', () => {
    const store = newStore();
    store.add(configMap('ns', 'a', '1'));
    store.update(configMap('ns', 'a', '2'));
    expect(store.getByKey('ns/a')?.metadata.resourceVersion).toBe('2');
    store.add(configMap('ns', 'a', '3'));
    expect(store.list()).toHaveLength(1);
    expect(store.getByKey('ns/a')?.metadata.resourceVersion).toBe('3');
  });

  it('delete removes the object, accepts a tombstone, and ignores unknown keys', () => {
    const store = newStore();
    store.add(configMap('ns', 'a'));
    store.add(configMap('ns', 'b'));
    store.delete(configMap('ns', 'a'));
    store.delete(new DeletedFinalStateUnknown<KubeObject>('ns/b', undefined));
    store.delete(configMap('ns', 'never'));
    expect(store.list()).toEqual([]);
  });

  it('replace swaps the whole content for the listed objects', () => {
    const store = newStore();
    store.add(configMap('ns', 'old'));
    store.replace([configMap('ns', 'x'), configMap('ns', 'y')], '10');
    expect(store.listKeys().sort()).toEqual(['ns/x', 'ns/y']);
  });

  it('replace with an object without a key fails and leaves the store as it was', () => {
    const store = newStore();
    store.add(configMap('ns', 'kept'));
    const bad = { kind: 'ConfigMap' } as unknown as KubeObject;
    expect(thrown(() => store.replace([configMap('ns', 'x'), bad])).code).toBe(400);
    expect(store.listKeys()).toEqual(['ns/kept']);
  });
});

describe('Indexer', () => {
  it('has the namespace index built in', () => {
    const indexer = newIndexer();
    indexer.add(configMap('a', 'x'));
    indexer.add(configMap('a', 'y'));
    indexer.add(configMap('b', 'z'));
    indexer.add(namespaceObject('a'));
    expect(Object.keys(indexer.getIndexers())).toEqual([NamespaceIndex]);
    expect(indexer.indexKeys(NamespaceIndex, 'a').sort()).toEqual(['a/x', 'a/y']);
    expect(indexer.byIndex(NamespaceIndex, 'b').map((o) => o.metadata.name)).toEqual(['z']);
    // Cluster-scoped objects index under '' (client-go MetaNamespaceIndexFunc).
    expect(indexer.indexKeys(NamespaceIndex, '')).toEqual(['a']);
    expect(indexer.listIndexFuncValues(NamespaceIndex).sort()).toEqual(['', 'a', 'b']);
  });

  it('an object can sit under several values of one index, and under none', () => {
    const indexer = newIndexer({
      byLabelValue: (obj) => Object.values(obj.metadata.labels ?? {}),
    });
    indexer.add(configMap('ns', 'multi', '1', { a: 'red', b: 'blue' }));
    indexer.add(configMap('ns', 'none'));
    expect(indexer.indexKeys('byLabelValue', 'red')).toEqual(['ns/multi']);
    expect(indexer.indexKeys('byLabelValue', 'blue')).toEqual(['ns/multi']);
    expect(indexer.listIndexFuncValues('byLabelValue').sort()).toEqual(['blue', 'red']);
  });

  it('an update moves the key from its old index values to its new ones', () => {
    const indexer = newIndexer({ app: byApp });
    indexer.add(configMap('ns', 'a', '1', { app: 'web' }));
    indexer.update(configMap('ns', 'a', '2', { app: 'db' }));
    expect(indexer.indexKeys('app', 'web')).toEqual([]);
    expect(indexer.indexKeys('app', 'db')).toEqual(['ns/a']);
    // Empty value sets are dropped, so listIndexFuncValues does not grow with churn.
    expect(indexer.listIndexFuncValues('app')).toEqual(['db']);
  });

  it('a delete removes the key from every index', () => {
    const indexer = newIndexer({ app: byApp, [NamespaceIndex]: metaNamespaceIndexFunc });
    indexer.add(configMap('ns', 'a', '1', { app: 'web' }));
    indexer.delete(new DeletedFinalStateUnknown<KubeObject>('ns/a', undefined));
    expect(indexer.listIndexFuncValues('app')).toEqual([]);
    expect(indexer.listIndexFuncValues(NamespaceIndex)).toEqual([]);
  });

  it('index() returns the objects sharing an index value with the given object', () => {
    const indexer = newIndexer({ app: byApp });
    indexer.add(configMap('ns', 'a', '1', { app: 'web' }));
    indexer.add(configMap('other', 'b', '1', { app: 'web' }));
    indexer.add(configMap('ns', 'c', '1', { app: 'db' }));
    const probe = configMap('x', 'probe', '1', { app: 'web' });
    expect(
      indexer
        .index('app', probe)
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual(['a', 'b']);
  });

  it('addIndexers after objects exist indexes the existing objects', () => {
    const indexer = newIndexer();
    indexer.add(configMap('ns', 'a', '1', { app: 'web' }));
    indexer.add(configMap('ns', 'b', '1', { app: 'db' }));
    indexer.addIndexers({ app: byApp });
    expect(indexer.indexKeys('app', 'web')).toEqual(['ns/a']);
    indexer.add(configMap('ns', 'c', '1', { app: 'web' }));
    expect(indexer.indexKeys('app', 'web').sort()).toEqual(['ns/a', 'ns/c']);
  });

  it('addIndexers with a name already in use is a 409 Conflict', () => {
    const indexer = newIndexer();
    const err = thrown(() => indexer.addIndexers({ [NamespaceIndex]: metaNamespaceIndexFunc }));
    expect(err.code).toBe(409);
    expect(err.reason).toBe('Conflict');
  });

  it('querying an index that does not exist is a 400 BadRequest', () => {
    const indexer = newIndexer();
    expect(thrown(() => indexer.byIndex('nope', 'x')).code).toBe(400);
    expect(thrown(() => indexer.indexKeys('nope', 'x')).code).toBe(400);
    expect(indexer.listIndexFuncValues('nope')).toEqual([]);
  });

  it('an index function that throws fails the add and leaves the store unchanged', () => {
    const boom: IndexFunc = (obj) => {
      if (obj.metadata.labels?.['bad']) throw new Error('cannot index');
      return [obj.metadata.name ?? ''];
    };
    const indexer = newIndexer({ byName: boom });
    indexer.add(configMap('ns', 'a', '1'));
    const err = thrown(() => indexer.add(configMap('ns', 'a', '2', { bad: 'yes' })));
    expect(err.code).toBe(500);
    expect(err.message).toMatch(
      /unable to calculate an index entry for key "ns\/a" on index "byName"/,
    );
    expect(indexer.getByKey('ns/a')?.metadata.resourceVersion).toBe('1');
    expect(indexer.indexKeys('byName', 'a')).toEqual(['ns/a']);
    expect(() => indexer.add(configMap('ns', 'new', '1', { bad: 'yes' }))).toThrow();
    expect(indexer.listKeys()).toEqual(['ns/a']);
  });

  it('an index function that throws an ApiError propagates that error unchanged', () => {
    const refusal = ApiError.forbidden({ resource: 'configmaps' }, 'a', 'no');
    const indexer = newIndexer({
      refuse: () => {
        throw refusal;
      },
    });
    expect(thrown(() => indexer.add(configMap('ns', 'a'))) === refusal).toBe(true);
  });

  it('addIndexers whose function throws on an existing object adds nothing', () => {
    const indexer = newIndexer();
    indexer.add(configMap('ns', 'a', '1', { bad: 'yes' }));
    const boom: IndexFunc = () => {
      throw new Error('no');
    };
    expect(() => indexer.addIndexers({ ok: byApp, boom })).toThrow(ApiError);
    expect(Object.keys(indexer.getIndexers())).toEqual([NamespaceIndex]);
    expect(() => indexer.byIndex('ok', 'x')).toThrow(ApiError);
    indexer.add(configMap('ns', 'b'));
    expect(indexer.listKeys().sort()).toEqual(['ns/a', 'ns/b']);
  });

  it('an index function returning something other than strings is refused', () => {
    const indexer = newIndexer({ bad: () => [42] as unknown as string[] });
    expect(thrown(() => indexer.add(configMap('ns', 'a'))).code).toBe(500);
    expect(indexer.listKeys()).toEqual([]);
  });

  it('replace rebuilds the indexes from the new content', () => {
    const indexer = newIndexer({ app: byApp });
    indexer.add(configMap('ns', 'a', '1', { app: 'web' }));
    indexer.replace([configMap('ns', 'b', '1', { app: 'db' })], '5');
    expect(indexer.listIndexFuncValues('app')).toEqual(['db']);
    expect(indexer.byIndex('app', 'web')).toEqual([]);
  });

  it('after any sequence of changes, every index equals an index built from scratch', () => {
    const name = fc.constantFrom('a', 'b', 'c', 'd');
    const ns = fc.constantFrom('x', 'y');
    const app = fc.option(fc.constantFrom('web', 'db', 'cache'), { nil: undefined });
    const obj = fc
      .tuple(ns, name, app)
      .map(([n, m, a]) => configMap(n, m, '1', a === undefined ? undefined : { app: a }));
    const op = fc.oneof(
      fc.record({ op: fc.constant('add' as const), obj }),
      fc.record({ op: fc.constant('update' as const), obj }),
      fc.record({ op: fc.constant('delete' as const), obj }),
      fc.record({ op: fc.constant('replace' as const), objs: fc.array(obj, { maxLength: 5 }) }),
      fc.record({ op: fc.constant('addIndexer' as const) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        const indexer = newIndexer();
        for (const o of ops) {
          if (o.op === 'add') indexer.add(o.obj);
          else if (o.op === 'update') indexer.update(o.obj);
          else if (o.op === 'delete') indexer.delete(o.obj);
          else if (o.op === 'replace') indexer.replace(o.objs);
          else if (!('app' in indexer.getIndexers())) indexer.addIndexers({ app: byApp });
        }
        for (const [indexName, fn] of Object.entries(indexer.getIndexers())) {
          const expected = new Map<string, string[]>();
          for (const key of indexer.listKeys()) {
            for (const value of fn(indexer.getByKey(key)!)) {
              expected.set(value, [...(expected.get(value) ?? []), key]);
            }
          }
          expect(indexer.listIndexFuncValues(indexName).sort()).toEqual(
            [...expected.keys()].sort(),
          );
          for (const [value, keys] of expected) {
            expect(indexer.indexKeys(indexName, value).sort()).toEqual(keys.sort());
          }
        }
      }),
    );
  });
});
