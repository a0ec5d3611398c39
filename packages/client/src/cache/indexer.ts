import { ApiError, isApiError, type KubeObject } from '@listwatch/api';
import type { KubernetesObject } from '../runtime/kubernetes-object.js';
import { DeletedFinalStateUnknown } from './deleted-final-state-unknown.js';
import { metaNamespaceKeyFunc, type KeyFunc } from './key-func.js';
import type { Store } from './store.js';

/** Computes the values an object is indexed under; an object may have none, one or several. */
export type IndexFunc<T extends KubernetesObject = KubeObject> = (obj: T) => string[];

/** Index functions by index name. */
export type Indexers<T extends KubernetesObject = KubeObject> = Record<string, IndexFunc<T>>;

/** The name of the index by namespace (client-go cache.NamespaceIndex). */
export const NamespaceIndex = 'namespace';

/** Indexes an object by its namespace, '' for cluster-scoped (client-go MetaNamespaceIndexFunc). */
export function metaNamespaceIndexFunc(obj: KubernetesObject): string[] {
  return [obj.metadata?.namespace ?? ''];
}

/**
 * A Store with named secondary indexes (client-go tools/cache/index.go, thread_safe_store.go).
 * Listers use the namespace index to answer per-namespace lists without a full scan;
 * controllers add their own (e.g. pods by node).
 */
export interface Indexer<T extends KubernetesObject = KubeObject> extends Store<T> {
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
export function newIndexer<T extends KubernetesObject = KubeObject>(
  indexers: Indexers<T> = { [NamespaceIndex]: metaNamespaceIndexFunc },
  keyFunc: KeyFunc<T> = metaNamespaceKeyFunc,
): Indexer<T> {
  return new IndexedStore(keyFunc, indexers);
}

/** One index: its function and, for each value, the keys of the objects indexed under it. */
interface NamedIndex<T extends KubernetesObject> {
  readonly name: string;
  readonly fn: IndexFunc<T>;
  readonly byValue: Map<string, Set<string>>;
}

/** An object's values under every index, in the order of the store's indexes. */
type IndexValues = (readonly string[])[];

const NO_VALUES: readonly string[] = [];

class IndexedStore<T extends KubernetesObject> implements Indexer<T> {
  private items = new Map<string, T>();
  /** An array, not a map by name: every add and update walks all of them. */
  private indexes: NamedIndex<T>[];

  constructor(
    private readonly keyFunc: KeyFunc<T>,
    indexers: Indexers<T>,
  ) {
    this.indexes = emptyIndexes(Object.entries(indexers));
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
    const oldValues = this.valuesOf(this.indexes, old, key);
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
    const indexes = emptyIndexes(this.indexes.map(({ name, fn }) => [name, fn]));
    for (const [key, obj] of next) addToIndexes(indexes, key, this.valuesOf(indexes, obj, key));
    this.items = next;
    this.indexes = indexes;
  }

  index(indexName: string, obj: T): T[] {
    const index = this.named(indexName);
    const values = this.call(index, obj, this.keyFunc(obj));
    const keys = new Set<string>();
    for (const value of values) for (const key of index.byValue.get(value) ?? []) keys.add(key);
    return this.objectsOf(keys);
  }

  indexKeys(indexName: string, indexedValue: string): string[] {
    return [...(this.named(indexName).byValue.get(indexedValue) ?? [])];
  }

  listIndexFuncValues(indexName: string): string[] {
    return [...(this.indexes.find((index) => index.name === indexName)?.byValue.keys() ?? [])];
  }

  byIndex(indexName: string, indexedValue: string): T[] {
    return this.objectsOf(this.named(indexName).byValue.get(indexedValue) ?? []);
  }

  getIndexers(): Indexers<T> {
    return Object.fromEntries(this.indexes.map(({ name, fn }) => [name, fn]));
  }

  addIndexers(newIndexers: Indexers<T>): void {
    const conflicts = Object.keys(newIndexers).filter((name) =>
      this.indexes.some((index) => index.name === name),
    );
    if (conflicts.length > 0) {
      throw new ApiError({
        code: 409,
        reason: 'Conflict',
        message: `indexer conflict: ${conflicts.join(', ')}`,
      });
    }
    // Index the existing objects first: a throwing index function must leave the store as is.
    const added = emptyIndexes(Object.entries(newIndexers));
    for (const [key, obj] of this.items) addToIndexes(added, key, this.valuesOf(added, obj, key));
    this.indexes = [...this.indexes, ...added];
  }

