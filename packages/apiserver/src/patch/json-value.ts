import { isRecord, type JsonValue } from '@listwatch/api';

// The JSON value model the patch engines share. Patches come from the network, so every key
// lookup goes through own-property checks: `__proto__`, `constructor` and friends are ordinary
// keys here, never prototype slots.

export type { JsonValue };

export interface JsonObject {
  [key: string]: JsonValue;
}

/** isRecord, narrowed to JSON values (what a decoded patch holds). */
export function isJsonObject(value: unknown): value is JsonObject {
  return isRecord(value);
}

export function hasKey(object: JsonObject, key: string): boolean {
  return Object.hasOwn(object, key);
}

/** The value under an own key, or undefined when the key is absent. */
export function getKey(object: JsonObject, key: string): JsonValue | undefined {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

export function setKey(object: JsonObject, key: string, value: JsonValue): void {
  if (key === '__proto__') {
    Object.defineProperty(object, key, {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  } else {
    object[key] = value;
  }
}

export function deleteKey(object: JsonObject, key: string): void {
  if (Object.hasOwn(object, key)) delete object[key];
}

/** A deep copy: the engines mutate their working copies, never the caller's values. */
export function cloneJson<T extends JsonValue>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => cloneJson(v)) as T;
  if (isJsonObject(value)) {
    const copy: JsonObject = {};
    for (const key of Object.keys(value)) setKey(copy, key, cloneJson(value[key] as JsonValue));
    return copy as T;
  }
  return value;
}

/** Structural equality; object key order is not significant. */
export function jsonEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]));
  }
  if (isJsonObject(a)) {
    if (!isJsonObject(b)) return false;
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((k) => hasKey(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}

/** What Go's encoding/json calls a JSON value in its UnmarshalTypeError messages. */
export function jsonKindName(value: JsonValue): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'object') return 'object';
  return typeof value === 'boolean' ? 'bool' : typeof value;
}

/**
 * The Go type an untyped decode gives a value (`reflect.TypeOf`), as upstream error messages
 * print it. Integers decode as int64 on the apiserver's patch path (PreserveInts).
 */
export function goTypeName(value: JsonValue | undefined): string {
  if (value === null || value === undefined) return '%!s(<nil>)';
  if (Array.isArray(value)) return '[]interface {}';
  if (typeof value === 'object') return 'map[string]interface {}';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int64' : 'float64';
  return typeof value === 'boolean' ? 'bool' : 'string';
}

/** A value printed like Go's `%v`, so upstream error texts read the same. */
export function goFormat(value: JsonValue | undefined): string {
  if (value === null || value === undefined) return '<nil>';
  if (Array.isArray(value)) return `[${value.map((v) => goFormat(v)).join(' ')}]`;
  if (typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `map[${keys.map((k) => `${k}:${goFormat(value[k])}`).join(' ')}]`;
  }
  return String(value);
}
