import { ApiError, isApiError, type KubeObject } from '@listwatch/api';
import { DeletedFinalStateUnknown } from './deleted-final-state-unknown.js';
import { metaNamespaceKeyFunc, type KeyFunc } from './key-func.js';
import type { Store } from './store.js';

/** Computes the values an object is indexed under; an object may have none, one or several. */
export type IndexFunc<T extends KubeObject = KubeObject> = (obj: T) => string[];

/** Index functions by index name. */
export type Indexers<T extends KubeObject = KubeObject> = Record<string, IndexFunc<T>>;

/** The name of the index by namespace (client-go cache.NamespaceIndex). */
export const NamespaceIndex = 'namespace';

/** Indexes an object by its namespace, '' for cluster-scoped (client-go MetaNamespaceIndexFunc). */
export function metaNamespaceIndexFunc(obj: KubeObject): string[] {
  return [obj.metadata.namespace ?? ''];
}

/**
 * A Store with named secondary indexes (client-go tools/cache/index.go, thread_safe_store.go).
 * Listers use the namespace index to answer per-namespace lists without a full scan;
 * controllers add their own (e.g. pods by node).
 */
export interface Indexer<T extends KubeObject = KubeObject> extends Store<T> {
  /** Objects sharing at least one value of `indexName` with `obj`. */
  index(indexName: string, obj: T): T[];
  /** Keys of the objects whose `indexName` values include `indexedValue`. */
  indexKeys(indexName: string, indexedValue: string): string[];
  /** Every value currently present in the index (empty for an unknown index). */
  listIndexFuncValues(indexName: string): string[];
  /** Objects whose `indexName` values include `indexedValue`. */
  byIndex(indexName: string, indexedValue: string): T[];
  getIndexers(): Indexers<T>;
  /** Adds indexes, indexing the objects already stored; a name already in use is a 409. */
  addIndexers(newIndexers: Indexers<T>): void;
}

/**
 * An Indexer with the given index functions; by default the namespace index, as every
 * informer in client-go has (client-go NewIndexer).
 */
export function newIndexer<T extends KubeObject = KubeObject>(
  indexers: Indexers<T> = { [NamespaceIndex]: metaNamespaceIndexFunc },
  keyFunc: KeyFunc<T> = metaNamespaceKeyFunc,
): Indexer<T> {
  return new IndexedStore(keyFunc, indexers);
}

/** Index values of one object, by index name. */
type IndexValues = Map<string, readonly string[]>;

class IndexedStore<T extends KubeObject> implements Indexer<T> {
  private items = new Map<string, T>();
  private readonly indexers = new Map<string, IndexFunc<T>>();
  /** index name → indexed value → keys. */
  private indices = new Map<string, Map<string, Set<string>>>();

  constructor(
    private readonly keyFunc: KeyFunc<T>,
    indexers: Indexers<T>,
  ) {
    for (const [name, fn] of Object.entries(indexers)) {
      this.indexers.set(name, fn);
      this.indices.set(name, new Map());
    }
  }

  add(obj: T): void {
    this.put(obj);
  }

  update(obj: T): void {
    this.put(obj);
  }

  delete(obj: T | DeletedFinalStateUnknown<T>): void {
    const key = obj instanceof DeletedFinalStateUnknown ? obj.key : this.keyFunc(obj);
    const old = this.items.get(key);
    if (old === undefined) return;
    const oldValues = this.valuesOf(old, key, this.indexers.keys());
    this.items.delete(key);
    this.reindex(key, oldValues, undefined);
  }

  list(): T[] {
    return [...this.items.values()];
  }

  listKeys(): string[] {
    return [...this.items.keys()];
  }

  get(obj: T): T | undefined {
    return this.items.get(this.keyFunc(obj));
  }

  getByKey(key: string): T | undefined {
    return this.items.get(key);
  }

  replace(items: readonly T[], _resourceVersion?: string): void {
    // Compute everything before touching state, so a failing key or index function leaves the
    // store as it was.
    const next = new Map<string, T>();
    for (const obj of items) next.set(this.keyFunc(obj), obj);
    const indices = new Map<string, Map<string, Set<string>>>();
    for (const name of this.indexers.keys()) indices.set(name, new Map());
    for (const [key, obj] of next) {
      addToIndices(indices, key, this.valuesOf(obj, key, this.indexers.keys()));
    }
    this.items = next;
    this.indices = indices;
  }

  index(indexName: string, obj: T): T[] {
    const fn = this.indexFunc(indexName);
    const values = this.call(fn, obj, indexName, this.keyFunc(obj));
    const index = this.indices.get(indexName);
    const keys = new Set<string>();
    for (const value of values) for (const key of index?.get(value) ?? []) keys.add(key);
    return this.objectsOf(keys);
  }

