import { ApiError, goJsonMarshal, type KubeObject, type SchemaGvk } from '@listwatch/api';
import { cloneJson, isJsonObject, type JsonObject, type JsonValue } from '../patch/json-value.js';
import { compareStrings, FieldSet, pathString, type Path } from './fieldpath.js';
import {
  decodeManagedFields,
  emptyManaged,
  encodeManagedFields,
  managerIdentifier,
  nowTime,
  printManager,
  type Managed,
} from './managed-fields.js';
import { Conflicts, Updater, type Conflict, type IgnoreFilter } from './merge.js';
import { atomForKind, type Atom } from './schema.js';
import { compare, toFieldSet, TypedError } from './typed.js';

// The field manager kube-apiserver runs on every write (k8s.io/apimachinery
// pkg/util/managedfields/internal/fieldmanager.go and the managers it chains:
// versioncheck.go, skipnonapplied.go, buildmanagerinfo.go, managedfieldsupdater.go,
// stripmeta.go, structuredmerge.go). Update records what a create, update or patch changed
// under its manager; Apply merges an applied configuration and moves ownership.

/** Fields no manager owns (stripmeta.go). */
const STRIPPED = FieldSet.of(
  [{ field: 'apiVersion' }],
  [{ field: 'kind' }],
  [{ field: 'metadata' }],
  ...['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation']
    .concat(['managedFields', 'resourceVersion'])
    .map((f): Path => [{ field: 'metadata' }, { field: f }]),
);

/** The manager of a write without `fieldManager`: the User-Agent up to its first `/`. */
export function managerOrUserAgent(fieldManager: string | undefined, userAgent: string): string {
  if (fieldManager) return fieldManager;
  let out = '';
  for (const ch of userAgent.split('/')[0] ?? '') {
    // Unprintable characters are dropped, and the name is cut at 128 bytes.
    if (/[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}]/u.test(ch)) continue;
    if (Buffer.byteLength(out + ch) > 128) break;
    out += ch;
  }
  return out;
}

export interface FieldManagerScope {
  readonly gvk: SchemaGvk;
  /** `status` for writes to the status subresource. */
  readonly subresource?: string;
  /** The kind has a status subresource: its main resource owns no status (GetResetFields). */
  readonly hasStatusSubresource: boolean;
  /** The schema, for kinds the schema source lacks (a CRD's, from atomFromStructural). */
  readonly atom?: Atom;
}

const BEFORE_FIRST_APPLY = 'before-first-apply';
const CURRENT_OPERATION = 'current-operation';

function gvkString({ group, version, kind }: SchemaGvk): string {
  return `${group}/${version}, Kind=${kind}`;
}

function apiVersionOf({ group, version }: SchemaGvk): string {
  return group ? `${group}/${version}` : version;
}

/** A managedFields list that asks for a reset: empty, or one empty entry (isResetManagedFields). */
function isReset(entries: unknown): boolean {
  if (!Array.isArray(entries)) return false;
  if (entries.length === 0) return true;
  const [only] = entries as unknown[];
  return (
    entries.length === 1 &&
    typeof only === 'object' &&
    only !== null &&
    Object.keys(only).length === 0
  );
}

function tryDecode(entries: unknown): Managed | undefined {
  if (entries === undefined || entries === null) return emptyManaged();
  if (!Array.isArray(entries)) return undefined;
  try {
    return decodeManagedFields(entries);
  } catch {
    return undefined;
  }
}

export class FieldManager {
  private readonly updater: Updater;
  private readonly atom: Atom;
  private readonly apiVersion: string;

  constructor(private readonly scope: FieldManagerScope) {
    this.atom = scope.atom ?? atomForKind(scope.gvk);
    this.updater = new Updater(this.atom, resetFilter(scope));
    this.apiVersion = apiVersionOf(scope.gvk);
  }

  private identifier(manager: string, operation: 'Apply' | 'Update'): string {
    return managerIdentifier({
      manager: manager || 'unknown',
      operation,
      apiVersion: this.apiVersion,
      ...(this.scope.subresource ? { subresource: this.scope.subresource } : {}),
    });
  }

