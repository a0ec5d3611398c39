import type { JsonValue } from '../patch/json-value.js';
import { FieldSet, type Path } from './fieldpath.js';
import type { Atom } from './schema.js';
import type { Comparison } from './typed.js';
import {
  compare,
  ensureNamedFieldsAreMembers,
  jsonEquals,
  merge,
  removeItems,
  stripEmptied,
  toFieldSet,
} from './typed.js';

// The Updater of structured-merge-diff (merge/update.go): who owns which fields after an update
// or an apply, the conflicts an apply meets, and what an apply prunes. Every object here has one
// version, so the Converter is the identity and ReconcileFieldSetWithSchema has nothing to do.

/** fieldpath.VersionedSet: a manager's fields, the API version it wrote at, whether applied. */
export interface VersionedSet {
  readonly set: FieldSet;
  readonly apiVersion: string;
  readonly applied: boolean;
}

/** fieldpath.ManagedFields: by manager identifier (see managed-fields.ts). */
export type ManagedFields = Map<string, VersionedSet>;

/** One conflicting field and the manager that owns it (merge.Conflict). */
export interface Conflict {
  readonly manager: string;
  readonly path: Path;
}

/** merge.Conflicts, thrown by an apply without force. */
export class Conflicts extends Error {
  constructor(readonly conflicts: readonly Conflict[]) {
    super(`${conflicts.length} conflict(s)`);
  }
}

/**
 * Which fields a write does not own whatever it changes (the strategy's GetResetFields: a
 * status write owns no spec, a main-resource write no status).
 */
export type IgnoreFilter = (set: FieldSet) => FieldSet;

export class Updater {
  constructor(
    private readonly atom: Atom,
    private readonly ignore: IgnoreFilter = (s) => s,
  ) {}

  private update(
    oldObject: JsonValue,
    newObject: JsonValue,
    managers: ManagedFields,
    workflow: string,
    force: boolean,
  ): { managers: ManagedFields; cmp: Comparison } {
    const cmp = compare(oldObject, newObject, this.atom);
    const added = this.ignore(cmp.added);
    const modified = this.ignore(cmp.modified);
    const removed = this.ignore(cmp.removed);
    const conflicts = new Map<string, FieldSet>();
    const removals = new Map<string, FieldSet>();
    const changed = modified.union(added);
    for (const [manager, vs] of managers) {
      if (manager === workflow) continue;
      const conflict = vs.set.intersection(changed);
      if (!conflict.empty()) conflicts.set(manager, conflict);
      if (!removed.empty()) removals.set(manager, removed);
    }
    if (!force && conflicts.size) {
      const list: Conflict[] = [];
      for (const manager of [...conflicts.keys()].sort()) {
        for (const path of (conflicts.get(manager) as FieldSet).paths())
          list.push({ manager, path });
      }
      throw new Conflicts(list);
    }
    const out: ManagedFields = new Map(managers);
    for (const [manager, set] of [...conflicts, ...removals]) {
      const vs = out.get(manager) as VersionedSet;
      out.set(manager, { ...vs, set: vs.set.difference(set) });
    }
    for (const [manager, vs] of out) if (vs.set.empty()) out.delete(manager);
    return { managers: out, cmp };
  }

  /** Updater.Update: `manager` owns what it changed; others lose what it changed or removed. */
  updateManagers(
    liveObject: JsonValue,
    newObject: JsonValue,
    apiVersion: string,
    managers: ManagedFields,
    manager: string,
  ): ManagedFields {
    const { managers: out, cmp } = this.update(liveObject, newObject, managers, manager, true);
    const previous = out.get(manager)?.set ?? new FieldSet();
    const set = this.ignore(previous.difference(cmp.removed).union(cmp.modified).union(cmp.added));
    if (set.empty()) out.delete(manager);
    else out.set(manager, { set, apiVersion, applied: false });
    return out;
  }

  /**
   * Updater.Apply: the configuration merged into the live object, what the manager stopped
   * applying pruned, and ownership moved. Throws Conflicts unless `force`. The object is
   * undefined when the apply changes nothing.
   */
  apply(
    liveObject: JsonValue,
    config: JsonValue,
    apiVersion: string,
    managers: ManagedFields,
    manager: string,
    force: boolean,
  ): { object: JsonValue | undefined; managers: ManagedFields } {
    let newObject: JsonValue = merge(liveObject, config, this.atom) ?? {};
    const lastSet = managers.get(manager);
    const set = this.ignore(toFieldSet(config, this.atom));
    const withApplied: ManagedFields = new Map(managers);
    withApplied.set(manager, { set, apiVersion, applied: true });
    newObject = stripEmptied(this.prune(newObject, withApplied, manager, lastSet)) ?? {};
    const { managers: out } = this.update(liveObject, newObject, withApplied, manager, force);
    // value.Equals: map keys in any order, list items in theirs (a reordered list is a change).
    return { object: jsonEquals(liveObject, newObject) ? undefined : newObject, managers: out };
  }

  /** Updater.prune: removes what `lastSet` had and the new apply lacks, unless someone owns it. */
  private prune(
    merged: JsonValue,
    managers: ManagedFields,
    applyingManager: string,
    lastSet: VersionedSet | undefined,
  ): JsonValue {
    if (!lastSet || lastSet.set.empty()) return merged;
    // Nothing the manager applied before is missing now: pruning would put everything back.
    const applied = managers.get(applyingManager)?.set;
    if (applied && lastSet.set.difference(applied).empty()) return merged;
    const atom = this.atom;
    const named = (s: FieldSet) => ensureNamedFieldsAreMembers(s, atom);
    let pruned = removeItems(merged, atom, named(lastSet.set));
    // addBackOwnedItems: whatever any manager (the applier included) owns stays.
    let managed = new FieldSet();
    for (const vs of managers.values()) managed = managed.union(vs.set);
    const mergedSet = named(toFieldSet(merged, atom));
    pruned = removeItems(
      merged,
      atom,
      mergedSet.difference(named(toFieldSet(pruned, atom)).union(named(managed))),
    );
    // addBackDanglingItems: what nobody owned and the last apply did not set either stays.
    const prunedSet = named(toFieldSet(pruned, atom));
    const last = named(lastSet.set);
    return removeItems(merged, atom, mergedSet.difference(prunedSet).intersection(last));
  }
}
