import { describe, expect, it } from 'vitest';
import { compileSchema } from './schema-validator.js';
import { customResourceRoot } from './schema/builtin.js';
import { applyDefaults as applyStructuralDefaults } from './schema/defaulting.js';
import { prune } from './schema/pruning.js';
import { fromOpenAPI } from './schema/structural.js';
import type { JSONSchemaProps } from './types.js';

// A CRD version's schema as its strategy walks it: rooted, metadata an ObjectMeta.
const applyDefaults = (object: unknown, schema: JSONSchemaProps) =>
  applyStructuralDefaults(object, customResourceRoot(fromOpenAPI(schema)));
const pruneObject = (object: unknown, schema: JSONSchemaProps) =>
  prune(object, customResourceRoot(fromOpenAPI(schema)));

// The compiled validator with kube's extensions (apiextensions-apiserver pkg/apiserver/validation,
// schema/pruning, schema/defaulting), on objects directly.

const schema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        nick: { type: 'string', nullable: true },
        name: { type: 'string' },
        port: { 'x-kubernetes-int-or-string': true },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name', 'protocol'],
          items: {
            type: 'object',
            properties: {
              name: { type: 'string' },
              protocol: { type: 'string', default: 'TCP' },
            },
          },
        },
        template: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          'x-kubernetes-preserve-unknown-fields': true,
        },
        pod: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          properties: { spec: { type: 'object', properties: { image: { type: 'string' } } } },
        },
      },
    },
  },
};

const validate = (spec: unknown) => compileSchema(schema).validate({ spec });

describe('custom object validation (kube-openapi words, kube field paths)', () => {
  it('nullable fields take null; others do not', () => {
    expect(validate({ nick: null })).toEqual([]);
    expect(validate({ name: null })).toEqual([
      {
        type: 'FieldValueTypeInvalid',
        field: 'spec.name',
        badValue: 'null',
        detail: 'spec.name in body must be of type string: "null"',
      },
    ]);
  });

  it('x-kubernetes-int-or-string takes integers and strings only', () => {
    expect(validate({ port: 80 })).toEqual([]);
    expect(validate({ port: 'http' })).toEqual([]);
    expect(validate({ port: 1.5 }).map((e) => e.field)).toEqual(['spec.port']);
  });

  it('list-type map items are unique by their keys, after defaulting', () => {
    const object = {
      spec: {
        ports: [{ name: 'a' }, { name: 'a', protocol: 'TCP' }, { name: 'a', protocol: 'UDP' }],
      },
    };
    applyDefaults(object, schema);
    expect(compileSchema(schema).validate(object)).toEqual([
      {
        type: 'FieldValueDuplicate',
        field: 'spec.ports[1]',
        badValue: { name: 'a', protocol: 'TCP' },
      },
    ]);
  });

  it('embedded resources need apiVersion and kind and keep their metadata when pruned', () => {
    expect(validate({ template: { metadata: { name: 'x' } } }).map((e) => e.field)).toEqual([
      'spec.template.apiVersion',
      'spec.template.kind',
    ]);
    const object = {
      spec: {
        pod: {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'p' },
          spec: { image: 'i', other: 1 },
        },
      },
    };
    expect(pruneObject(object, schema)).toEqual(['spec.pod.spec.other']);
    expect(object.spec.pod).toEqual({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: { image: 'i' },
    });
  });
});
