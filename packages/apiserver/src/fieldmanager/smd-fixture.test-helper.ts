import { parse } from 'yaml';
import type { JsonValue } from '../patch/json-value.js';
import { FieldSet, type Path, type PathElement } from './fieldpath.js';
import { Conflicts, Updater, type ManagedFields } from './merge.js';
import { DEDUCED, type Atom } from './schema.js';

// The test fixture of structured-merge-diff (internal/fixture/state.go) in TypeScript, so that
// its merge test cases can be run here as written: a schema in its YAML form, a list of Apply /
// ForceApply / Update operations, the expected object and managed fields.

interface SmdTypeRef {
  namedType?: string;
  scalar?: string;
  untyped?: unknown;
  list?: { elementType: SmdTypeRef; elementRelationship?: string; keys?: string[] };
  map?: {
    fields?: { name: string; type: SmdTypeRef; default?: JsonValue }[];
    elementType?: SmdTypeRef;
    elementRelationship?: string;
  };
}

/** A schema in structured-merge-diff's YAML form (typed.NewParser), resolved to `root`. */
export function parseSmdSchema(text: string, root: string): Atom {
  const { types } = parse(text) as { types: (SmdTypeRef & { name: string })[] };
  const named = new Map<string, Atom>();
  const byName = new Map(types.map((t) => [t.name, t]));
  const convert = (ref: SmdTypeRef): Atom => {
    if (ref.namedType !== undefined) {
      const known = named.get(ref.namedType);
      if (known) return known;
      if (ref.namedType === '__untyped_atomic_') return { kind: 'scalar' };
      if (ref.namedType === '__untyped_deduced_') return DEDUCED;
      const def = byName.get(ref.namedType);
      if (!def) throw new Error(`no type ${ref.namedType}`);
      if (def.map) {
        // Registered before its fields, for recursive types.
        const fields = new Map<string, Atom>();
        const defaults = new Map<string, JsonValue>();
        const atom: Atom = {
          kind: 'map',
          atomic: def.map.elementRelationship === 'atomic',
          ...(def.map.fields ? { fields, defaults } : {}),
          element: def.map.elementType ? DEDUCED : DEDUCED,
        };
        named.set(ref.namedType, atom);
        const element = def.map.elementType ? convert(def.map.elementType) : DEDUCED;
        (atom as { element: Atom }).element = element;
        for (const f of def.map.fields ?? []) {
          fields.set(f.name, convert(f.type));
          if (f.default !== undefined) defaults.set(f.name, f.default);
        }
        return atom;
      }
      const atom = convert(def);
      named.set(ref.namedType, atom);
      return atom;
    }
    if (ref.scalar !== undefined) return { kind: 'scalar' };
    if (ref.list) {
      return {
        kind: 'list',
        atomic: ref.list.elementRelationship !== 'associative',
        keys: ref.list.keys ?? [],
        element: convert(ref.list.elementType),
      };
    }
    if (ref.map) {
      const fields = new Map<string, Atom>();
      const defaults = new Map<string, JsonValue>();
      for (const f of ref.map.fields ?? []) {
        fields.set(f.name, convert(f.type));
        if (f.default !== undefined) defaults.set(f.name, f.default);
      }
      return {
        kind: 'map',
        atomic: ref.map.elementRelationship === 'atomic',
        ...(ref.map.fields ? { fields, defaults } : {}),
        element: ref.map.elementType ? convert(ref.map.elementType) : DEDUCED,
      };
    }
    return DEDUCED;
  };
  return convert({ namedType: root });
}

/** `_P("list", _KBF("name", "a"), "value")`: strings are fields. */
export function P(...parts: (string | PathElement)[]): Path {
  return parts.map((p) => (typeof p === 'string' ? { field: p } : p));
}

/** `_KBF("port", 80, "protocol", "TCP")`. */
export function KBF(...pairs: JsonValue[]): PathElement {
  const key = [];
  for (let i = 0; i < pairs.length; i += 2)
    key.push({ name: pairs[i] as string, value: pairs[i + 1] as JsonValue });
  key.sort((a, b) => (a.name < b.name ? -1 : 1));
  return { key };
}

export function V(value: JsonValue): PathElement {
  return { value };
}

export type Operation =
  | { op: 'Apply' | 'ForceApply'; manager: string; object: string; conflicts?: [string, Path][] }
  | { op: 'Update'; manager: string; object: string };

export interface SmdTestCase {
  ops: Operation[];
  /** The expected object, YAML; omitted when only managed fields are checked. */
  object?: string;
  managed: Record<string, Path[]>;
}

const yamlValue = (text: string): JsonValue => (parse(text) as JsonValue) ?? {};

/** fixture.TestCase.Test: runs the operations; returns the final state for assertions. */
export function runSmdCase(
  atom: Atom,
  test: SmdTestCase,
): {
  live: JsonValue;
  managers: ManagedFields;
  conflicts: (readonly [string, string])[][];
} {
  const updater = new Updater(atom);
  let live: JsonValue = {};
  let managers: ManagedFields = new Map();
  const conflicts: (readonly [string, string])[][] = [];
  for (const op of test.ops) {
    const object = yamlValue(op.object.replace(/^\t+/gm, ''));
    if (op.op === 'Update') {
      managers = updater.updateManagers(live, object, 'v1', managers, op.manager);
      live = object;
      continue;
    }
    try {
      const result = updater.apply(
        live,
        object,
        'v1',
        managers,
        op.manager,
        op.op === 'ForceApply',
      );
      managers = result.managers;
      if (result.object !== undefined) live = result.object;
      conflicts.push([]);
    } catch (err) {
      if (!(err instanceof Conflicts)) throw err;
      conflicts.push(
        err.conflicts.map((c) => [c.manager, FieldSet.of(c.path).toString()] as const),
      );
    }
  }
  return { live, managers, conflicts };
}

export const yamlObject = (text: string): JsonValue => yamlValue(text.replace(/^\t+/gm, ''));
