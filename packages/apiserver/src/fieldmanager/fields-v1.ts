import type { JsonValue } from '../patch/json-value.js';
import {
  comparePathElements,
  compareStrings,
  FieldSet,
  type KeyField,
  type PathElement,
} from './fieldpath.js';
import { goJsonMarshal } from '@listwatch/api';

// The FieldsV1 encoding of a FieldSet (structured-merge-diff fieldpath/serialize.go and
// serialize-pe.go): an object whose keys are serialized path elements — `f:<name>`,
// `k:<json object of the keys>`, `v:<json value>`, `i:<index>` — and `.` for "this element
// itself is in the set". Written in sorted order, so equal sets are equal bytes.

/** SerializePathElement. */
export function serializePathElement(pe: PathElement): string {
  if ('field' in pe) return `f:${pe.field}`;
  if ('key' in pe)
    return `k:{${pe.key.map((k) => `${goJsonMarshal(k.name)}:${goJsonMarshal(k.value)}`).join(',')}}`;
  if ('value' in pe) return `v:${goJsonMarshal(pe.value)}`;
  return `i:${pe.index}`;
}

/** Thrown for FieldsV1 that does not parse (managedfields decoding errors). */
export class FieldsV1Error extends Error {}

function parseJson(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch (err) {
    throw new FieldsV1Error(err instanceof Error ? err.message : String(err));
  }
}

/** DeserializePathElement: undefined for an unknown prefix, which readers skip. */
export function deserializePathElement(s: string): PathElement | undefined {
  if (s.length < 2) throw new FieldsV1Error('key must be 2 characters long:');
  if (s[1] !== ':') throw new FieldsV1Error(`missing colon: ${s}`);
  const rest = s.slice(2);
  switch (s[0]) {
    case 'f':
      return { field: rest };
    case 'v':
      return { value: parseJson(rest) };
    case 'k': {
      const keys = parseJson(rest);
      if (keys === null || typeof keys !== 'object' || Array.isArray(keys)) {
        throw new FieldsV1Error(`key is not an object: ${s}`);
      }
      const fields: KeyField[] = Object.entries(keys).map(([name, value]) => ({ name, value }));
      fields.sort((a, b) => compareStrings(a.name, b.name));
      return { key: fields };
    }
    case 'i': {
      if (!/^[+-]?\d+$/.test(rest))
        throw new FieldsV1Error(`strconv.Atoi: parsing "${rest}": invalid syntax`);
      return { index: Number(rest) };
    }
    default:
      return undefined;
  }
}

type FieldsV1 = { [key: string]: FieldsV1 };

/** Set.ToJSON, as an object (managedFields carries FieldsV1 as raw JSON). */
export function setToFieldsV1(set: FieldSet): FieldsV1 {
  return emit(set, false);
}

function emit(set: FieldSet, includeSelf: boolean): FieldsV1 {
  const out: FieldsV1 = {};
  if (includeSelf && !(set.members.length === 0 && set.children.length === 0)) out['.'] = {};
  // Members and children interleave in sorted order; a path element that is both is written
  // once, as a child with `.` inside.
  let mi = 0;
  let ci = 0;
  const { members, children } = set;
  while (mi < members.length || ci < children.length) {
    const m = members[mi];
    const c = children[ci];
    const cmp = m === undefined ? 1 : c === undefined ? -1 : comparePathElements(m, c.pe);
    if (cmp < 0) {
      out[serializePathElement(m as PathElement)] = {};
      mi++;
    } else {
      const node = c as { pe: PathElement; set: FieldSet };
      out[serializePathElement(node.pe)] = emit(node.set, cmp === 0);
      if (cmp === 0) mi++;
      ci++;
    }
  }
  return out;
}

/** Set.ToJSON as bytes: what kube stores and kubectl prints. */
export function setToJson(set: FieldSet): string {
  return JSON.stringify(setToFieldsV1(set));
}

/** Set.FromJSON over a parsed FieldsV1 object. */
export function fieldsV1ToSet(fields: unknown): FieldSet {
  if (fields === null || typeof fields !== 'object' || Array.isArray(fields)) {
    throw new FieldsV1Error('FieldsV1 is not an object');
  }
  return read(fields as Record<string, unknown>).children ?? new FieldSet();
}

function read(node: Record<string, unknown>): { children?: FieldSet; isMember: boolean } {
  let children: FieldSet | undefined;
  let isMember = false;
  for (const key in node) {
    const value = node[key];
    if (key === '.') {
      isMember = true;
      continue;
    }
    const pe = deserializePathElement(key);
    if (pe === undefined) continue;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw new FieldsV1Error(`FieldsV1 value for ${key} is not an object`);
    }
    const below = read(value as Record<string, unknown>);
    if (below.isMember) (children ??= new FieldSet()).insertMember(pe);
    if (below.children) {
      children ??= new FieldSet();
      // Two spellings of one key (`k:{"a":1,"b":2}`, `k:{"b":2,"a":1}`) land in one child.
      const target = children.descend(pe);
      if (target.members.length === 0 && target.children.length === 0) {
        target.members.push(...below.children.members);
        target.children.push(...below.children.children);
      } else {
        const merged = target.union(below.children);
        target.members.splice(0, target.members.length, ...merged.members);
        target.children.splice(0, target.children.length, ...merged.children);
      }
    }
  }
  if (children === undefined) isMember = true;
  return { ...(children ? { children } : {}), isMember };
}
