import { fieldErrorMessage } from '@listwatch/api';
import { describe, expect, it } from 'vitest';
import { validateOpenAPISchema } from './validation.js';

// Structural-schema rules (apiextensions-apiserver pkg/apiserver/schema/validation.go) and CRD
// schema checks (pkg/apis/apiextensions/validation/validation.go), in kube's words and paths.

const at = 'spec.versions[0].schema.openAPIV3Schema';
const messages = (schema: unknown, options = {}) =>
  validateOpenAPISchema(schema, at, options).map(fieldErrorMessage);

describe('structural schemas', () => {
  it('a root that is not an object, or has additionalProperties, is refused', () => {
    expect(messages({ type: 'string' })).toEqual([
      `${at}.type: Invalid value: "string": must be object at the root`,
    ]);
    expect(messages({ type: 'object', additionalProperties: { type: 'string' } })).toEqual([
      `${at}.additionalProperties: Forbidden: must not be used at the root`,
    ]);
  });

  it('every specified field has a type; arrays have items', () => {
    expect(
      messages({ type: 'object', properties: { spec: { properties: { a: { type: 'array' } } } } }),
    ).toEqual([
      `${at}.properties[spec].type: Required value: must not be empty for specified object fields`,
      `${at}.properties[spec].properties[a].items: Required value: must be specified`,
    ]);
    expect(messages({ type: 'object', properties: { x: { type: 'strin' } } })).toEqual([
      `${at}.properties[x].type: Unsupported value: "strin": supported values: "array", "boolean", "integer", "number", "object", "string"`,
    ]);
  });

  it('value validations only inside allOf, anyOf, oneOf and not', () => {
    expect(
      messages({
        type: 'object',
        properties: {
          a: { type: 'string', anyOf: [{ type: 'string', description: 'x' }, { pattern: '^a' }] },
        },
      }),
    ).toEqual([
      `${at}.properties[a].anyOf[0].type: Forbidden: must be empty to be structural`,
      `${at}.properties[a].anyOf[0].description: Forbidden: must be empty to be structural`,
    ]);
  });

  it('metadata at the root may only restrict name and generateName', () => {
    expect(
      messages({
        type: 'object',
        properties: { metadata: { type: 'object', properties: { labels: { type: 'object' } } } },
      }),
    ).toEqual([
      `${at}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`,
    ]);
    expect(
      messages({
        type: 'object',
        properties: {
          metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 10 } } },
        },
      }),
    ).toEqual([]);
  });

  it('list-type map needs object items with scalar keys among their properties; patterns are RE2', () => {
    expect(
      messages({
        type: 'object',
        properties: {
          l: {
            type: 'array',
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['k'],
            items: { type: 'object', properties: { j: { type: 'string' } } },
          },
          p: { type: 'string', pattern: '(?<=a)b' },
        },
      }),
    ).toEqual([
      `${at}.properties[l].x-kubernetes-list-map-keys: Invalid value: ["k"]: entries must all be names of item properties`,
      `${at}.properties[p].pattern: Invalid value: "(?<=a)b": must be a valid regular expression, but isn't: error parsing regexp: invalid named capture: \`(?<=a)b\``,
    ]);
  });

  it('with a status subresource only some fields are allowed at the root', () => {
    expect(
      messages({ type: 'object', description: 'd', minProperties: 1 }, { statusSubresource: true }),
    ).toEqual([
      `${at}: Invalid value: "": only [description type properties required x-kubernetes-preserve-unknown-fields x-kubernetes-validations] fields are allowed at the root of the schema if the status subresource is enabled`,
    ]);
  });

  it('schemas nested past the limit are refused without recursing further', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 5000; i++) deep = { type: 'object', properties: { a: deep } };
    const errors = validateOpenAPISchema(deep, at);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.detail).toBe('must not be nested more than 64 levels');
  });
});
