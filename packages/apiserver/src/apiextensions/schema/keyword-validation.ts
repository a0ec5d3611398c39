import { fieldErrors, isRecord, type FieldError } from '@listwatch/api';
import { RE2JS } from 're2js';
import { type JSONSchemaProps } from '../types.js';

// The keyword rules of a CRD schema node (apiextensions-apiserver
// pkg/apis/apiextensions/validation/validation.go): the Go types keywords decode into,
// x-kubernetes-list-type/-list-map-keys/-map-type, and patterns (RE2, as Go's regexp).

function child(path: string, key: string): string {
  return `${path}.${key}`;
}

function typeOf(s: JSONSchemaProps): string {
  return typeof s['type'] === 'string' ? s['type'] : '';
}

/** Value types of the keywords kube decodes into typed Go fields. */
export function checkTypes(s: JSONSchemaProps, path: string, errors: FieldError[]): void {
  const expect = (key: string, ok: (v: unknown) => boolean, what: string) => {
    const v = s[key];
    if (v !== undefined && !ok(v))
      errors.push(fieldErrors.invalid(child(path, key), v, `must be ${what}`));
  };
  const isString = (v: unknown) => typeof v === 'string';
  const isBool = (v: unknown) => typeof v === 'boolean';
  const isNumber = (v: unknown) => typeof v === 'number' && Number.isFinite(v);
  const isCount = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;
  const isStrings = (v: unknown) => Array.isArray(v) && v.every(isString);
  for (const key of [
    'description',
    'format',
    'title',
    'pattern',
    'x-kubernetes-list-type',
    'x-kubernetes-map-type',
  ])
    expect(key, isString, 'a string');
  for (const key of [
    'nullable',
    'exclusiveMaximum',
    'exclusiveMinimum',
    'x-kubernetes-embedded-resource',
    'x-kubernetes-int-or-string',
  ])
    expect(key, isBool, 'a boolean');
  for (const key of ['maximum', 'minimum', 'multipleOf']) expect(key, isNumber, 'a number');
  for (const key of [
    'maxLength',
    'minLength',
    'maxItems',
    'minItems',
    'maxProperties',
    'minProperties',
  ])
    expect(key, isCount, 'a non-negative integer');
  expect('required', isStrings, 'a list of strings');
  expect('x-kubernetes-list-map-keys', isStrings, 'a list of strings');
  expect('enum', Array.isArray, 'a list');
  expect('x-kubernetes-validations', Array.isArray, 'a list');
  if (
    s['multipleOf'] !== undefined &&
    isNumber(s['multipleOf']) &&
    (s['multipleOf'] as number) <= 0
  )
    errors.push(
      fieldErrors.invalid(child(path, 'multipleOf'), s['multipleOf'], 'must be greater than zero'),
    );
}

/** validation.go: x-kubernetes-map-type, -list-type and -list-map-keys. */
export function checkListAndMapTypes(s: JSONSchemaProps, path: string, errors: FieldError[]): void {
  const type = typeOf(s);
  const mapType = s['x-kubernetes-map-type'];
  if (typeof mapType === 'string') {
    if (type === '')
      errors.push(
        fieldErrors.required(
          child(path, 'type'),
          'must be object if x-kubernetes-map-type is specified',
        ),
      );
    else if (type !== 'object')
      errors.push(
        fieldErrors.invalid(
          child(path, 'type'),
          type,
          'must be object if x-kubernetes-map-type is specified',
        ),
      );
    if (mapType !== 'atomic' && mapType !== 'granular')
      errors.push(
        fieldErrors.notSupported(child(path, 'x-kubernetes-map-type'), mapType, [
          'atomic',
          'granular',
        ]),
      );
  }
  const listType = s['x-kubernetes-list-type'];
  const keys = s['x-kubernetes-list-map-keys'];
  if (typeof listType === 'string') {
    if (type === '')
      errors.push(
        fieldErrors.required(
          child(path, 'type'),
          'must be array if x-kubernetes-list-type is specified',
        ),
      );
    else if (type !== 'array')
      errors.push(
        fieldErrors.invalid(
          child(path, 'type'),
          type,
          'must be array if x-kubernetes-list-type is specified',
        ),
      );
    if (!['atomic', 'set', 'map'].includes(listType))
      errors.push(
        fieldErrors.notSupported(child(path, 'x-kubernetes-list-type'), listType, [
          'atomic',
          'set',
          'map',
        ]),
      );
    const items = s['items'];
    if (
      listType === 'set' &&
      isRecord(items) &&
      (typeOf(items) === 'object' || typeOf(items) === 'array')
    ) {
      errors.push(
        fieldErrors.invalid(
          child(child(path, 'items'), 'x-kubernetes-list-type'),
          listType,
          'must be atomic as item of a list with x-kubernetes-list-type=set',
        ),
      );
    }
  }
  if (Array.isArray(keys) && keys.length > 0) {
    if (listType === undefined)
      errors.push(
        fieldErrors.required(
          child(path, 'x-kubernetes-list-type'),
          'must be map if x-kubernetes-list-map-keys is non-empty',
        ),
      );
    else if (listType !== 'map')
      errors.push(
        fieldErrors.invalid(
          child(path, 'x-kubernetes-list-type'),
          listType,
          'must be map if x-kubernetes-list-map-keys is non-empty',
        ),
      );
  }
  if (listType === 'map') {
    if (!Array.isArray(keys) || keys.length === 0) {
      errors.push(
        fieldErrors.required(
          child(path, 'x-kubernetes-list-map-keys'),
          'must not be empty if x-kubernetes-list-type is map',
        ),
      );
    }
    const items = s['items'];
    if (!isRecord(items)) {
      errors.push(
        fieldErrors.required(
          child(path, 'items'),
          'must have a schema if x-kubernetes-list-type is map',
        ),
      );
    } else if (typeOf(items) !== 'object') {
      errors.push(
        fieldErrors.invalid(
          child(child(path, 'items'), 'type'),
          items['type'],
          "must be object if parent array's x-kubernetes-list-type is map",
        ),
      );
    } else if (Array.isArray(keys)) {
      const props = isRecord(items['properties']) ? items['properties'] : {};
      if (!keys.every((k) => typeof k === 'string' && Object.hasOwn(props, k))) {
        errors.push(
          fieldErrors.invalid(
            child(path, 'x-kubernetes-list-map-keys'),
            keys,
            'entries must all be names of item properties',
          ),
        );
      }
      if (new Set(keys).size !== keys.length) {
        errors.push(
          fieldErrors.invalid(
            child(path, 'x-kubernetes-list-map-keys'),
            keys,
            'must not contain duplicate entries',
          ),
        );
      }
    }
  }
}

export function checkPattern(s: JSONSchemaProps, path: string, errors: FieldError[]): void {
  const pattern = s['pattern'];
  if (typeof pattern !== 'string') return;
  try {
    RE2JS.compile(pattern);
  } catch (err) {
    errors.push(
      fieldErrors.invalid(
        child(path, 'pattern'),
        pattern,
        `must be a valid regular expression, but isn't: ${(err as Error).message}`,
      ),
    );
  }
}