  indexKeys(indexName: string, indexedValue: string): string[] {
    this.indexFunc(indexName);
    return [...(this.indices.get(indexName)?.get(indexedValue) ?? [])];
  }

  listIndexFuncValues(indexName: string): string[] {
    return [...(this.indices.get(indexName)?.keys() ?? [])];
  }

  byIndex(indexName: string, indexedValue: string): T[] {
    this.indexFunc(indexName);
    return this.objectsOf(this.indices.get(indexName)?.get(indexedValue) ?? []);
  }

  getIndexers(): Indexers<T> {
    return Object.fromEntries(this.indexers);
  }

  addIndexers(newIndexers: Indexers<T>): void {
    const names = Object.keys(newIndexers);
    const conflicts = names.filter((name) => this.indexers.has(name));
    if (conflicts.length > 0) {
      throw new ApiError({
        code: 409,
        reason: 'Conflict',
        message: `indexer conflict: ${conflicts.join(', ')}`,
      });
    }
    // Index the existing objects first: a throwing index function must leave the store as is.
    const added = new Map<string, Map<string, Set<string>>>();
    for (const name of names) added.set(name, new Map());
    const fns = new Map(Object.entries(newIndexers));
    for (const [key, obj] of this.items) {
      const values: IndexValues = new Map();
      for (const [name, fn] of fns) values.set(name, this.call(fn, obj, name, key));
      addToIndices(added, key, values);
    }
    for (const [name, fn] of fns) {
      this.indexers.set(name, fn);
      this.indices.set(name, added.get(name) ?? new Map<string, Set<string>>());
    }
  }

  private put(obj: T): void {
    const key = this.keyFunc(obj);
    const newValues = this.valuesOf(obj, key, this.indexers.keys());
    const old = this.items.get(key);
    const oldValues = old === undefined ? undefined : this.valuesOf(old, key, this.indexers.keys());
    this.items.set(key, obj);
    this.reindex(key, oldValues, newValues);
  }

  private indexFunc(indexName: string): IndexFunc<T> {
    const fn = this.indexers.get(indexName);
    if (!fn) throw ApiError.badRequest(`Index with name ${indexName} does not exist`);
    return fn;
  }

  private valuesOf(obj: T, key: string, names: Iterable<string>): IndexValues {
    const values: IndexValues = new Map();
    for (const name of names) values.set(name, this.call(this.indexFunc(name), obj, name, key));
    return values;
  }

  private call(fn: IndexFunc<T>, obj: T, name: string, key: string): readonly string[] {
    let values: unknown;
    try {
      values = fn(obj);
    } catch (err) {
      if (isApiError(err)) throw err;
      const why = err instanceof Error ? err.message : String(err);
      throw new ApiError(
        {
          code: 500,
          reason: 'InternalError',
          message: `unable to calculate an index entry for key "${key}" on index "${name}": ${why}`,
        },
        { cause: err },
      );
    }
    if (!Array.isArray(values) || values.some((v) => typeof v !== 'string')) {
      throw new ApiError({
        code: 500,
        reason: 'InternalError',
        message: `index function "${name}" returned ${JSON.stringify(values)} for key "${key}", want an array of strings`,
      });
    }
    return values as string[];
  }

  /** Moves `key` from its old index values to its new ones (client-go updateIndices). */
  private reindex(key: string, oldValues?: IndexValues, newValues?: IndexValues): void {
    for (const [name, index] of this.indices) {
      const before = oldValues?.get(name) ?? [];
      const after = newValues?.get(name) ?? [];
      // The common case: a single value that did not change.
      if (before.length === 1 && after.length === 1 && before[0] === after[0]) continue;
      for (const value of before) {
        const keys = index.get(value);
        if (!keys) continue;
        keys.delete(key);
        // Drop empty sets so churned values (e.g. deleted namespaces) don't leak.
        if (keys.size === 0) index.delete(value);
      }
      for (const value of after) {
        let keys = index.get(value);
        if (!keys) index.set(value, (keys = new Set()));
        keys.add(key);
      }
    }
  }

  private objectsOf(keys: Iterable<string>): T[] {
    const out: T[] = [];
    for (const key of keys) {
      const obj = this.items.get(key);
      if (obj !== undefined) out.push(obj);
    }
    return out;
  }
}

function addToIndices(
  indices: Map<string, Map<string, Set<string>>>,
  key: string,
  values: IndexValues,
): void {
  for (const [name, vals] of values) {
    const index = indices.get(name);
    if (!index) continue;
    for (const value of vals) {
      let keys = index.get(value);
      if (!keys) index.set(value, (keys = new Set()));
      keys.add(key);
    }
  }
}
