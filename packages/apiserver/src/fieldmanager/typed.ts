import type { JsonObject, JsonValue } from '../patch/json-value.js';
import {
  compareStrings,
  FieldSet,
  type KeyField,
  type Path,
  type PathElement,
} from './fieldpath.js';
import { comparePathElements, pathString } from './fieldpath.js';
import { DEDUCED, fieldOf, isNamedField, keyDefault, type Atom } from './schema.js';

// Values walked by their schema, as structured-merge-diff's typed package does: the field set a
// value sets (tofieldset.go), what changed between two values (compare.go), the merge of an
// applied configuration into a live object (merge.go) and the removal of a set of fields
// (remove.go). `undefined` is an absent value.

/** A value that does not fit its schema (typed.ValidationErrors). */
export class TypedError extends Error {}

const isObject = (v: JsonValue | undefined): v is JsonObject =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The atom that applies to a value: deduced atoms take the value's own shape. */
function resolve(atom: Atom, value: JsonValue | undefined): Atom {
  if (atom.kind !== 'deduced') return atom;
  if (isObject(value)) return { kind: 'map', atomic: false, element: DEDUCED };
  if (Array.isArray(value)) return { kind: 'list', atomic: true, keys: [], element: DEDUCED };
  return { kind: 'scalar' };
}

/** listItemToPathElement: an associative list item's keys, or a set item's value. */
export function itemElement(list: Atom & { kind: 'list' }, item: JsonValue): PathElement {
  if (list.keys.length > 0) {
    if (!isObject(item)) {
      throw new TypedError(
        item === null
          ? 'associative list with keys may not have a null element'
          : 'associative list with keys may not have non-map elements',
      );
    }
    const key: KeyField[] = [];
    for (const name of list.keys) {
      const value = Object.hasOwn(item, name) ? item[name] : keyDefault(list, name);
      if (value !== undefined) key.push({ name, value });
    }
    if (key.length === 0) {
      throw new TypedError(
        `associative list with keys has an element that omits all key fields ${goQuoteList(list.keys)} (and doesn't have default values for any key fields)`,
      );
    }
    key.sort((a, b) => compareStrings(a.name, b.name));
    return { key };
  }
  if (isObject(item))
    throw new TypedError("associative list without keys has an element that's a map type");
  if (Array.isArray(item))
    throw new TypedError('not supported: associative list with lists as elements');
  if (item === null)
    throw new TypedError("associative list without keys has an element that's an explicit null");
  return { value: item };
}

const goQuoteList = (keys: readonly string[]) =>
  `[${keys.map((k) => JSON.stringify(k)).join(' ')}]`;

/** itemElement of the `i`th item of the list at `path`, its errors worded as typed's. */
function elementAt(
  list: Atom & { kind: 'list' },
  item: JsonValue,
  i: number,
  path: Path,
): PathElement {
  try {
    return itemElement(list, item);
  } catch (err) {
    if (!(err instanceof TypedError)) throw err;
    const where = path.length ? `${pathString(path)}: ` : '';
    throw new TypedError(`${where}element ${i}: ${err.message}`);
  }
}

/** TypedValue.ToFieldSet: every leaf the value sets, and each list item and empty map itself. */
export function toFieldSet(value: JsonValue, atom: Atom): FieldSet {
  const set = new FieldSet();
  walkFieldSet(value, atom, [], set);
  return set;
}

function walkFieldSet(value: JsonValue, declared: Atom, path: PathElement[], set: FieldSet): void {
  const atom = resolve(declared, value);
  if (atom.kind === 'scalar' || atom.kind === 'deduced') {
    set.insert(path);
    return;
  }
  if (atom.atomic) {
    set.insert(path);
    return;
  }
  if (atom.kind === 'list') {
    if (!Array.isArray(value)) return;
    const seen: PathElement[] = [];
    const duplicates = new FieldSet();
    const elements = value.map((item, i) => elementAt(atom, item, i, path));
    for (const pe of elements) {
      if (seen.some((s) => comparePathElements(s, pe) === 0)) {
        if (!duplicates.hasMember(pe)) {
          set.insert([...path, pe]);
          duplicates.insertMember(pe);
        }
      } else seen.push(pe);
    }
    value.forEach((item, i) => {
      const pe = elements[i] as PathElement;
      if (duplicates.hasMember(pe)) return;
      path.push(pe);
      walkFieldSet(item, atom.element, path, set);
      set.insert(path);
      path.pop();
    });
    return;
  }
  if (!isObject(value)) return;
  for (const [key, child] of Object.entries(value)) {
    path.push({ field: key });
    walkFieldSet(child, fieldOf(atom, key), path, set);
    if (child === null || (isObject(child) && Object.keys(child).length === 0)) set.insert(path);
    else if (!isNamedField(atom, key)) set.insert(path);
    path.pop();
  }
}

