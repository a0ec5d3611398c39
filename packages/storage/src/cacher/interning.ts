/**
 * One copy of what recurs across cached objects (issue 35: the heap per stored object against
 * its JSON). Storage decodes every object afresh, and V8 keeps one copy of a string only for
 * property names and values of 10 characters or fewer (its JSON parser internalizes those): the
 * image, the label values, the service account's mount path, the managers' names are a copy per
 * object. And managedFields' FieldsV1 trees, a small object per field an object sets, are the
 * same for every pod of a Deployment but for a few keys: each subtree is kept once, frozen.
 *
 * Safe only because cached objects are never mutated (see shared-structure.ts); the shared
 * FieldsV1 trees are frozen, so a write into one fails instead of changing every object.
 */

/** Shorter strings are internalized by V8's JSON parser already. */
const MIN_STRING = 11;
/** Longer ones rarely recur (a certificate, a last-applied configuration). */
const MAX_STRING = 256;
/** Strings per generation. */
const STRING_ENTRIES = 16_384;
/** FieldsV1 subtrees with a longer key (≈ their JSON) are an object's own: never kept, never frozen. */
const MAX_FIELDS_KEY = 1_024;
/** Characters of FieldsV1 keys per generation. */
const FIELDS_CHARS = 256 * 1024;

/**
 * A bounded table in two generations: when the current one is full it becomes the old one, and
 * what is read from the old one moves back; what nothing read for a whole generation is dropped
 * (its objects keep their copy). What recurs stays, what was one object's own goes.
 */
class Generations<V> {
  private current = new Map<string, V>();
  private previous = new Map<string, V>();
  private weight = 0;

  constructor(private readonly capacity: number) {}

  get(key: string): V | undefined {
    const value = this.current.get(key);
    if (value !== undefined) return value;
    const old = this.previous.get(key);
    if (old !== undefined) this.set(key, old, 1);
    return old;
  }

  set(key: string, value: V, weight: number): void {
    if (this.weight + weight > this.capacity) {
      this.previous = this.current;
      this.current = new Map();
      this.weight = 0;
    }
    this.current.set(key, value);
    this.weight += weight;
  }
}

const EMPTY: Readonly<Record<string, never>> = Object.freeze({});

/**
 * Whether `kept` must be written over `value`: a different object, or a string (equal strings
 * compare equal whatever their copy, so a kept string is always written).
 */
const replaces = (kept: unknown, value: unknown): boolean =>
  kept !== value || (typeof value === 'string' && value.length >= MIN_STRING);

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** JSON.parse makes `__proto__` an own property; an assignment would set the prototype. */
function put(record: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(record, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  else record[key] = value;
}

export class Interner {
  private readonly strings = new Generations<string>(STRING_ENTRIES);
  private readonly fields = new Generations<Record<string, unknown>>(FIELDS_CHARS);

  /** The kept copy of `s`, or `s` kept from now on. */
  string(s: string): string {
    if (s.length < MIN_STRING || s.length > MAX_STRING) return s;
    const kept = this.strings.get(s);
    if (kept !== undefined) return kept;
    this.strings.set(s, s, 1);
    return s;
  }

  /**
   * Replaces, in `object`, every string by its kept copy and each managedFields entry's FieldsV1
   * by shared frozen subtrees. Parts `===` to the same place in `previous` (a version this
   * interned already: shareUnchanged keeps them) are skipped. Returns `object`.
   */
  intern<T>(object: T, previous?: unknown): T {
    return this.walk(object, previous, 0) as T;
  }

  /** depth 0: the object, 1: its metadata, 2: managedFields. */
  private walk(node: unknown, previous: unknown, depth: number): unknown {
    if (typeof node === 'string') return this.string(node);
    if (typeof node !== 'object' || node === null || node === previous) return node;
    if (Object.isFrozen(node)) return node;
    if (Array.isArray(node)) {
      const before = Array.isArray(previous) ? previous : undefined;
      for (let i = 0; i < node.length; i++) {
        const value: unknown = node[i];
        const kept =
          depth === 2 && isPlainObject(value)
            ? this.managedFieldsEntry(value, before?.[i])
            : this.walk(value, before?.[i], -1);
        if (replaces(kept, value)) node[i] = kept;
      }
      return node;
    }
    const record = node as Record<string, unknown>;
    const before = isPlainObject(previous) ? previous : undefined;
    for (const key of Object.keys(record)) {
      const value = record[key];
      const next =
        depth === 0 && key === 'metadata' ? 1 : depth === 1 && key === 'managedFields' ? 2 : -1;
      const kept = this.walk(value, before?.[key], next);
      if (replaces(kept, value)) put(record, key, kept);
    }
    return node;
  }

  private managedFieldsEntry(entry: Record<string, unknown>, previous: unknown): unknown {
    if (entry === previous || Object.isFrozen(entry)) return entry;
    const before = isPlainObject(previous) ? previous : undefined;
    for (const key of Object.keys(entry)) {
      const value = entry[key];
      const kept =
        key === 'fieldsV1' && isPlainObject(value)
          ? value === before?.[key]
            ? value
            : this.fieldsTree(value).value
          : this.walk(value, before?.[key], -1);
      if (replaces(kept, value)) put(entry, key, kept);
    }
    return entry;
  }

  /**
   * The shared copy of a FieldsV1 (sub)tree, built bottom up. `key` names it exactly: each
   * member's name with its length before it, then its value's key (an object's in braces, any
   * other value as JSON), so no two different trees have the same key.
   */
  private fieldsTree(node: Record<string, unknown>): { value: unknown; key: string } {
    const names = Object.keys(node);
    if (names.length === 0) return { value: EMPTY, key: '{}' };
    if (Object.isFrozen(node)) return { value: node, key: `=${JSON.stringify(node)}` };
    let key = '{';
    for (const name of names) {
      const child = node[name];
      let childKey: string;
      if (isPlainObject(child)) {
        const kept = this.fieldsTree(child);
        if (kept.value !== child) put(node, name, kept.value);
        childKey = kept.key;
      } else childKey = `=${JSON.stringify(child) ?? 'null'};`;
      key += `${name.length}:${name}${childKey}`;
    }
    key += '}';
    if (key.length > MAX_FIELDS_KEY) return { value: node, key };
    const kept = this.fields.get(key);
    if (kept !== undefined) return { value: kept, key };
    this.fields.set(key, Object.freeze(node), key.length);
    return { value: node, key };
  }
}
