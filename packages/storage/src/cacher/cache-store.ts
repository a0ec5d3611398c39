import type { KubeObject, ResourceDefinition } from '@listwatch/api';
import { compareKeys } from '../keys.js';

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

/**
 * The current state: elements sorted by key (so LIST pages and `continue` keys follow etcd's
 * order), a secondary index per resource-defined index (pods by spec.nodeName).
 */
export class CacheStore {
  private readonly elements = new Map<string, StoreElement>();
  /** Sorted keys; kept sorted on insert/delete by binary search (writes are rare next to reads). */
  private keys: string[] = [];
  private readonly indexes = new Map<string, Map<string, Set<string>>>();

  constructor(private readonly definition: ResourceDefinition) {
    for (const name of Object.keys(definition.indexes)) this.indexes.set(name, new Map());
  }

  get size(): number {
    return this.elements.size;
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
    this.elements.clear();
    for (const index of this.indexes.values()) index.clear();
    for (const element of elements) {
      this.elements.set(element.key, element);
      this.addToIndexes(element);
    }
    this.keys = [...this.elements.keys()].sort(compareKeys);
  }

  upsert(element: StoreElement): void {
    const previous = this.elements.get(element.key);
    if (previous) this.removeFromIndexes(previous);
    else this.keys.splice(this.lowerBound(element.key), 0, element.key);
    this.elements.set(element.key, element);
    this.addToIndexes(element);
  }

  delete(key: string): void {
    const previous = this.elements.get(key);
    if (!previous) return;
    this.removeFromIndexes(previous);
    this.elements.delete(key);
    const at = this.lowerBound(key);
    if (this.keys[at] === key) this.keys.splice(at, 1);
  }

  /** Elements whose key starts with `prefix`, from `startKey` on (inclusive), in key order. */
  *range(prefix: string, startKey?: string): Generator<StoreElement> {
    const from = startKey !== undefined && startKey > prefix ? startKey : prefix;
    for (let i = this.lowerBound(from); i < this.keys.length; i++) {
      const key = this.keys[i]!;
      if (!key.startsWith(prefix)) return;
      yield this.elements.get(key)!;
    }
  }

  /** Elements whose index `name` has `value`, in key order. */
  byIndex(name: string, value: string): StoreElement[] {
    const keys = this.indexes.get(name)?.get(value);
    if (!keys) return [];
    return [...keys].sort(compareKeys).map((k) => this.elements.get(k)!);
  }

  hasIndex(name: string): boolean {
    return this.indexes.has(name);
  }

  private lowerBound(key: string): number {
    let lo = 0;
    let hi = this.keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.keys[mid]! < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private addToIndexes(element: StoreElement): void {
    for (const [name, index] of this.indexes) {
      for (const value of this.definition.indexes[name]!(element.object)) {
        let keys = index.get(value);
        if (!keys) index.set(value, (keys = new Set()));
        keys.add(element.key);
      }
    }
  }

  private removeFromIndexes(element: StoreElement): void {
    for (const [name, index] of this.indexes) {
      for (const value of this.definition.indexes[name]!(element.object)) {
        const keys = index.get(value);
        keys?.delete(element.key);
        if (keys?.size === 0) index.delete(value);
      }
    }
  }
}
