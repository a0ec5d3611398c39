import type { ApiGroupVersion } from './api-groups.js';
import { SCHEMA_REF_PREFIX, withReferencedSchemas, type Schema } from './openapi-schemas.js';
import {
  groupVersionPaths,
  groupVersionSchemas,
  BEARER_TOKEN,
  gvkObject,
  PATCH_CONSUMES,
  RESPONSE_TYPES,
  type Operation,
  type Parameter,
} from './openapi-paths.js';
import { KUBERNETES_VERSION } from './version.js';

// /openapi/v2: one swagger 2.0 document of every group version (kube-openapi handler).

const DEFINITIONS_PREFIX = '#/definitions/';

/** Rewrites a v3 schema for swagger 2.0: refs into #/definitions, no oneOf. */
function toV2Schema(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toV2Schema);
  if (!value || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  const allOf = (value as { allOf?: unknown }).allOf;
  // A described reference is `$ref` beside the description in kube's v2 documents (Swagger 2.0
  // has no rule against siblings); `allOf: [$ref]` is its v3 form. kubectl's v2 `explain`
  // follows only `$ref`.
  const single =
    Array.isArray(allOf) && allOf.length === 1 && Object.keys(allOf[0] as object).join() === '$ref'
      ? (allOf[0] as { $ref: unknown }).$ref
      : undefined;
  for (const [key, inner] of Object.entries(value)) {
    if (key === 'allOf' && typeof single === 'string') {
      out['$ref'] = single.replace(SCHEMA_REF_PREFIX, DEFINITIONS_PREFIX);
    } else if (key === '$ref' && typeof inner === 'string') {
      out[key] = inner.replace(SCHEMA_REF_PREFIX, DEFINITIONS_PREFIX);
    } else if (key === 'oneOf') {
      // Swagger 2.0 has no oneOf; Quantity is published there as a string, as kube does.
      out['type'] = 'string';
    } else if (key === 'anyOf' || key === 'not' || key === 'nullable') {
      // Nor these, which CRD schemas use: kube's v2 conversion drops them
      // (apiextensions-apiserver pkg/controller/openapi/v2 ToStructuralOpenAPIV2).
      continue;
    } else {
      out[key] = toV2Schema(inner);
    }
  }
  return out;
}

function v2Parameter(p: Parameter): Schema {
  return {
    name: p.name,
    in: p.in,
    description: p.description,
    ...(p.required ? { required: true } : {}),
    type: p.type,
    uniqueItems: true,
  };
}

function v2Operation(op: Operation): Schema {
  const responses: Record<string, Schema> = {};
  for (const r of op.responses) {
    responses[r.code] = {
      description: r.description,
      schema: { $ref: `${DEFINITIONS_PREFIX}${r.schema}` },
    };
  }
  responses['401'] = { description: 'Unauthorized' };
  const body = op.body
    ? [
        {
          name: 'body',
          in: 'body',
          required: true,
          schema: { $ref: `${DEFINITIONS_PREFIX}${op.body}` },
        },
      ]
    : [];
  const params = [...body, ...op.params.map(v2Parameter)];
  return {
    description: op.description,
    consumes: op.patch ? [...PATCH_CONSUMES] : ['*/*'],
    produces: [...RESPONSE_TYPES],
    schemes: ['https'],
    tags: [op.tag],
    operationId: op.operationId,
    ...(params.length ? { parameters: params } : {}),
    responses,
    'x-kubernetes-action': op.action,
    'x-kubernetes-group-version-kind': gvkObject(op.gvk),
  };
}

/** `GET /openapi/v2`: every group/version in one swagger 2.0 document. */
export function openApiV2Document(groupVersions: readonly ApiGroupVersion[]): Schema {
  const items = groupVersions.flatMap(groupVersionPaths);
  const paths: Record<string, Schema> = {};
  for (const item of items) {
    const entry: Schema = {};
    for (const op of item.operations) entry[op.method] = v2Operation(op);
    if (item.params.length) entry['parameters'] = item.params.map(v2Parameter);
    paths[item.path] = entry;
  }
  const schemas = withReferencedSchemas(
    Object.assign({}, ...groupVersions.map(groupVersionSchemas)) as Record<string, Schema>,
    items
      .flatMap((i) => i.operations.flatMap((o) => [o.body, ...o.responses.map((r) => r.schema)]))
      .filter((name): name is string => name !== undefined)
      .map((name) => ({ $ref: `${SCHEMA_REF_PREFIX}${name}` })),
  );
  return {
    swagger: '2.0',
    info: { title: 'Kubernetes', version: KUBERNETES_VERSION.gitVersion },
    paths,
    definitions: toV2Schema(schemas),
    securityDefinitions: { BearerToken: BEARER_TOKEN },
    security: [{ BearerToken: [] }],
  };
}
