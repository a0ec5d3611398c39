import { fieldErrors, isRecord, type FieldError } from '@listwatch/api';
import { type JSONSchemaProps } from '../types.js';
import { checkListAndMapTypes, checkPattern, checkTypes } from './keyword-validation.js';

// What an openAPIV3Schema must be for a CRD to be accepted: kube's CRD schema validation
// (apiextensions-apiserver pkg/apis/apiextensions/validation/validation.go
// ValidateCustomResourceDefinitionOpenAPISchema) and the structural-schema rules
// (pkg/apiserver/schema/structural.go, validation.go validateStructuralInvariants and
// validateValueValidation). Field paths are kube's: `properties[spec].type`.

const TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'] as const;
const JUNCTORS = ['allOf', 'anyOf', 'oneOf'] as const;
/** JSON-Schema keywords kube's JSONSchemaProps has no room for or forbids in CRDs. */
const FORBIDDEN = [
  '$ref',
  '$schema',
  'definitions',
  'dependencies',
  'patternProperties',
  'additionalItems',
  'id',
] as const;
/** Keys a JSONSchemaProps has (types_jsonschema.go): anything else is an unknown field. */
export const SCHEMA_KEYS = new Set([
  'id',
  '$schema',
  '$ref',
  'description',
  'type',
  'format',
  'title',
  'default',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'multipleOf',
  'enum',
  'maxProperties',
  'minProperties',
  'required',
  'items',
  'allOf',
  'oneOf',
  'anyOf',
  'not',
  'properties',
  'additionalProperties',
  'patternProperties',
  'dependencies',
  'additionalItems',
  'definitions',
  'externalDocs',
  'example',
  'nullable',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-int-or-string',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-list-type',
  'x-kubernetes-map-type',
  'x-kubernetes-validations',
]);
/** Nesting beyond this is refused before anything recurses into it. */
export const MAX_SCHEMA_DEPTH = 64;

type Ctx = 'root' | 'property' | 'items' | 'additionalProperties' | 'junctor';

function child(path: string, key: string): string {
  return `${path}.${key}`;
}

function keyed(path: string, key: string, name: string): string {
  return `${path}.${key}[${name}]`;
}

/**
 * Every problem with one version's openAPIV3Schema at `path`
 * (`spec.versions[0].schema.openAPIV3Schema`), or none. Never throws, whatever it is given.
 */
export function validateOpenAPISchema(
  schema: unknown,
  path: string,
  options: { statusSubresource?: boolean } = {},
): FieldError[] {
  const errors: FieldError[] = [];
  if (!isRecord(schema)) return [fieldErrors.invalid(path, '', 'must be an object')];
  walk(schema, path, 'root', 0, errors);
  if (options.statusSubresource && isRecord(schema)) {
    // validation.go: with a status subresource only these fields may be at the root.
    const allowed = [
      'description',
      'type',
      'properties',
      'required',
      'x-kubernetes-preserve-unknown-fields',
      'x-kubernetes-validations',
    ];
    const extra = Object.keys(schema).filter((k) => !allowed.includes(k));
    if (extra.length) {
      errors.push(
        fieldErrors.invalid(
          path,
          '',
          `only [${allowed.join(' ')}] fields are allowed at the root of the schema if the status subresource is enabled`,
        ),
      );
    }
  }
  if (schema['nullable'] === true)
    errors.push(
      fieldErrors.forbidden(child(path, 'nullable'), 'nullable cannot be true at the root'),
    );
  return errors;
}

function typeOf(s: JSONSchemaProps): string {
  return typeof s['type'] === 'string' ? s['type'] : '';
}