  private put(obj: T): void {
    this.putKeyed(this.keyFunc(obj), obj);
  }

  /** add or update of an object whose key (this store's keyFunc of it) is known. */
  putKeyed(key: string, obj: T): void {
    const newValues = this.valuesOf(this.indexes, obj, key);
    const old = this.items.get(key);
    const oldValues = old === undefined ? undefined : this.valuesOf(this.indexes, old, key);
    this.items.set(key, obj);
    this.reindex(key, oldValues, newValues);
  }

  private named(indexName: string): NamedIndex<T> {
    const index = this.indexes.find((i) => i.name === indexName);
    if (!index) throw ApiError.badRequest(`Index with name ${indexName} does not exist`);
    return index;
  }

  private valuesOf(indexes: readonly NamedIndex<T>[], obj: T, key: string): IndexValues {
    const values: IndexValues = new Array<readonly string[]>(indexes.length);
    for (let i = 0; i < indexes.length; i++) values[i] = this.call(indexes[i]!, obj, key);
    return values;
  }

  private call(index: NamedIndex<T>, obj: T, key: string): readonly string[] {
    const { name, fn } = index;
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
    if (!isStringArray(values)) {
      throw new ApiError({
        code: 500,
        reason: 'InternalError',
        message: `index function "${name}" returned ${JSON.stringify(values)} for key "${key}", want an array of strings`,
      });
    }
    return values;
  }

  /** Moves `key` from its old index values to its new ones (client-go updateIndices). */
  private reindex(key: string, oldValues?: IndexValues, newValues?: IndexValues): void {
    for (let i = 0; i < this.indexes.length; i++) {
      const index = this.indexes[i]!.byValue;
      const before = oldValues?.[i] ?? NO_VALUES;
      const after = newValues?.[i] ?? NO_VALUES;
      // The common case: a single value that did not change.
      if (before.length === 1 && after.length === 1 && before[0] === after[0]) continue;
      // Indexed loops: this runs once per object of a first list, much of it before V8 has
      // optimized it, and for-of makes an iterator per array there.
      for (let v = 0; v < before.length; v++) {
        const value = before[v]!;
        const keys = index.get(value);
        if (!keys) continue;
        keys.delete(key);
        // Drop empty sets so churned values (e.g. deleted namespaces) don't leak.
        if (keys.size === 0) index.delete(value);
      }
      for (let v = 0; v < after.length; v++) {
        const value = after[v]!;
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

/**
 * Adds or updates `obj` under `key` — what the store's own key function makes of it — where the
 * store is one of newIndexer's: a queue that keyed the object already saves computing and
 * hashing the key a second time. Returns false for any other Store, which the caller then adds
 * to or updates itself.
 */
export function putWithKey<T extends KubernetesObject>(
  store: Store<T>,
  key: string,
  obj: T,
): boolean {
  if (!(store instanceof IndexedStore)) return false;
  (store as IndexedStore<T>).putKeyed(key, obj);
  return true;
}

function emptyIndexes<T extends KubernetesObject>(
  indexers: Iterable<readonly [string, IndexFunc<T>]>,
): NamedIndex<T>[] {
  return Array.from(indexers, ([name, fn]) => ({ name, fn, byValue: new Map() }));
}

function addToIndexes<T extends KubernetesObject>(
  indexes: readonly NamedIndex<T>[],
  key: string,
  values: IndexValues,
): void {
  for (let i = 0; i < indexes.length; i++) {
    const index = indexes[i]!.byValue;
    for (const value of values[i]!) {
      let keys = index.get(value);
      if (!keys) index.set(value, (keys = new Set()));
      keys.add(key);
    }
  }
}

function isStringArray(values: unknown): values is string[] {
  if (!Array.isArray(values)) return false;
  for (let i = 0; i < values.length; i++) if (typeof values[i] !== 'string') return false;
  return true;
}