  /**
   * FieldManager.UpdateNoErrors: `next` with managedFields that record what this write changed
   * relative to `live` (an empty object for a create) under `manager`. A write that cannot be
   * tracked keeps the live object's managedFields, as kube does.
   */
  update(live: KubeObject | undefined, next: KubeObject, manager: string): KubeObject {
    const liveEntries = live?.metadata.managedFields;
    try {
      let managed: Managed;
      const sent = next.metadata.managedFields;
      if (this.scope.subresource) managed = tryDecode(liveEntries) ?? emptyManaged();
      else if (isReset(sent)) managed = emptyManaged();
      else {
        const fromRequest = tryDecode(sent);
        managed =
          fromRequest && fromRequest.fields.size > 0
            ? fromRequest
            : (tryDecode(liveEntries) ?? emptyManaged());
      }
      delete next.metadata.managedFields;
      managed = this.trackUpdate(live, next, managed, manager);
      setManagedFields(next, managed);
    } catch {
      // UpdateNoErrors: a write is never refused for its bookkeeping.
      if (liveEntries) next.metadata.managedFields = liveEntries;
      else delete next.metadata.managedFields;
    }
    return next;
  }

  /** skipnonapplied.go through structuredmerge.go for an Update. */
  private trackUpdate(
    live: KubeObject | undefined,
    next: KubeObject,
    managed: Managed,
    manager: string,
  ): Managed {
    // An existing object nobody tracks stays untracked until its first apply.
    if (managed.fields.size === 0 && live?.metadata.uid) return managed;
    const id = this.identifier(manager, 'Update');
    const fields = this.updater.updateManagers(
      stripped(live),
      stripped(next),
      this.apiVersion,
      managed.fields,
      CURRENT_OPERATION,
    );
    const times = new Map(managed.times);
    const current = fields.get(CURRENT_OPERATION);
    if (current) {
      fields.delete(CURRENT_OPERATION);
      const previous = fields.get(id);
      fields.set(id, previous ? { ...current, set: current.set.union(previous.set) } : current);
      times.set(id, nowTime());
    }
    stripMeta(fields, id);
    capUpdateManagers(fields, times);
    return { fields, times };
  }

