import { type JSONSchemaProps } from './types.js';
import { isRecord } from '@listwatch/api';

// Pruning and defaulting of custom objects by their structural schema
// (apiextensions-apiserver pkg/apiserver/schema/pruning/algorithm.go and
// schema/defaulting/algorithm.go): fields the schema does not specify are dropped unless
// x-kubernetes-preserve-unknown-fields says to keep them; missing fields with a default get it.

const MAX_DEPTH = 10_000;

/** Drops unknown fields from `object` in place; returns their paths (`spec.foo`). */
export function pruneObject(object: Record<string, unknown>, schema: JSONSchemaProps): string[] {
  const pruned: string[] = [];
  const properties = isRecord(schema['properties']) ? schema['properties'] : {};
  for (const key of Object.keys(object)) {
    if (key === 'apiVersion' || key === 'kind' || key === 'metadata') continue;
    const child = properties[key];
    if (isRecord(child)) prune(object[key], child, key, pruned, 1);
    else if (schema['x-kubernetes-preserve-unknown-fields'] !== true) {
      pruned.push(key);
      delete object[key];
    }
  }
  return pruned;
}

function prune(
  value: unknown,
  s: JSONSchemaProps,
  path: string,
  pruned: string[],
  depth: number,
): void {
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    const items = s['items'];
    if (isRecord(items))
      value.forEach((v, i) => prune(v, items, `${path}[${i}]`, pruned, depth + 1));
    return;
  }
  const object = value as Record<string, unknown>;
  const properties = isRecord(s['properties']) ? s['properties'] : undefined;
  const additional = s['additionalProperties'];
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  for (const key of Object.keys(object)) {
    const at = `${path}.${key}`;
    if (embedded && (key === 'apiVersion' || key === 'kind' || key === 'metadata')) continue;
    const child = properties?.[key];
    if (isRecord(child)) prune(object[key], child, at, pruned, depth + 1);
    else if (isRecord(additional)) prune(object[key], additional, at, pruned, depth + 1);
    else if (additional === true || preserve) continue;
    else if (properties !== undefined || s['type'] === 'object' || embedded) {
      pruned.push(at);
      delete object[key];
    }
  }
}

/** Sets the schema's defaults on `object` in place (structural defaulting). */
export function applyDefaults(object: unknown, schema: JSONSchemaProps): void {
  defaults(object, schema, 0);
}

function clone<T>(value: T): T {
  return structuredClone(value);
}

function defaults(value: unknown, s: JSONSchemaProps, depth: number): void {
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    const items = s['items'];
    if (isRecord(items)) for (const v of value) defaults(v, items, depth + 1);
    return;
  }
  const object = value as Record<string, unknown>;
  const properties = isRecord(s['properties']) ? s['properties'] : {};
  for (const [key, child] of Object.entries(properties)) {
    if (!isRecord(child)) continue;
    const current = object[key];
    if (
      child['default'] !== undefined &&
      (current === undefined || (current === null && child['nullable'] !== true))
    ) {
      object[key] = clone(child['default']);
    }
    if (object[key] !== undefined) defaults(object[key], child, depth + 1);
  }
  const additional = s['additionalProperties'];
  if (isRecord(additional)) {
    for (const key of Object.keys(object))
      if (!Object.hasOwn(properties, key)) defaults(object[key], additional, depth + 1);
  }
}

/** Whether a schema declares any default (reads then need defaulting). */
export function hasDefaults(schema: unknown, depth = 0): boolean {
  if (depth > MAX_DEPTH || schema === null || typeof schema !== 'object') return false;
  if (Array.isArray(schema)) return schema.some((s) => hasDefaults(s, depth + 1));
  const record = schema as Record<string, unknown>;
  if (record['default'] !== undefined) return true;
  return ['properties', 'items', 'additionalProperties'].some((key) => {
    const inner = record[key];
    if (key === 'properties' && isRecord(inner))
      return Object.values(inner).some((s) => hasDefaults(s, depth + 1));
    return hasDefaults(inner, depth + 1);
  });
}
