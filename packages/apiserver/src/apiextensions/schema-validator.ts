import { fieldErrors, isRecord, type FieldError } from '@listwatch/api';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { RE2JS } from 're2js';
import { type JSONSchemaProps } from './types.js';

// Validation of custom objects against a version's openAPIV3Schema
// (apiextensions-apiserver pkg/apiserver/validation/validation.go, kube-openapi validate):
// the schema is compiled once into an ajv validator, kube's extensions translated to JSON Schema
// (x-kubernetes-int-or-string, nullable) or checked by the walk below (list-type set/map
// uniqueness, x-kubernetes-embedded-resource). Errors carry kube's field paths and words.

/** One compiled version schema. */
export interface SchemaValidator {
  validate(object: unknown): FieldError[];
}

/** The schema as ajv reads it: kube's extensions turned into JSON Schema, the rest dropped. */
function toJsonSchema(s: JSONSchemaProps, root: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(s)) {
    if (
      key.startsWith('x-kubernetes-') ||
      key === 'default' ||
      key === 'example' ||
      key === 'externalDocs'
    )
      continue;
    if (key === 'format') continue; // go-openapi's formats are not JSON Schema's
    if (key === 'properties' && isRecord(value)) {
      out[key] = Object.fromEntries(
        Object.entries(value).map(([k, v]) => [k, isRecord(v) ? toJsonSchema(v, false) : {}]),
      );
    } else if (
      (key === 'items' || key === 'additionalProperties' || key === 'not') &&
      isRecord(value)
    ) {
      out[key] = toJsonSchema(value, false);
    } else if ((key === 'allOf' || key === 'anyOf' || key === 'oneOf') && Array.isArray(value)) {
      out[key] = value.map((v: unknown) => (isRecord(v) ? toJsonSchema(v, false) : {}));
    } else {
      out[key] = value;
    }
  }
  // kube-openapi: an int-or-string "must be of type integer,string".
  if (s['x-kubernetes-int-or-string'] === true && out['type'] === undefined)
    out['type'] = ['integer', 'string'];
  if (out['nullable'] === true && out['type'] === undefined) delete out['nullable'];
  // The root's apiVersion, kind and metadata are the apiserver's, whatever the schema says.
  if (root && isRecord(out['properties'])) {
    const { apiVersion: _a, kind: _k, metadata: _m, ...rest } = out['properties'];
    out['properties'] = rest;
  }
  return out;
}

/** `/spec/items/0/name` → `spec.items[0].name`. */
function fieldPath(pointer: string, extra?: string): string {
  const parts = pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra !== undefined) parts.push(extra);
  let path = '';
  for (const part of parts) {
    if (/^\d+$/.test(part) && path) path += `[${part}]`;
    else path += path ? `.${part}` : part;
  }
  return path;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** kube-openapi's error texts (validate/errors.go), as kube's 422 causes show them. */
function toFieldError(error: ErrorObject): FieldError | undefined {
  const path = fieldPath(error.instancePath);
  const value: unknown = error.data;
  const params = error.params as Record<string, unknown>;
  const inBody = `${path} in body`;
  switch (error.keyword) {
    case 'required':
      return fieldErrors.required(fieldPath(error.instancePath, String(params['missingProperty'])));
    case 'type': {
      const expected = Array.isArray(params['type'])
        ? params['type'].join(',')
        : String(params['type']);
      return {
        type: 'FieldValueTypeInvalid',
        field: path,
        badValue: typeName(value),
        detail: `${inBody} must be of type ${expected}: ${JSON.stringify(typeName(value))}`,
      };
    }
    case 'enum':
      return fieldErrors.notSupported(
        path,
        value,
        ((params['allowedValues'] as unknown[]) ?? []).map((v) =>
          typeof v === 'string' ? v : JSON.stringify(v),
        ),
      );
    case 'maximum':
    case 'exclusiveMaximum':
      return fieldErrors.invalid(
        path,
        value,
        `${inBody} should be less than ${error.keyword === 'maximum' ? 'or equal to ' : ''}${String(params['limit'])}`,
      );
    case 'minimum':
    case 'exclusiveMinimum':
      return fieldErrors.invalid(
        path,
        value,
        `${inBody} should be greater than ${error.keyword === 'minimum' ? 'or equal to ' : ''}${String(params['limit'])}`,
      );
    case 'maxLength':
      return {
        type: 'FieldValueTooLong',
        field: path,
        badValue: value,
        detail: `may not be more than ${String(params['limit'])} bytes`,
      };
    case 'minLength':
      return fieldErrors.invalid(
        path,
        value,
        `${inBody} should be at least ${String(params['limit'])} chars long`,
      );
    case 'pattern':
      return fieldErrors.invalid(
        path,
        value,
        `${inBody} should match '${String(params['pattern'])}'`,
      );
    case 'maxItems':
    case 'maxProperties':
      // ajv applies these to arrays and objects only: the count is the bad value (field.TooMany).
      return fieldErrors.tooMany(path, sizeOf(value), Number(params['limit']));
    case 'minItems':
      return fieldErrors.invalid(
        path,
        value,
        `${inBody} should have at least ${String(params['limit'])} items`,
      );
    case 'minProperties':
      return fieldErrors.invalid(
        path,
        value,
        `${inBody} should have at least ${String(params['limit'])} properties`,
      );
    case 'multipleOf':
      return fieldErrors.invalid(
        path,
        value,
        `${inBody} should be a multiple of ${String(params['multipleOf'])}`,
      );
    case 'not':
      return fieldErrors.invalid(path, value, `${inBody} must not validate the schema (not)`);
    case 'oneOf':
      return fieldErrors.invalid(
        path,
        value,
        `${inBody} must validate one and only one schema (oneOf)`,
      );
    case 'anyOf':
      return fieldErrors.invalid(
        path,
        value,
        `${inBody} must validate at least one schema (anyOf)`,
      );
    case 'if':
    case 'allOf':
      return undefined; // the failing branch reports itself
    default:
      return fieldErrors.invalid(path, value, `${inBody} ${error.message ?? 'is invalid'}`);
  }
}

