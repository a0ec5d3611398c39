import type { KubeObject } from '@listwatch/api';
import { pruneObjectMeta } from '../registry/field-validation.js';
import { SCHEMA_KEYS } from './structural-schema.js';
import { isRecord } from './types.js';

// The fields of apiextensions.k8s.io/v1 CustomResourceDefinition (types.go, types_jsonschema.go),
// for server-side field validation: kube decodes a CRD into its Go structs, so an unknown field
// anywhere — a typo in a schema keyword included — is dropped, warned about or refused
// (fieldValidation), like a built-in's.

type Shape =
  | { kind: 'struct'; fields: Readonly<Record<string, Shape>> }
  | { kind: 'list'; items: Shape }
  | { kind: 'map'; values: Shape }
  | { kind: 'schema' }
  | { kind: 'any' };

const any: Shape = { kind: 'any' };
const struct = (fields: Record<string, Shape>): Shape => ({ kind: 'struct', fields });
const list = (items: Shape): Shape => ({ kind: 'list', items });
const schema: Shape = { kind: 'schema' };

const names = struct({
  plural: any,
  singular: any,
  shortNames: any,
  kind: any,
  listKind: any,
  categories: any,
});

const version = struct({
  name: any,
  served: any,
  storage: any,
  deprecated: any,
  deprecationWarning: any,
  schema: struct({ openAPIV3Schema: schema }),
  subresources: struct({
    status: any,
    scale: struct({ specReplicasPath: any, statusReplicasPath: any, labelSelectorPath: any }),
  }),
  additionalPrinterColumns: list(
    struct({ name: any, type: any, format: any, description: any, priority: any, jsonPath: any }),
  ),
  selectableFields: list(struct({ jsonPath: any })),
});

const webhookClientConfig = struct({
  url: any,
  service: struct({ namespace: any, name: any, path: any, port: any }),
  caBundle: any,
});

const SPEC = struct({
  group: any,
  names,
  scope: any,
  versions: list(version),
  conversion: struct({
    strategy: any,
    webhook: struct({ clientConfig: webhookClientConfig, conversionReviewVersions: any }),
  }),
  preserveUnknownFields: any,
});

const STATUS = struct({
  conditions: list(
    struct({
      type: any,
      status: any,
      lastTransitionTime: any,
      reason: any,
      message: any,
      observedGeneration: any,
    }),
  ),
  acceptedNames: names,
  storedVersions: any,
});

const SCHEMA_CHILDREN = ['items', 'additionalProperties', 'not', 'additionalItems'];
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf'];
const SCHEMA_MAPS = ['properties', 'patternProperties', 'definitions', 'dependencies'];

function prune(value: unknown, shape: Shape, path: string, unknown: string[], depth: number): void {
  if (depth > 1000) return;
  const at = (key: string) => (path ? `${path}.${key}` : key);
  if (shape.kind === 'list') {
    if (Array.isArray(value))
      value.forEach((v, i) => prune(v, shape.items, `${path}[${i}]`, unknown, depth + 1));
  } else if (shape.kind === 'map') {
    if (isRecord(value))
      for (const key of Object.keys(value))
        prune(value[key], shape.values, at(key), unknown, depth + 1);
  } else if (shape.kind === 'struct') {
    if (!isRecord(value)) return;
    for (const key of Object.keys(value)) {
      const field = shape.fields[key];
      if (field) prune(value[key], field, at(key), unknown, depth + 1);
      else {
        unknown.push(at(key));
        delete value[key];
      }
    }
  } else if (shape.kind === 'schema') {
    if (!isRecord(value)) return;
    for (const key of Object.keys(value)) {
      const inner = value[key];
      if (!SCHEMA_KEYS.has(key)) {
        unknown.push(at(key));
        delete value[key];
      } else if (SCHEMA_CHILDREN.includes(key)) prune(inner, schema, at(key), unknown, depth + 1);
      else if (SCHEMA_LISTS.includes(key)) prune(inner, list(schema), at(key), unknown, depth + 1);
      else if (SCHEMA_MAPS.includes(key))
        prune(inner, { kind: 'map', values: schema }, at(key), unknown, depth + 1);
    }
  }
}

/** Drops the fields a CRD's spec and status do not have; returns their paths. */
export function pruneCustomResourceDefinition(object: KubeObject): string[] {
  const unknown = pruneObjectMeta(object);
  for (const key of Object.keys(object)) {
    if (key === 'spec') prune(object[key], SPEC, 'spec', unknown, 0);
    else if (key === 'status') prune(object[key], STATUS, 'status', unknown, 0);
    else if (!['apiVersion', 'kind', 'metadata'].includes(key)) {
      unknown.push(key);
      delete object[key];
    }
  }
  return unknown;
}