function walk(
  s: JSONSchemaProps,
  path: string,
  ctx: Ctx,
  depth: number,
  errors: FieldError[],
): void {
  if (depth > MAX_SCHEMA_DEPTH) {
    errors.push(
      fieldErrors.forbidden(path, `must not be nested more than ${MAX_SCHEMA_DEPTH} levels`),
    );
    return;
  }
  for (const key of Object.keys(s)) {
    if (!SCHEMA_KEYS.has(key))
      errors.push(fieldErrors.forbidden(child(path, key), 'unknown field'));
  }
  for (const key of FORBIDDEN) {
    if (s[key] !== undefined)
      errors.push(fieldErrors.forbidden(child(path, key), `${key} is not supported`));
  }
  const type = s['type'];
  if (
    type !== undefined &&
    (typeof type !== 'string' || !(TYPES as readonly string[]).includes(type))
  ) {
    errors.push(fieldErrors.notSupported(child(path, 'type'), type, TYPES));
  }
  if (s['uniqueItems'] === true) {
    errors.push(
      fieldErrors.forbidden(
        child(path, 'uniqueItems'),
        'uniqueItems cannot be set to true since the runtime complexity becomes quadratic',
      ),
    );
  }
  const preserve = s['x-kubernetes-preserve-unknown-fields'];
  if (preserve !== undefined && preserve !== true) {
    errors.push(
      fieldErrors.invalid(
        child(path, 'x-kubernetes-preserve-unknown-fields'),
        preserve,
        'must be true or undefined',
      ),
    );
  }
  checkTypes(s, path, errors);
  if (ctx === 'junctor') {
    junctorInvariants(s, path, errors);
  } else {
    structuralInvariants(s, path, ctx, errors);
  }
  checkListAndMapTypes(s, path, errors);
  checkPattern(s, path, errors);
  // Children.
  const properties = s['properties'];
  if (properties !== undefined) {
    if (!isRecord(properties))
      errors.push(fieldErrors.invalid(child(path, 'properties'), '', 'must be an object'));
    else {
      if (s['additionalProperties'] !== undefined && s['additionalProperties'] !== false) {
        errors.push(
          fieldErrors.forbidden(
            child(path, 'additionalProperties'),
            'additionalProperties and properties are mutual exclusive',
          ),
        );
      }
      for (const [name, prop] of Object.entries(properties)) {
        const at = keyed(path, 'properties', name);
        if (!isRecord(prop)) errors.push(fieldErrors.invalid(at, '', 'must be an object'));
        else walk(prop, at, ctx === 'junctor' ? 'junctor' : 'property', depth + 1, errors);
        if (ctx === 'root' && name === 'metadata' && isRecord(prop))
          metadataAtRoot(prop, at, errors);
      }
    }
  }
  const items = s['items'];
  if (items !== undefined) {
    if (!isRecord(items))
      errors.push(
        fieldErrors.forbidden(
          child(path, 'items'),
          'items must be a schema object and not an array',
        ),
      );
    else
      walk(items, child(path, 'items'), ctx === 'junctor' ? 'junctor' : 'items', depth + 1, errors);
  }
  const additional = s['additionalProperties'];
  if (additional !== undefined && typeof additional !== 'boolean') {
    if (!isRecord(additional))
      errors.push(
        fieldErrors.invalid(
          child(path, 'additionalProperties'),
          '',
          'must be a schema or a boolean',
        ),
      );
    else
      walk(
        additional,
        child(path, 'additionalProperties'),
        ctx === 'junctor' ? 'junctor' : 'additionalProperties',
        depth + 1,
        errors,
      );
  }
  if (additional === false && properties === undefined) {
    errors.push(
      fieldErrors.forbidden(
        child(path, 'additionalProperties'),
        'must not be false; use properties instead',
      ),
    );
  }
  for (const junctor of JUNCTORS) {
    const list = s[junctor];
    if (list === undefined) continue;
    if (!Array.isArray(list)) {
      errors.push(fieldErrors.invalid(child(path, junctor), '', 'must be a list of schemas'));
      continue;
    }
    list.forEach((inner: unknown, i) => {
      const at = `${child(path, junctor)}[${i}]`;
      if (!isRecord(inner)) errors.push(fieldErrors.invalid(at, '', 'must be an object'));
      else walk(inner, at, 'junctor', depth + 1, errors);
    });
  }
  const not = s['not'];
  if (not !== undefined) {
    if (!isRecord(not))
      errors.push(fieldErrors.invalid(child(path, 'not'), '', 'must be an object'));
    else walk(not, child(path, 'not'), 'junctor', depth + 1, errors);
  }
}

