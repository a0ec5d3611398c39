import type { KubeObject, ResourceDefinition } from '@listwatch/api';
import BTreeModule from 'sorted-btree';
import { compareKeys, prefixEnd } from '../keys.js';

/** One object in the cache with what selectors need computed once (storeElement). */
export interface StoreElement {
  key: string;
  object: KubeObject;
  labels: Readonly<Record<string, string>>;
  fields: Readonly<Record<string, string>>;
}

const NO_LABELS: Readonly<Record<string, string>> = Object.freeze({});

/** The fields a field selector can match: metadata.name/namespace plus the resource's own. */
export function objectFields(
  definition: ResourceDefinition,
  object: KubeObject,
): Record<string, string> {
  const fields: Record<string, string> = {
    'metadata.name': object.metadata.name ?? '',
  };
  if (definition.namespaced) fields['metadata.namespace'] = object.metadata.namespace ?? '';
  for (const [name, get] of Object.entries(definition.selectableFields)) fields[name] = get(object);
  return fields;
}

export function objectLabels(object: KubeObject): Readonly<Record<string, string>> {
  return object.metadata.labels ?? NO_LABELS;
}

// sorted-btree is CommonJS with `exports.default`: Node's import gives the exports object, a
// bundler's interop (vitest) the class itself.
const BTree: typeof BTreeModule.default =
  (BTreeModule as { default?: typeof BTreeModule.default }).default ??
  (BTreeModule as unknown as typeof BTreeModule.default);
type Tree<V> = InstanceType<typeof BTree<string, V>>;

/** Keys per B+ tree node: a write copies one node per level, so a snapshot costs ~height × this. */
const NODE_SIZE = 32;

function newTree<V>(): Tree<V> {
  return new BTree<string, V>(undefined, compareKeys, NODE_SIZE);
}

/** The elements under `prefix`, from `startKey` on (inclusive), in key order. */
function* rangeOf(
  tree: Tree<StoreElement>,
  prefix: string,
  startKey?: string,
): Generator<StoreElement> {
  const from = startKey !== undefined && compareKeys(startKey, prefix) > 0 ? startKey : prefix;
  for (const [key, element] of tree.entries(from)) {
    if (!key.startsWith(prefix)) return;
    yield element;
  }
}

/** How many keys lie under `prefix` from `startKey` on, counted node by node. */
function countOf(tree: Tree<StoreElement>, prefix: string, startKey?: string): number {
  const from = startKey !== undefined && compareKeys(startKey, prefix) > 0 ? startKey : prefix;
  return tree.forRange(from, prefixEnd(prefix), false);
}

/**
 * The store as it was at one revision: a copy-on-write clone of the object tree, sharing every
 * node the store has not rewritten since (store_btree.go btreeStore.Clone).
 */
/** Each snapshot's tree, kept out of the class's declarations (sorted-btree's types depend on
 * the consumer's module resolution, so the published types never name them). */
const snapshotTrees = new WeakMap<StoreSnapshot, Tree<StoreElement>>();

export class StoreSnapshot {
  constructor(
    /** The revision this state is at. */
    readonly revision: number,
  ) {}

  private get tree(): Tree<StoreElement> {
    return snapshotTrees.get(this)!;
  }

  get size(): number {
    return this.tree.size;
  }

  get(key: string): StoreElement | undefined {
    return this.tree.get(key);
  }

  range(prefix: string, startKey?: string): Generator<StoreElement> {
    return rangeOf(this.tree, prefix, startKey);
  }

  count(prefix: string, startKey?: string): number {
    return countOf(this.tree, prefix, startKey);
  }
}

/**
 * The current state (store_btree.go threadedStoreIndexer): elements in a B+ tree by key, in
 * etcd's byte order, so LIST pages and `continue` keys follow storage's; one B+ tree of elements
 * per value of each resource-defined index (pods by spec.nodeName). O(log n) per change, and
 * `snapshot()` is O(1): a clone that shares structure until either side is written.
 */
export class CacheStore {
  private elements: Tree<StoreElement> = newTree();
  private readonly indexes = new Map<string, Map<string, Tree<StoreElement>>>();

  constructor(private readonly definition: ResourceDefinition) {
    for (const name of Object.keys(definition.indexes)) this.indexes.set(name, new Map());
  }

  get size(): number {
    return this.elements.size;
  }

  /** Levels of the object tree: how many nodes one write copies when a snapshot shares them. */
  get height(): number {
    return this.elements.height;
  }

  element(object: KubeObject, key: string): StoreElement {
    return {
      key,
      object,
      labels: objectLabels(object),
      fields: objectFields(this.definition, object),
    };
  }

  get(key: string): StoreElement | undefined {
    return this.elements.get(key);
  }

  /** Replaces everything (after a relist). */
  replace(elements: StoreElement[]): void {
    this.elements = newTree();
    for (const index of this.indexes.values()) index.clear();
    for (const element of elements) this.upsert(element);
  }

  upsert(element: StoreElement): void {
    const previous = this.elements.get(element.key);
    this.elements.set(element.key, element);
    if (previous) this.reindex(previous, element);
    else this.addToIndexes(element);
  }

  delete(key: string): void {
    const previous = this.elements.get(key);
    if (!previous) return;
    this.removeFromIndexes(previous);
    this.elements.delete(key);
  }

  /** The state now, frozen: later writes copy the nodes they touch instead of changing these. */
  snapshot(revision: number): StoreSnapshot {
    const snapshot = new StoreSnapshot(revision);
    snapshotTrees.set(snapshot, this.elements.clone());
    return snapshot;
  }

  /** Elements whose key starts with `prefix`, from `startKey` on (inclusive), in key order. */
  range(prefix: string, startKey?: string): Generator<StoreElement> {
    return rangeOf(this.elements, prefix, startKey);
  }

  /** How many elements `range(prefix, startKey)` yields. */
  count(prefix: string, startKey?: string): number {
    return countOf(this.elements, prefix, startKey);
  }

  /** Elements whose index `name` has `value`, in key order. */
  byIndex(name: string, value: string): StoreElement[] {
    const tree = this.indexes.get(name)?.get(value);
    return tree ? tree.valuesArray() : [];
  }

  hasIndex(name: string): boolean {
    return this.indexes.has(name);
  }

  /** Moves `next` in each index; a value both have is rewritten in place (store_btree.go updateElem). */
  private reindex(previous: StoreElement, next: StoreElement): void {
    for (const [name, index] of this.indexes) {
      const indexFunc = this.definition.indexes[name]!;
      const before = indexFunc(previous.object);
      const after = indexFunc(next.object);
      for (const value of before) {
        if (after.includes(value)) continue;
        const tree = index.get(value);
        tree?.delete(previous.key);
        if (tree?.size === 0) index.delete(value);
      }
      for (const value of after) {
        let tree = index.get(value);
        if (!tree) index.set(value, (tree = newTree()));
        tree.set(next.key, next);
      }
    }
  }

  private addToIndexes(element: StoreElement): void {
    for (const [name, index] of this.indexes) {
      for (const value of this.definition.indexes[name]!(element.object)) {
        let tree = index.get(value);
        if (!tree) index.set(value, (tree = newTree()));
        tree.set(element.key, element);
      }
    }
  }

  private removeFromIndexes(element: StoreElement): void {
    for (const [name, index] of this.indexes) {
      for (const value of this.definition.indexes[name]!(element.object)) {
        const tree = index.get(value);
        tree?.delete(element.key);
        if (tree?.size === 0) index.delete(value);
      }
    }
  }
}
