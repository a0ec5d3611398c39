import { compareStrings } from './fieldpath.js';
import { decodedFieldSet } from './decoded-fields.js';
import { setToFieldsV1 } from './fields-v1.js';
import type { ManagedFields } from './merge.js';
import { metaV1Time } from '@listwatch/api';

// metadata.managedFields and the manager identifiers behind them, as
// k8s.io/apimachinery/pkg/util/managedfields/internal/managedfields.go encodes and decodes them.

/** metav1.ManagedFieldsEntry as JSON has it (field order as the Go struct's). */
export interface ManagedFieldsEntry {
  manager?: string;
  operation?: 'Apply' | 'Update';
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: Record<string, unknown>;
  subresource?: string;
}

/** Fields and the time each manager last changed them (internal.ManagedInterface). */
export interface Managed {
  fields: ManagedFields;
  times: Map<string, string | undefined>;
}

export const emptyManaged = (): Managed => ({ fields: new Map(), times: new Map() });

/**
 * BuildManagerIdentifier: the entry without its fields and time, as JSON; an Apply entry is
 * one per manager whatever the version, an Update entry one per manager and version.
 */
export function managerIdentifier(entry: ManagedFieldsEntry): string {
  const { manager, operation, apiVersion, subresource } = entry;
  // JSON.stringify of { manager, operation, apiVersion, subresource } (the set ones), built
  // without the intermediate objects: this runs for every write.
  let id = '';
  if (manager) id += `,"manager":${JSON.stringify(manager)}`;
  if (operation) id += `,"operation":${JSON.stringify(operation)}`;
  if (apiVersion && operation !== 'Apply') id += `,"apiVersion":${JSON.stringify(apiVersion)}`;
  if (subresource) id += `,"subresource":${JSON.stringify(subresource)}`;
  return id === '' ? '{}' : `{${id.slice(1)}}`;
}

/** Identifiers parsed lately: a server sees few managers, and every write encodes them. */
const parsedIdentifiers = new Map<string, Readonly<ManagedFieldsEntry>>();

/** The entry an identifier was built from. */
export function parseManagerIdentifier(identifier: string): Readonly<ManagedFieldsEntry> {
  let entry = parsedIdentifiers.get(identifier);
  if (entry === undefined) {
    try {
      entry = JSON.parse(identifier) as ManagedFieldsEntry;
    } catch {
      entry = { manager: identifier };
    }
    if (parsedIdentifiers.size >= 1024) parsedIdentifiers.clear();
    parsedIdentifiers.set(identifier, Object.freeze(entry));
  }
  return entry;
}

/** DecodeManagedFields; throws on an entry kube would not accept. */
export function decodeManagedFields(entries: readonly unknown[]): Managed {
  const managed = emptyManaged();
  entries.forEach((raw, i) => {
    const entry = (raw ?? {}) as ManagedFieldsEntry;
    if (entry.operation !== 'Apply' && entry.operation !== 'Update') {
      throw new Error('operation must be `Apply` or `Update`');
    }
    if (!entry.apiVersion) throw new Error('apiVersion must not be empty');
    if (entry.fieldsType === undefined || entry.fieldsType === '') {
      throw new Error(`missing fieldsType in managed fields entry ${i}`);
    }
    if (entry.fieldsType !== 'FieldsV1') {
      throw new Error(`invalid fieldsType "${entry.fieldsType}" in managed fields entry ${i}`);
    }
    const id = managerIdentifier(entry);
    managed.fields.set(id, {
      set: decodedFieldSet(entry.fieldsV1 ?? {}),
      apiVersion: entry.apiVersion,
      applied: entry.operation === 'Apply',
    });
    managed.times.set(id, entry.time);
  });
  return managed;
}

const seconds = (time: string | undefined) =>
  time === undefined ? 0 : Math.floor(Date.parse(time) / 1000);

/** encodeManagedFields: one entry per manager, sorted as kube sorts them; none when empty. */
export function encodeManagedFields(managed: Managed): ManagedFieldsEntry[] | undefined {
  if (managed.fields.size === 0) return undefined;
  const entries: ManagedFieldsEntry[] = [];
  for (const [id, vs] of managed.fields) {
    const who = parseManagerIdentifier(id);
    const time = managed.times.get(id);
    // Built field by field in the JSON's order, without a spread object per optional field.
    const entry: ManagedFieldsEntry = {};
    if (who.manager) entry.manager = who.manager;
    entry.operation = vs.applied ? 'Apply' : (who.operation ?? 'Update');
    entry.apiVersion = vs.apiVersion;
    if (time) entry.time = time;
    entry.fieldsType = 'FieldsV1';
    entry.fieldsV1 = setToFieldsV1(vs.set);
    if (who.subresource) entry.subresource = who.subresource;
    entries.push(entry);
  }
  return entries.length > 1 ? entries.sort(compareEntries) : entries;
}

function cmp(a = '', b = ''): number {
  return compareStrings(a, b);
}

function compareEntries(p: ManagedFieldsEntry, q: ManagedFieldsEntry): number {
  return (
    cmp(p.operation, q.operation) ||
    seconds(p.time) - seconds(q.time) ||
    cmp(p.manager, q.manager) ||
    cmp(p.apiVersion, q.apiVersion) ||
    cmp(p.subresource, q.subresource)
  );
}

/** How a conflict names a manager (conflict.go printManager). */
export function printManager(identifier: string): string {
  let entry: ManagedFieldsEntry;
  try {
    entry = JSON.parse(identifier) as ManagedFieldsEntry;
  } catch {
    return JSON.stringify(identifier);
  }
  let out = JSON.stringify(entry.manager ?? '');
  if (entry.subresource) out += ` with subresource ${JSON.stringify(entry.subresource)}`;
  if (entry.operation === 'Update') {
    if (!entry.time) return `${out} using ${entry.apiVersion ?? ''}`;
    return `${out} using ${entry.apiVersion ?? ''} at ${entry.time}`;
  }
  return out;
}

let lastSecond = NaN;
let lastTime = '';

/** metav1.Time as JSON writes it: RFC 3339 to the second, UTC (formatted once a second). */
export function nowTime(): string {
  const second = Math.floor(Date.now() / 1000);
  if (second !== lastSecond) {
    lastTime = metaV1Time(second * 1000);
    lastSecond = second;
  }
  return lastTime;
}