/** typed.Comparison: the paths `rhs` adds, removes and changes relative to `lhs`. */
export interface Comparison {
  readonly added: FieldSet;
  readonly removed: FieldSet;
  readonly modified: FieldSet;
}

/** TypedValue.Compare. */
export function compare(
  lhs: JsonValue | undefined,
  rhs: JsonValue | undefined,
  atom: Atom,
): Comparison {
  const out = { added: new FieldSet(), removed: new FieldSet(), modified: new FieldSet() };
  compareWalk(lhs, rhs, atom, [], out);
  return out;
}

/** value.Equals: maps compare without regard to key order, lists in order. */
export function jsonEquals(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  if (Array.isArray(a)) {
    return (
      Array.isArray(b) &&
      a.length === b.length &&
      a.every((x, i) => jsonEquals(x, b[i] as JsonValue))
    );
  }
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const ka = Object.keys(a);
    return (
      ka.length === Object.keys(b).length &&
      ka.every((k) => Object.hasOwn(b, k) && jsonEquals(a[k], b[k]))
    );
  }
  return false;
}

function compareLeaf(
  lhs: JsonValue | undefined,
  rhs: JsonValue | undefined,
  path: Path,
  out: Comparison,
): void {
  if (lhs === undefined) out.added.insert(path);
  else if (rhs === undefined) out.removed.insert(path);
  else if (!jsonEquals(lhs, rhs)) out.modified.insert(path);
}

const emptyList = (v: JsonValue | undefined) => !Array.isArray(v) || v.length === 0;
const emptyMap = (v: JsonValue | undefined) => !isObject(v) || Object.keys(v).length === 0;

function compareWalk(
  lhs: JsonValue | undefined,
  rhs: JsonValue | undefined,
  declared: Atom,
  path: PathElement[],
  out: Comparison,
): void {
  const inLeaf = compareNode(lhs, rhs, declared, path, out);
  // A map or list item that appears or disappears is itself added or removed (compareWalker.compare).
  if (!inLeaf && path.length) {
    if (lhs === undefined) out.added.insert(path);
    else if (rhs === undefined) out.removed.insert(path);
  }
}

function compareNode(
  lhs: JsonValue | undefined,
  rhs: JsonValue | undefined,
  declared: Atom,
  path: PathElement[],
  out: Comparison,
): boolean {
  const la = resolve(declared, lhs);
  const ra = resolve(declared, rhs);
  if (lhs !== undefined && rhs !== undefined && la.kind !== ra.kind) {
    compareLeaf(lhs, rhs, path, out);
    return true;
  }
  const atom = lhs === undefined ? ra : la;
  if (atom.kind === 'scalar' || atom.kind === 'deduced') {
    compareLeaf(lhs, rhs, path, out);
    return true;
  }
  if (atom.kind === 'list') {
    if (atom.atomic || (emptyList(lhs) && emptyList(rhs))) {
      compareLeaf(lhs, rhs, path, out);
      return true;
    }
    const index = (list: JsonValue | undefined) => {
      const byPe: { pe: PathElement; items: JsonValue[] }[] = [];
      for (const [i, item] of (Array.isArray(list) ? list : []).entries()) {
        const pe = elementAt(atom, item, i, path);
        const found = byPe.find((e) => comparePathElements(e.pe, pe) === 0);
        if (found) found.items.push(item);
        else byPe.push({ pe, items: [item] });
      }
      return byPe;
    };
    const left = index(lhs);
    const right = index(rhs);
    const all = [
      ...left.map((e) => e.pe),
      ...right
        .filter((r) => !left.some((l) => comparePathElements(l.pe, r.pe) === 0))
        .map((r) => r.pe),
    ];
    for (const pe of all) {
      const l = left.find((e) => comparePathElements(e.pe, pe) === 0)?.items ?? [];
      const r = right.find((e) => comparePathElements(e.pe, pe) === 0)?.items ?? [];
      path.push(pe);
      if (l.length <= 1 && r.length <= 1) {
        compareWalk(l[0], r[0], atom.element, path, out);
      } else if (l.length >= 2 && r.length >= 2) {
        if (!(l.length === r.length && l.every((x, i) => jsonEquals(x, r[i]))))
          out.modified.insert(path);
      } else if (l.length >= 2) {
        if (r.length) compareWalk(undefined, r[0], atom.element, path, out);
        out.removed.insert(path);
      } else {
        if (l.length) compareWalk(l[0], undefined, atom.element, path, out);
        out.added.insert(path);
      }
      path.pop();
    }
    return false;
  }
  if (atom.atomic || (emptyMap(lhs) && emptyMap(rhs))) {
    compareLeaf(lhs, rhs, path, out);
    return true;
  }
  const l = isObject(lhs) ? lhs : {};
  const r = isObject(rhs) ? rhs : {};
  for (const key of new Set([...Object.keys(l), ...Object.keys(r)])) {
    path.push({ field: key });
    compareWalk(
      Object.hasOwn(l, key) ? l[key] : undefined,
      Object.hasOwn(r, key) ? r[key] : undefined,
      fieldOf(atom, key),
      path,
      out,
    );
    path.pop();
  }
  return false;
}

