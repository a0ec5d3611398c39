import type { JsonValue } from '../patch/json-value.js';

// Field paths and sets of them, as sigs.k8s.io/structured-merge-diff's fieldpath package has
// them (element.go, path.go, set.go): what managedFields records per manager.

/** One key field of an associative list item: `{name: "c"}` in `k:{"name":"c"}`. */
export interface KeyField {
  readonly name: string;
  readonly value: JsonValue;
}

/**
 * One step of a path (fieldpath.PathElement): a struct or map field, an associative list item by
 * its keys, a set item by its value, or a list item by index.
 */
export type PathElement =
  | { readonly field: string }
  | { readonly key: readonly KeyField[] }
  | { readonly value: JsonValue }
  | { readonly index: number };

export type Path = readonly PathElement[];

/** Go's strings.Compare: byte order of the UTF-8 encodings. */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // UTF-16 order is UTF-8 order unless both are at or above the surrogates.
    if (x >= 0xd800 && y >= 0xd800) return Buffer.compare(Buffer.from(a), Buffer.from(b));
    return x < y ? -1 : 1;
  }
  return a.length < b.length ? -1 : 1;
}

const isInt = (v: JsonValue): v is number => typeof v === 'number' && Number.isInteger(v);
const isFloat = (v: JsonValue): v is number => typeof v === 'number' && !Number.isInteger(v);
const sign = (n: number) => (n < 0 ? -1 : n > 0 ? 1 : 0);

/** value.Compare: floats, ints, strings, bools, lists, maps, null, in that order. */
export function compareValues(lhs: JsonValue, rhs: JsonValue): number {
  if (isFloat(lhs)) return typeof rhs === 'number' ? sign(lhs - rhs) : -1;
  if (isFloat(rhs)) return isInt(lhs) ? sign(lhs - rhs) : 1;
  if (isInt(lhs)) return isInt(rhs) ? sign(lhs - rhs) : -1;
  if (isInt(rhs)) return 1;
  if (typeof lhs === 'string') return typeof rhs === 'string' ? compareStrings(lhs, rhs) : -1;
  if (typeof rhs === 'string') return 1;
  if (typeof lhs === 'boolean') return typeof rhs === 'boolean' ? Number(lhs) - Number(rhs) : -1;
  if (typeof rhs === 'boolean') return 1;
  if (Array.isArray(lhs)) {
    if (!Array.isArray(rhs)) return -1;
    for (let i = 0; ; i++) {
      if (i >= lhs.length && i >= rhs.length) return 0;
      if (i >= lhs.length) return -1;
      if (i >= rhs.length) return 1;
      const c = compareValues(lhs[i] as JsonValue, rhs[i] as JsonValue);
      if (c !== 0) return c;
    }
  }
  if (Array.isArray(rhs)) return 1;
  if (lhs !== null) {
    if (rhs === null) return -1;
    // value.MapCompare: lexical over the sorted keys.
    const lk = Object.keys(lhs).sort(compareStrings);
    const rk = Object.keys(rhs).sort(compareStrings);
    for (let i = 0; ; i++) {
      if (i >= lk.length && i >= rk.length) return 0;
      if (i >= lk.length) return -1;
      if (i >= rk.length) return 1;
      const c = compareStrings(lk[i] as string, rk[i] as string);
      if (c !== 0) return c < 0 ? -1 : 1;
      const v = compareValues(
        (lhs as Record<string, JsonValue>)[lk[i] as string] as JsonValue,
        (rhs as Record<string, JsonValue>)[rk[i] as string] as JsonValue,
      );
      if (v !== 0) return v;
    }
  }
  return rhs === null ? 0 : 1;
}

function compareKeys(a: readonly KeyField[], b: readonly KeyField[]): number {
  for (let i = 0; ; i++) {
    if (i >= a.length && i >= b.length) return 0;
    if (i >= a.length) return -1;
    if (i >= b.length) return 1;
    const x = a[i] as KeyField;
    const y = b[i] as KeyField;
    const c = compareStrings(x.name, y.name) || compareValues(x.value, y.value);
    if (c !== 0) return c;
  }
}

/** PathElement.Compare: fields, then keys, then values, then indexes. */
export function comparePathElements(a: PathElement, b: PathElement): number {
  if ('field' in a) return 'field' in b ? compareStrings(a.field, b.field) : -1;
  if ('field' in b) return 1;
  if ('key' in a) return 'key' in b ? compareKeys(a.key, b.key) : -1;
  if ('key' in b) return 1;
  if ('value' in a) return 'value' in b ? compareValues(a.value, b.value) : -1;
  if ('value' in b) return 1;
  return sign(a.index - (b as { index: number }).index);
}