/** structural.go: a node outside junctors says what it is. */
function structuralInvariants(
  s: JSONSchemaProps,
  path: string,
  ctx: Ctx,
  errors: FieldError[],
): void {
  const type = typeOf(s);
  const intOrString = s['x-kubernetes-int-or-string'] === true;
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  if (type === 'array' && s['items'] === undefined) {
    errors.push(fieldErrors.required(child(path, 'items'), 'must be specified'));
  }
  if (intOrString) {
    if (preserve)
      errors.push(
        fieldErrors.invalid(
          child(path, 'x-kubernetes-preserve-unknown-fields'),
          true,
          'must be false if x-kubernetes-int-or-string is true',
        ),
      );
    if (embedded)
      errors.push(
        fieldErrors.invalid(
          child(path, 'x-kubernetes-embedded-resource'),
          true,
          'must be false if x-kubernetes-int-or-string is true',
        ),
      );
  }
  if (embedded) {
    if (type === '')
      errors.push(
        fieldErrors.required(
          child(path, 'type'),
          'must be object if x-kubernetes-embedded-resource is true',
        ),
      );
    else if (type !== 'object')
      errors.push(
        fieldErrors.invalid(
          child(path, 'type'),
          type,
          'must be object if x-kubernetes-embedded-resource is true',
        ),
      );
    if (s['additionalProperties'] !== undefined)
      errors.push(
        fieldErrors.forbidden(
          child(path, 'additionalProperties'),
          'must not be used if x-kubernetes-embedded-resource is set',
        ),
      );
    if (!preserve && !isRecord(s['properties']))
      errors.push(
        fieldErrors.required(
          child(path, 'properties'),
          'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields',
        ),
      );
  } else if (type === '' && !intOrString && !preserve) {
    if (ctx === 'root')
      errors.push(fieldErrors.required(child(path, 'type'), 'must not be empty at the root'));
    else if (ctx === 'items')
      errors.push(
        fieldErrors.required(child(path, 'type'), 'must not be empty for specified array items'),
      );
    else
      errors.push(
        fieldErrors.required(child(path, 'type'), 'must not be empty for specified object fields'),
      );
  }
  if (ctx === 'root') {
    if (type !== '' && type !== 'object')
      errors.push(fieldErrors.invalid(child(path, 'type'), type, 'must be object at the root'));
    if (s['additionalProperties'] !== undefined)
      errors.push(
        fieldErrors.forbidden(child(path, 'additionalProperties'), 'must not be used at the root'),
      );
  }
  if (intOrString && type !== '') {
    errors.push(
      fieldErrors.forbidden(
        child(path, 'type'),
        'must be empty if x-kubernetes-int-or-string is true',
      ),
    );
  }
}

/** validation.go validateValueValidation: inside allOf/anyOf/oneOf/not only value checks. */
function junctorInvariants(s: JSONSchemaProps, path: string, errors: FieldError[]): void {
  const empty: [string, string][] = [
    ['type', 'must be empty to be structural'],
    ['additionalProperties', 'must be undefined to be structural'],
    ['default', 'must be undefined to be structural'],
    ['title', 'must be empty to be structural'],
    ['description', 'must be empty to be structural'],
    ['nullable', 'must be false to be structural'],
    ['x-kubernetes-preserve-unknown-fields', 'must be false to be structural'],
    ['x-kubernetes-embedded-resource', 'must be false to be structural'],
    ['x-kubernetes-int-or-string', 'must be false to be structural'],
    ['x-kubernetes-list-map-keys', 'must be empty to be structural'],
    ['x-kubernetes-list-type', 'must be undefined to be structural'],
    ['x-kubernetes-map-type', 'must be undefined to be structural'],
    ['x-kubernetes-validations', 'must be empty to be structural'],
  ];
  for (const [key, detail] of empty) {
    const v = s[key];
    if (v !== undefined && v !== false && !(Array.isArray(v) && v.length === 0) && v !== '') {
      errors.push(fieldErrors.forbidden(child(path, key), detail));
    }
  }
}

/** validation.go: metadata at the root may only restrict name and generateName. */
function metadataAtRoot(s: JSONSchemaProps, path: string, errors: FieldError[]): void {
  const props = isRecord(s['properties']) ? Object.keys(s['properties']) : [];
  const allowed = ['type', 'properties', 'description'];
  if (
    props.some((p) => p !== 'name' && p !== 'generateName') ||
    Object.keys(s).some((k) => !allowed.includes(k)) ||
    (s['type'] !== undefined && s['type'] !== 'object')
  ) {
    errors.push(
      fieldErrors.forbidden(
        path,
        'must not specify anything other than name and generateName, but metadata is implicitly specified',
      ),
    );
  }
}