/**
 * TypedValue.Merge: `rhs` merged into `lhs` by the schema (ruleKeepRHS): granular maps and
 * associative lists merge item by item, everything else is replaced by `rhs`.
 */
export function merge(
  lhs: JsonValue | undefined,
  rhs: JsonValue | undefined,
  atom: Atom,
): JsonValue | undefined {
  return mergeWalk(lhs, rhs, atom, []);
}

function mergeWalk(
  lhs: JsonValue | undefined,
  rhs: JsonValue | undefined,
  declared: Atom,
  path: PathElement[],
): JsonValue | undefined {
  const keep = () => (rhs !== undefined ? rhs : lhs);
  const la = resolve(declared, lhs);
  const ra = resolve(declared, rhs);
  if (lhs !== undefined && rhs !== undefined && la.kind !== ra.kind) return rhs;
  const atom = rhs === undefined ? la : ra;
  if (atom.kind === 'scalar' || atom.kind === 'deduced') return keep();
  if (atom.kind === 'list') {
    if (atom.atomic || (emptyList(lhs) && emptyList(rhs))) return keep();
    return mergeList(atom, Array.isArray(lhs) ? lhs : [], Array.isArray(rhs) ? rhs : [], path);
  }
  if (atom.atomic || (emptyMap(lhs) && emptyMap(rhs))) return keep();
  const l = isObject(lhs) ? lhs : {};
  const r = isObject(rhs) ? rhs : {};
  const out: JsonObject = {};
  for (const key of new Set([...Object.keys(l), ...Object.keys(r)])) {
    path.push({ field: key });
    const merged = mergeWalk(
      Object.hasOwn(l, key) ? l[key] : undefined,
      Object.hasOwn(r, key) ? r[key] : undefined,
      fieldOf(atom, key),
      path,
    );
    path.pop();
    if (merged !== undefined) out[key] = merged;
  }
  return Object.keys(out).length ? out : undefined;
}

/** mergingWalker.visitListItems: rhs order wins for shared items, lhs-only items keep place. */
function mergeList(
  atom: Atom & { kind: 'list' },
  lhs: JsonValue[],
  rhs: JsonValue[],
  path: PathElement[],
): JsonValue | undefined {
  const elementsOf = (list: JsonValue[], allowDuplicates: boolean) => {
    const pes: PathElement[] = [];
    const observed: { pe: PathElement; item: JsonValue | undefined }[] = [];
    list.forEach((item, i) => {
      const pe = elementAt(atom, item, i, path);
      const found = observed.find((o) => comparePathElements(o.pe, pe) === 0);
      if (found && !allowDuplicates) {
        throw new TypedError(`${pathString(path)}: duplicate entries for key ${pathString([pe])}`);
      }
      if (found) found.item = undefined;
      else observed.push({ pe, item });
      pes.push(pe);
    });
    const get = (pe: PathElement) => observed.find((o) => comparePathElements(o.pe, pe) === 0);
    return { pes, get };
  };
  const R = elementsOf(rhs, false);
  const L = elementsOf(lhs, true);
  const same = (a: PathElement, b: PathElement) => comparePathElements(a, b) === 0;
  const sharedOrder = R.pes.filter((pe) => L.get(pe) !== undefined);
  let nextShared = sharedOrder.shift();
  const mergedRhs: PathElement[] = [];
  const out: JsonValue[] = [];
  const mergeItem = (pe: PathElement, l: JsonValue | undefined, r: JsonValue | undefined) => {
    path.push(pe);
    const merged = mergeWalk(l, r, atom.element, path);
    path.pop();
    if (merged !== undefined) out.push(merged);
  };
  let lI = 0;
  let rI = 0;
  while (lI < L.pes.length || rI < R.pes.length) {
    if (lI < L.pes.length && rI < R.pes.length) {
      const pe = L.pes[lI] as PathElement;
      if (same(pe, R.pes[rI] as PathElement)) {
        mergedRhs.push(pe);
        mergeItem(pe, L.get(pe)?.item, R.get(pe)?.item);
        lI++;
        rI++;
        nextShared = sharedOrder.shift();
        continue;
      }
      if (R.get(pe) && nextShared !== undefined && !same(nextShared, pe)) {
        lI++;
        continue;
      }
    }
    if (lI < L.pes.length) {
      const pe = L.pes[lI] as PathElement;
      if (!R.get(pe)) {
        mergeItem(pe, lhs[lI], undefined);
        lI++;
        continue;
      } else if (mergedRhs.some((m) => same(m, pe))) {
        lI++;
      }
    }
    if (rI < R.pes.length) {
      const pe = R.pes[rI] as PathElement;
      mergedRhs.push(pe);
      mergeItem(pe, L.get(pe)?.item, R.get(pe)?.item);
      rI++;
      if (nextShared !== undefined && same(nextShared, pe)) nextShared = sharedOrder.shift();
    }
  }
  return out.length ? out : undefined;
}