/** value.ToString, as conflict messages print keys and values. */
function valueString(v: JsonValue): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(valueString).join(',')}]`;
  return Object.entries(v)
    .map(([k, x]) => `${k}=${valueString(x)}`)
    .join('');
}

/** PathElement.String: `.name`, `[name="c"]`, `[=value]`, `[0]`. */
export function pathElementString(pe: PathElement): string {
  if ('field' in pe) return `.${pe.field}`;
  if ('key' in pe) return `[${pe.key.map((k) => `${k.name}=${valueString(k.value)}`).join(',')}]`;
  if ('value' in pe) return `[=${valueString(pe.value)}]`;
  return `[${pe.index}]`;
}

/** Path.String: `.spec.containers[name="c"].image`. */
export function pathString(path: Path): string {
  return path.map(pathElementString).join('');
}

interface SetNode {
  readonly pe: PathElement;
  readonly set: FieldSet;
}

/** Binary search in a sorted array: the index of `pe`, or -(insertion point) - 1. */
function search<T>(items: readonly T[], pe: PathElement, elementOf: (t: T) => PathElement): number {
  let lo = 0;
  let hi = items.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const c = comparePathElements(elementOf(items[mid] as T), pe);
    if (c === 0) return mid;
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return -lo - 1;
}

const self = (pe: PathElement) => pe;
const nodeElement = (n: SetNode) => n.pe;

/**
 * A set of paths (fieldpath.Set), as a tree: `members` end a path here, `children` continue one.
 * Both are kept sorted by comparePathElements, which is the order FieldsV1 is written in.
 */
export class FieldSet {
  readonly members: PathElement[] = [];
  readonly children: SetNode[] = [];

  static of(...paths: Path[]): FieldSet {
    const set = new FieldSet();
    for (const p of paths) set.insert(p);
    return set;
  }

  insert(path: Path): void {
    if (path.length === 0) return;
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    let node: FieldSet = this;
    for (let i = 0; i < path.length - 1; i++) node = node.descend(path[i] as PathElement);
    node.insertMember(path[path.length - 1] as PathElement);
  }

  insertMember(pe: PathElement): void {
    // Sets are mostly built in order (FieldsV1 is written sorted): append when it is the last.
    const last = this.members[this.members.length - 1];
    if (last === undefined || comparePathElements(last, pe) < 0) {
      this.members.push(pe);
      return;
    }
    const at = search(this.members, pe, self);
    if (at < 0) this.members.splice(-at - 1, 0, pe);
  }

  /** The child set under `pe`, created if missing. */
  descend(pe: PathElement): FieldSet {
    const last = this.children[this.children.length - 1];
    const order = last === undefined ? -1 : comparePathElements(last.pe, pe);
    if (order === 0) return (last as SetNode).set;
    if (order < 0) {
      const set = new FieldSet();
      this.children.push({ pe, set });
      return set;
    }
    const at = search(this.children, pe, nodeElement);
    if (at >= 0) return (this.children[at] as SetNode).set;
    const set = new FieldSet();
    this.children.splice(-at - 1, 0, { pe, set });
    return set;
  }

  hasMember(pe: PathElement): boolean {
    return search(this.members, pe, self) >= 0;
  }

  /** The paths below `pe` (Set.WithPrefix); empty when there are none. */
  withPrefix(pe: PathElement): FieldSet {
    const at = search(this.children, pe, nodeElement);
    return at >= 0 ? (this.children[at] as SetNode).set : EMPTY;
  }

  has(path: Path): boolean {
    if (path.length === 0) return false;
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    let node: FieldSet = this;
    for (let i = 0; i < path.length - 1; i++) {
      node = node.withPrefix(path[i] as PathElement);
    }
    return node.hasMember(path[path.length - 1] as PathElement);
  }

  empty(): boolean {
    return this.members.length === 0 && this.children.every((c) => c.set.empty());
  }

  union(other: FieldSet): FieldSet {
    const out = new FieldSet();
    out.members.push(...mergeSorted(this.members, other.members, self, (a) => a));
    for (const node of mergeSorted(this.children, other.children, nodeElement, (a, b) => ({
      pe: a.pe,
      set: a.set.union(b.set),
    })))
      out.children.push(node);
    return out;
  }

  intersection(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const pe of this.members) if (other.hasMember(pe)) out.members.push(pe);
    for (const node of this.children) {
      const at = search(other.children, node.pe, nodeElement);
      if (at < 0) continue;
      const set = node.set.intersection((other.children[at] as SetNode).set);
      if (!set.empty()) out.children.push({ pe: node.pe, set });
    }
    return out;
  }

  difference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const pe of this.members) if (!other.hasMember(pe)) out.members.push(pe);
    for (const node of this.children) {
      const at = search(other.children, node.pe, nodeElement);
      if (at < 0) {
        out.children.push(node);
        continue;
      }
      const set = node.set.difference((other.children[at] as SetNode).set);
      if (!set.empty()) out.children.push({ pe: node.pe, set });
    }
    return out;
  }

  equals(other: FieldSet): boolean {
    return this.difference(other).empty() && other.difference(this).empty();
  }

  /** Every path, members before children, in sorted order (Set.Iterate). */
  *paths(prefix: Path = []): Generator<Path> {
    for (const pe of this.members) yield [...prefix, pe];
    for (const node of this.children) yield* node.set.paths([...prefix, node.pe]);
  }

  /** Set.String: one path per line. */
  toString(): string {
    return [...this.paths()].map(pathString).join('\n');
  }
}

const EMPTY = new FieldSet();

/** The sorted union of two sorted arrays; `both` combines an item present in each. */
function mergeSorted<T>(
  a: readonly T[],
  b: readonly T[],
  elementOf: (t: T) => PathElement,
  both: (x: T, y: T) => T,
): T[] {
  const out: T[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const c = comparePathElements(elementOf(a[i] as T), elementOf(b[j] as T));
    if (c < 0) out.push(a[i++] as T);
    else if (c > 0) out.push(b[j++] as T);
    else out.push(both(a[i++] as T, b[j++] as T));
  }
  while (i < a.length) out.push(a[i++] as T);
  while (j < b.length) out.push(b[j++] as T);
  return out;
}
