import type { ApiGroupVersion } from './api-groups.js';
import { SCHEMA_REF_PREFIX, withReferencedSchemas, type Schema } from './openapi-schemas.js';
import {
  groupVersionPaths,
  groupVersionSchemas,
  BEARER_TOKEN,
  gvkObject,
  PATCH_CONSUMES,
  pathPrefixOf,
  RESPONSE_TYPES,
  type Operation,
  type Parameter,
  type PathItem,
} from './openapi-paths.js';
import { KUBERNETES_VERSION } from './version.js';

// /openapi/v3: an index of one document per group version (kube-openapi handler3).

function v3Parameter(p: Parameter): Schema {
  return {
    name: p.name,
    in: p.in,
    description: p.description,
    ...(p.required ? { required: true } : {}),
    schema: { type: p.type, uniqueItems: true },
  };
}

function v3Content(types: readonly string[], schema: string): Schema {
  return Object.fromEntries(
    types.map((t) => [t, { schema: { $ref: `${SCHEMA_REF_PREFIX}${schema}` } }]),
  );
}

function v3Operation(op: Operation): Schema {
  const responses: Record<string, Schema> = {};
  for (const r of op.responses) {
    responses[r.code] = {
      description: r.description,
      content: v3Content(RESPONSE_TYPES, r.schema),
    };
  }
  responses['401'] = { description: 'Unauthorized' };
  return {
    tags: [op.tag],
    description: op.description,
    operationId: op.operationId,
    ...(op.params.length ? { parameters: op.params.map(v3Parameter) } : {}),
    ...(op.body
      ? {
          requestBody: {
            content: v3Content(op.patch ? PATCH_CONSUMES : ['*/*'], op.body),
            required: true,
          },
        }
      : {}),
    responses,
    'x-kubernetes-action': op.action,
    'x-kubernetes-group-version-kind': gvkObject(op.gvk),
  };
}

function v3Paths(items: PathItem[]): Record<string, Schema> {
  const paths: Record<string, Schema> = {};
  for (const item of items) {
    const entry: Schema = {};
    for (const op of item.operations) entry[op.method] = v3Operation(op);
    if (item.params.length) entry['parameters'] = item.params.map(v3Parameter);
    paths[item.path] = entry;
  }
  return paths;
}

/** The OpenAPI 3.0 document of one group/version (`/openapi/v3/apis/apps/v1`). */
export function openApiV3Document(gv: ApiGroupVersion): Schema {
  const paths = v3Paths(groupVersionPaths(gv));
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: KUBERNETES_VERSION.gitVersion },
    paths,
    components: {
      schemas: withReferencedSchemas(groupVersionSchemas(gv), paths),
      securitySchemes: { BearerToken: BEARER_TOKEN },
    },
  };
}

/** The key of a group/version in the v3 index: `api/v1`, `apis/apps/v1`. */
export function openApiV3Key(gv: { group: string; version: string }): string {
  return pathPrefixOf(gv).slice(1);
}

/** `GET /openapi/v3`: where each group/version's document lives, its hash in the URL. */
export function openApiV3Index(documents: readonly { key: string; etag: string }[]): {
  paths: Record<string, { serverRelativeURL: string }>;
} {
  const sorted = [...documents].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return {
    paths: Object.fromEntries(
      sorted.map((d) => [d.key, { serverRelativeURL: `/openapi/v3/${d.key}?hash=${d.etag}` }]),
    ),
  };
}