  /**
   * FieldManager.Apply: the configuration merged into `live` (an empty object when the apply
   * creates it), what this manager stopped applying removed, managedFields updated. A 409 with a
   * cause per conflicting field unless `force`. When nothing changes, returns the live object
   * as it was, so that nothing is written.
   */
  apply(
    live: KubeObject | undefined,
    config: JsonObject,
    manager: string,
    force: boolean,
  ): KubeObject {
    const { gvk } = this.scope;
    const appliedGvk = gvkOf(config);
    if (appliedGvk !== gvkString(gvk)) {
      throw ApiError.badRequest(`invalid object type: ${appliedGvk}`);
    }
    const meta = config['metadata'];
    if (typeof meta === 'object' && meta !== null && !Array.isArray(meta)) {
      if (meta['managedFields'] !== undefined) {
        throw ApiError.badRequest('metadata.managedFields must be nil');
      }
    }
    let managed: Managed;
    try {
      managed = decodeManagedFields((live?.metadata.managedFields as unknown[] | undefined) ?? []);
    } catch (err) {
      throw ApiError.badRequest(
        `failed to decode managed fields: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
    const base = stripped(live);
    try {
      if (managed.fields.size === 0 && live) {
        // skipnonapplied.go: what the object had before its first apply belongs to someone.
        managed = this.trackUpdate(undefined, live, managed, BEFORE_FIRST_APPLY);
      }
      const id = this.identifier(manager, 'Apply');
      const run = (forced: boolean) =>
        this.updater.apply(base, cloneJson(config), this.apiVersion, managed.fields, id, forced);
      let result: ReturnType<typeof run>;
      try {
        result = run(force);
      } catch (err) {
        // lastappliedmanager.go: kubectl taking over what its client-side apply set is no conflict.
        if (!(err instanceof Conflicts) || manager !== 'kubectl') throw err;
        const allowed = this.allowedByLastApplied(live, base);
        if (!allowed) throw err;
        const left = err.conflicts.filter((c) => !allowed.has(c.path));
        if (left.length) throw new Conflicts(left);
        result = run(true);
      }
      const times = new Map(managed.times);
      if (result.object !== undefined) times.set(id, nowTime());
      stripMeta(result.managers, id);
      const out = { fields: result.managers, times };
      // A no-op keeps the live object as it was, its key order included, so nothing is written.
      const unchanged = (): JsonObject => cloneJson((live ?? base) as unknown as JsonObject);
      const object = (result.object ?? unchanged()) as unknown as KubeObject;
      object.metadata ??= {};
      if (manager === 'kubectl') updateLastApplied(object, config);
      setManagedFields(object, out);
      return object;
    } catch (err) {
      if (err instanceof Conflicts) throw conflictError(err.conflicts);
      if (err instanceof TypedError) {
        throw ApiError.badRequest(
          `failed to create typed patch object (${objectGvkNN(config, gvk)}): ${err.message}`,
        );
      }
      throw err;
    }
  }

  /**
   * lastappliedmanager.go allowedConflictsFromLastApplied: the fields of the live object's
   * last-applied-configuration that still have the values it gave them.
   */
  private allowedByLastApplied(
    live: KubeObject | undefined,
    base: JsonObject,
  ): FieldSet | undefined {
    const text = live?.metadata.annotations?.[LAST_APPLIED];
    if (!text) return undefined;
    let lastApplied: unknown;
    try {
      lastApplied = JSON.parse(text);
    } catch {
      return undefined;
    }
    if (!isJsonObject(lastApplied) || lastApplied['apiVersion'] !== this.apiVersion)
      return undefined;
    const cmp = compare(lastApplied, base, this.atom);
    return toFieldSet(lastApplied, this.atom)
      .difference(cmp.modified)
      .difference(cmp.added)
      .difference(cmp.removed);
  }
}

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** JSON as Go's encoding/json writes a map: keys sorted bytewise, then a newline (json.Encoder). */
function goMapJson(value: JsonValue): string {
  const write = (v: JsonValue): string => {
    if (Array.isArray(v)) return `[${v.map(write).join(',')}]`;
    if (!isJsonObject(v)) return goJsonMarshal(v);
    const keys = Object.keys(v).sort(compareStrings);
    return `{${keys.map((k) => `${goJsonMarshal(k)}:${write(v[k] as JsonValue)}`).join(',')}}`;
  };
  return `${write(value)}\n`;
}

/**
 * lastappliedupdater.go: while an object still has kubectl's client-side last-applied
 * annotation, a server-side apply by kubectl keeps it current, so that a later client-side
 * apply does not undo it. Dropped when the annotations would outgrow their 256 KiB.
 */
function updateLastApplied(object: KubeObject, config: JsonObject): void {
  const annotations = object.metadata.annotations;
  if (!annotations?.[LAST_APPLIED]) return;
  const applied = cloneJson(config);
  const meta = applied['metadata'];
  if (isJsonObject(meta) && isJsonObject(meta['annotations'])) {
    delete meta['annotations'][LAST_APPLIED];
  }
  const next: Record<string, string> = { ...annotations, [LAST_APPLIED]: goMapJson(applied) };
  const size = Object.entries(next).reduce(
    (n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(v),
    0,
  );
  if (size > 256 * 1024) delete next[LAST_APPLIED];
  object.metadata.annotations = next;
}

/** The object without managedFields, as the merge sees it. */
function stripped(object: KubeObject | undefined): JsonObject {
  if (!object) return {};
  const { managedFields: _m, ...metadata } = object.metadata;
  return { ...(object as unknown as JsonObject), metadata: metadata as JsonObject };
}

function setManagedFields(object: KubeObject, managed: Managed): void {
  const entries = encodeManagedFields(managed);
  if (entries) object.metadata.managedFields = entries as unknown as JsonValue[];
  else delete object.metadata.managedFields;
}

/** capmanagers.go: at most this many Update entries; the oldest merge into "ancient-changes". */
const MAX_UPDATE_MANAGERS = 10;

function capUpdateManagers(fields: Managed['fields'], times: Managed['times']): void {
  const updaters = [...fields].filter(([, vs]) => !vs.applied).map(([id]) => id);
  if (updaters.length <= MAX_UPDATE_MANAGERS) return;
  const seconds = (id: string) => {
    const t = times.get(id);
    return t ? Math.floor(Date.parse(t) / 1000) : 0;
  };
  updaters.sort((a, b) => seconds(a) - seconds(b) || compareStrings(a, b));
  const firstOfVersion = new Map<string, string>();
  let length = updaters.length;
  for (const id of updaters) {
    if (length <= MAX_UPDATE_MANAGERS) break;
    const vs = fields.get(id);
    if (!vs) continue;
    const bucket = managerIdentifier({
      manager: 'ancient-changes',
      operation: 'Update',
      apiVersion: vs.apiVersion,
    });
    const first = firstOfVersion.get(vs.apiVersion);
    if (first === undefined) {
      firstOfVersion.set(vs.apiVersion, id);
      continue;
    }
    if (!fields.has(bucket)) {
      const firstSet = fields.get(first);
      fields.delete(first);
      if (firstSet) fields.set(bucket, firstSet);
    }
    const merged = fields.get(bucket);
    fields.set(bucket, { ...vs, set: vs.set.union(merged?.set ?? new FieldSet()) });
    fields.delete(id);
    times.set(bucket, times.get(id));
    length--;
  }
}

function stripMeta(fields: Managed['fields'], id: string): void {
  const vs = fields.get(id);
  if (!vs) return;
  const set = vs.set.difference(STRIPPED);
  if (set.empty()) fields.delete(id);
  else fields.set(id, { ...vs, set });
}

/** What a write to the main resource or to status does not own (strategies' GetResetFields). */
function resetFilter(scope: FieldManagerScope): IgnoreFilter {
  if (scope.subresource === 'status') {
    return (set) => {
      const out = new FieldSet();
      for (const node of set.children) {
        if ('field' in node.pe && (node.pe.field === 'status' || node.pe.field === 'metadata'))
          out.children.push(node);
      }
      out.members.push(
        ...set.members.filter(
          (pe) => 'field' in pe && (pe.field === 'status' || pe.field === 'metadata'),
        ),
      );
      return out;
    };
  }
  if (!scope.hasStatusSubresource) return (set) => set;
  const status = FieldSet.of([{ field: 'status' }]);
  return (set) => {
    const out = set.difference(status);
    // Drop the whole status subtree, not only the `.status` member.
    const at = out.children.findIndex((c) => 'field' in c.pe && c.pe.field === 'status');
    if (at >= 0) out.children.splice(at, 1);
    return out;
  };
}

function gvkOf(config: JsonObject): string {
  const apiVersion = typeof config['apiVersion'] === 'string' ? config['apiVersion'] : '';
  const kind = typeof config['kind'] === 'string' ? config['kind'] : '';
  const slash = apiVersion.indexOf('/');
  const [group, version] =
    slash >= 0 ? [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)] : ['', apiVersion];
  return `${group}/${version}, Kind=${kind}`;
}

function objectGvkNN(config: JsonObject, gvk: SchemaGvk): string {
  const meta = (config['metadata'] ?? {}) as { name?: string; namespace?: string };
  return `${meta.namespace ?? ''}/${meta.name ?? ''}; ${gvkString(gvk)}`;
}

/** conflict.go NewConflictError: 409, one cause per field, kube's message. */
export function conflictError(conflicts: readonly Conflict[]): ApiError {
  let message: string;
  if (conflicts.length === 1) {
    const [c] = conflicts as [Conflict];
    message = `Apply failed with 1 conflict: conflict with ${printManager(c.manager)}: ${pathString(c.path)}`;
  } else {
    const byManager = new Map<string, string[]>();
    for (const c of conflicts) {
      byManager.set(c.manager, [...(byManager.get(c.manager) ?? []), pathString(c.path)]);
    }
    const lines: string[] = [];
    for (const manager of [...byManager.keys()].sort()) {
      lines.push(`conflicts with ${printManager(manager)}:`);
      for (const p of byManager.get(manager) ?? []) lines.push(`- ${p}`);
    }
    message = `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
  }
  return new ApiError({
    code: 409,
    reason: 'Conflict',
    message,
    details: {
      causes: conflicts.map((c) => ({
        reason: 'FieldManagerConflict',
        message: `conflict with ${printManager(c.manager)}`,
        field: pathString(c.path),
      })),
    },
  });
}