/**
 * What remove.go leaves of a map or list it emptied: a null that still counts as set while an
 * apply prunes (an emptied `data` is not the same as no `data`), dropped by stripEmptied after.
 */
export const EMPTIED: JsonObject = Object.freeze({});

/** TypedValue.RemoveItems: `value` without the paths of `toRemove` (and what is below them). */
export function removeItems(value: JsonValue, atom: Atom, toRemove: FieldSet): JsonValue {
  const resolved = resolve(atom, value);
  if (resolved.kind === 'scalar' || resolved.kind === 'deduced' || resolved.atomic) return value;
  if (resolved.kind === 'list') {
    if (!Array.isArray(value) || value.length === 0) return value;
    const items: JsonValue[] = [];
    for (const item of value) {
      const pe = itemElement(resolved, item);
      if (toRemove.hasMember(pe)) continue;
      const below = toRemove.withPrefix(pe);
      items.push(below.empty() ? item : removeItems(item, resolved.element, below));
    }
    return items.length ? items : EMPTIED;
  }
  if (!isObject(value) || Object.keys(value).length === 0) return value;
  const out: JsonObject = {};
  for (const [key, child] of Object.entries(value)) {
    const pe = { field: key };
    if (toRemove.hasMember(pe)) continue;
    const below = toRemove.withPrefix(pe);
    out[key] = below.empty() ? child : removeItems(child, fieldOf(resolved, key), below);
  }
  return Object.keys(out).length ? out : EMPTIED;
}

/** The value without what removeItems emptied: typed objects have no such nulls. */
export function stripEmptied(value: JsonValue): JsonValue | undefined {
  if (value === EMPTIED) return undefined;
  if (Array.isArray(value)) {
    const items = value.map(stripEmptied).filter((v): v is JsonValue => v !== undefined);
    return items.length === value.length ? value : items;
  }
  if (!isObject(value)) return value;
  let changed = false;
  const out: JsonObject = {};
  for (const [key, child] of Object.entries(value)) {
    const kept = stripEmptied(child);
    if (kept === undefined || kept !== child) changed = true;
    if (kept !== undefined) out[key] = kept;
  }
  return changed ? out : value;
}

/**
 * Set.EnsureNamedFieldsAreMembers: a set that also has the struct fields its paths go through
 * (`.spec` for `.spec.replicas`), but not map keys or list items.
 */
export function ensureNamedFieldsAreMembers(set: FieldSet, atom: Atom): FieldSet {
  const out = new FieldSet();
  out.members.push(...set.members);
  for (const node of set.children) {
    if ('field' in node.pe && isNamedField(atom, node.pe.field)) out.insertMember(node.pe);
  }
  for (const node of set.children) {
    let child: Atom = DEDUCED;
    if ('field' in node.pe && atom.kind === 'map') child = fieldOf(atom, node.pe.field);
    else if ('key' in node.pe && atom.kind === 'list') child = atom.element;
    out.children.push({ pe: node.pe, set: ensureNamedFieldsAreMembers(node.set, child) });
  }
  return out;
}