/**
 * `pattern` as Go's regexp (RE2) matches it: linear time, so no pattern a CRD declares can hang
 * a write (kube-openapi validates with Go's regexp too).
 */
const re2 = Object.assign((pattern: string) => RE2JS.compile(pattern), {
  code: 'RE2JS.compile',
});

/** Compiles a version schema; a schema ajv cannot compile is an Error naming why. */
export function compileSchema(schema: JSONSchemaProps): SchemaValidator {
  const ajv = new Ajv({
    allErrors: true,
    verbose: true,
    strict: false,
    validateFormats: false,
    code: { regExp: re2 },
  });
  const validateFn: ValidateFunction = ajv.compile(toJsonSchema(schema, true));
  return {
    validate(object) {
      const errors: FieldError[] = [];
      if (!validateFn(object)) {
        for (const e of validateFn.errors ?? []) {
          // A failed anyOf/oneOf is one error, not one per branch.
          if (/\/(anyOf|oneOf|not)\/\d*/.test(e.schemaPath)) continue;
          const fe = toFieldError(e);
          if (fe) errors.push(fe);
        }
      }
      walkExtensions(object, schema, '', errors, 0);
      return errors;
    },
  };
}

const MAX_DEPTH = 10_000;

function childPath(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

/** What JSON Schema cannot say: list-type set/map uniqueness, embedded resources. */
function walkExtensions(
  value: unknown,
  s: JSONSchemaProps,
  path: string,
  errors: FieldError[],
  depth: number,
): void {
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    const listType = s['x-kubernetes-list-type'];
    if (listType === 'set') {
      const seen = new Set<string>();
      value.forEach((item, i) => {
        const key = JSON.stringify(item);
        if (seen.has(key)) errors.push(fieldErrors.duplicate(`${path}[${i}]`, item));
        seen.add(key);
      });
    } else if (listType === 'map' && Array.isArray(s['x-kubernetes-list-map-keys'])) {
      const keys = s['x-kubernetes-list-map-keys'] as string[];
      const seen = new Set<string>();
      value.forEach((item, i) => {
        if (!isRecord(item)) return;
        const key = JSON.stringify(keys.map((k) => item[k] ?? null));
        if (seen.has(key))
          errors.push(
            fieldErrors.duplicate(
              `${path}[${i}]`,
              Object.fromEntries(keys.map((k) => [k, item[k]])),
            ),
          );
        seen.add(key);
      });
    }
    if (isRecord(s['items'])) {
      const items = s['items'];
      for (let i = 0; i < value.length; i++)
        walkExtensions(value[i], items, `${path}[${i}]`, errors, depth + 1);
    }
    return;
  }
  const object = value as Record<string, unknown>;
  if (s['x-kubernetes-embedded-resource'] === true) {
    if (typeof object['apiVersion'] !== 'string' || object['apiVersion'] === '')
      errors.push(fieldErrors.required(childPath(path, 'apiVersion'), 'must not be empty'));
    if (typeof object['kind'] !== 'string' || object['kind'] === '')
      errors.push(fieldErrors.required(childPath(path, 'kind'), 'must not be empty'));
  }
  const properties = isRecord(s['properties']) ? s['properties'] : undefined;
  const additional = isRecord(s['additionalProperties']) ? s['additionalProperties'] : undefined;
  for (const [key, inner] of Object.entries(object)) {
    const child = properties && isRecord(properties[key]) ? properties[key] : additional;
    if (child) walkExtensions(inner, child, childPath(path, key), errors, depth + 1);
  }
}

/** The number of items of a list or properties of an object. */
function sizeOf(value: unknown): number {
  if (Array.isArray(value)) return value.length;
  return isRecord(value) ? Object.keys(value).length : 0;
}
