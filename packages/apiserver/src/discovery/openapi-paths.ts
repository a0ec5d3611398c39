import { PATCH_CONTENT_TYPES, type ResourceDefinition } from '@listwatch/api';
import type { ApiGroupVersion } from './api-groups.js';
import { kindSchema, listSchema, META, schemaNameOf, type Schema } from './openapi-schemas.js';
import {
  discoveredSubresources,
  subresourceInfo,
  type DiscoveredRoutes,
  type GroupVersionKind,
  type SubresourceInfo,
} from './subresources.js';

// The paths and operations of a group version's OpenAPI documents (kube-openapi's builder, as
// endpoints/installer.go registers each route), shared by openapi-v3.ts and openapi-v2.ts.
//
// The OpenAPI documents kubectl reads: /openapi/v3 (an index of one document per group/version)
// and /openapi/v2 (one swagger 2.0 document). kubectl 1.32 uses v3 to decide where validation
// happens (cli-runtime resource/query_param_verifier_v3.go: a PATCH operation carrying the
// GVK's x-kubernetes-group-version-kind and a `fieldValidation` parameter means the server
// validates, so kubectl sends fieldValidation=Strict and skips client-side schema checks), for
// strategic merge patch metadata in `kubectl apply` (apply/patcher.go) and for `kubectl explain`.

export type Action = 'get' | 'list' | 'post' | 'put' | 'patch' | 'delete' | 'deletecollection';
export type Method = 'get' | 'put' | 'post' | 'delete' | 'patch';

export interface Parameter {
  name: string;
  in: 'query' | 'path';
  description: string;
  type: 'string' | 'boolean' | 'integer';
  required?: boolean;
}

export interface Operation {
  method: Method;
  operationId: string;
  description: string;
  tag: string;
  action: Action;
  gvk: GroupVersionKind;
  params: Parameter[];
  /** Component name of the request body. */
  body?: string;
  /** A PATCH: the body is a Patch in one of the patch media types. */
  patch?: boolean;
  responses: { code: string; description: string; schema: string }[];
}

export interface PathItem {
  path: string;
  params: Parameter[];
  operations: Operation[];
}

const q = (name: string, type: Parameter['type'], description: string): Parameter => ({
  name,
  in: 'query',
  description,
  type,
});

const PRETTY = q('pretty', 'string', "If 'true', then the output is pretty printed.");
const NAMESPACE: Parameter = {
  name: 'namespace',
  in: 'path',
  required: true,
  type: 'string',
  description: 'object name and auth scope, such as for teams and projects',
};
const nameParam = (kind: string): Parameter => ({
  name: 'name',
  in: 'path',
  required: true,
  type: 'string',
  description: `name of the ${kind}`,
});

const DRY_RUN = q(
  'dryRun',
  'string',
  'When present, indicates that modifications should not be persisted. Valid values are: - All: all dry run stages will be processed',
);
const FIELD_MANAGER = q(
  'fieldManager',
  'string',
  'fieldManager is a name associated with the actor or entity that is making these changes.',
);
/** The parameter whose presence tells kubectl that the server validates fields. */
const FIELD_VALIDATION = q(
  'fieldValidation',
  'string',
  'fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: - Ignore: silently drop them. - Warn: send a warning for each one. - Strict: fail the request with a BadRequest error listing them.',
);
const FORCE = q(
  'force',
  'boolean',
  'Force is going to "force" Apply requests. It means user will re-acquire conflicting fields owned by other people.',
);
const LIST_PARAMS: Parameter[] = [
  q(
    'allowWatchBookmarks',
    'boolean',
    'allowWatchBookmarks requests watch events with type "BOOKMARK".',
  ),
  q(
    'continue',
    'string',
    'The continue option should be set when retrieving more results from the server.',
  ),
  q(
    'fieldSelector',
    'string',
    'A selector to restrict the list of returned objects by their fields. Defaults to everything.',
  ),
  q(
    'labelSelector',
    'string',
    'A selector to restrict the list of returned objects by their labels. Defaults to everything.',
  ),
  q('limit', 'integer', 'limit is a maximum number of responses to return for a list call.'),
  q(
    'resourceVersion',
    'string',
    'resourceVersion sets a constraint on what resource versions a request may be served from.',
  ),
  q(
    'resourceVersionMatch',
    'string',
    'resourceVersionMatch determines how resourceVersion is applied to list calls.',
  ),
  q(
    'sendInitialEvents',
    'boolean',
    '`sendInitialEvents=true` may be set together with `watch=true`: the watch stream begins with synthetic events for the current state.',
  ),
  q('timeoutSeconds', 'integer', 'Timeout for the list/watch call.'),
  q(
    'watch',
    'boolean',
    'Watch for changes to the described resources and return them as a stream of add, update, and remove notifications.',
  ),
];
const DELETE_PARAMS: Parameter[] = [
  DRY_RUN,
  q(
    'gracePeriodSeconds',
    'integer',
    'The duration in seconds before the object should be deleted.',
  ),
  q(
    'ignoreStoreReadErrorWithClusterBreakingPotential',
    'boolean',
    'if set to true, it will trigger an unsafe deletion of the resource in case the normal deletion flow fails with a corrupt object error.',
  ),
  q('orphanDependents', 'boolean', 'Deprecated: please use the PropagationPolicy.'),
  q(
    'propagationPolicy',
    'string',
    'Whether and how garbage collection will be performed: Orphan, Background or Foreground.',
  ),
];
const WRITE_PARAMS: Parameter[] = [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION];
const PATCH_PARAMS: Parameter[] = [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION, FORCE];

/** The media types kube-apiserver accepts for PATCH, in name order as its OpenAPI lists them. */
export const PATCH_CONSUMES: readonly string[] = Object.values(PATCH_CONTENT_TYPES).sort();
export const RESPONSE_TYPES = ['application/json', 'application/yaml'] as const;

const STATUS = `${META}.Status`;
const DELETE_OPTIONS = `${META}.DeleteOptions`;
const PATCH = `${META}.Patch`;

function camel(text: string): string {
  return text
    .split(/[.-]/)
    .filter(Boolean)
    .map((part) => part[0]?.toUpperCase() + part.slice(1))
    .join('');
}

/** `Core`, `Apps`, `Coordination` (kube drops `.k8s.io`), `ExampleCom`. */
function groupCamel(group: string): string {
  return group === '' ? 'Core' : camel(group.replace(/\.k8s\.io$/, ''));
}

/** `core_v1`, `apps_v1`, `coordination_v1`: the tag kube gives a group/version's operations. */
function tagOf(gv: { group: string; version: string }): string {
  const name = gv.group === '' ? 'core' : gv.group.replace(/\.k8s\.io$/, '');
  const tagGroup = name
    .split(/[.-]/)
    .map((p, i) => (i === 0 ? p : camel(p)))
    .join('');
  return `${tagGroup}_${gv.version}`;
}

export function pathPrefixOf(gv: { group: string; version: string }): string {
  return gv.group === '' ? `/api/${gv.version}` : `/apis/${gv.group}/${gv.version}`;
}

function ok(schema: string, ...codes: string[]): Operation['responses'] {
  const text: Record<string, string> = { '200': 'OK', '201': 'Created', '202': 'Accepted' };
  return codes.map((code) => ({ code, description: text[code] ?? code, schema }));
}

/**
 * The paths and operations of one resource, as kube's installer.go registers them: for the
 * verbs routed there (`routes`, as discovery lists them).
 */
function resourcePaths(def: ResourceDefinition, routes: DiscoveredRoutes): PathItem[] {
  const gvk: GroupVersionKind = { group: def.group, version: def.version, kind: def.kind };
  const id = `${groupCamel(def.group)}${camel(def.version)}`;
  const scoped = def.namespaced ? 'Namespaced' : '';
  const kindName = schemaNameOf(gvk);
  const listName = schemaNameOf({ ...gvk, kind: def.listKind });
  const tag = tagOf(def);
  const has = (verb: string) => routes.verbs.some((v) => v === verb);
  const prefix = pathPrefixOf(def);
  const collectionPath = def.namespaced
    ? `${prefix}/namespaces/{namespace}/${def.plural}`
    : `${prefix}/${def.plural}`;
  const scopeParams = def.namespaced ? [NAMESPACE] : [];
  const base = { tag, gvk };
  const items: PathItem[] = [];

  const collection: Operation[] = [];
  if (has('list')) {
    collection.push({
      ...base,
      method: 'get',
      action: 'list',
      operationId: `list${id}${scoped}${def.kind}`,
      description: `list or watch objects of kind ${def.kind}`,
      params: LIST_PARAMS,
      responses: ok(listName, '200'),
    });
  }
  if (has('create')) {
    collection.push({
      ...base,
      method: 'post',
      action: 'post',
      operationId: `create${id}${scoped}${def.kind}`,
      description: `create a ${def.kind}`,
      params: WRITE_PARAMS,
      body: kindName,
      responses: ok(kindName, '200', '201', '202'),
    });
  }
  if (has('deletecollection')) {
    collection.push({
      ...base,
      method: 'delete',
      action: 'deletecollection',
      operationId: `delete${id}Collection${scoped}${def.kind}`,
      description: `delete collection of ${def.kind}`,
      params: [
        ...LIST_PARAMS.filter((p) => p.name !== 'watch' && p.name !== 'allowWatchBookmarks'),
        ...DELETE_PARAMS,
      ],
      body: DELETE_OPTIONS,
      responses: ok(STATUS, '200'),
    });
  }
  if (collection.length)
    items.push({ path: collectionPath, params: [...scopeParams, PRETTY], operations: collection });

  const item: Operation[] = [];
  if (has('get')) {
    item.push({
      ...base,
      method: 'get',
      action: 'get',
      operationId: `read${id}${scoped}${def.kind}`,
      description: `read the specified ${def.kind}`,
      params: [],
      responses: ok(kindName, '200'),
    });
  }
  if (has('update')) {
    item.push({
      ...base,
      method: 'put',
      action: 'put',
      operationId: `replace${id}${scoped}${def.kind}`,
      description: `replace the specified ${def.kind}`,
      params: WRITE_PARAMS,
      body: kindName,
      responses: ok(kindName, '200', '201'),
    });
  }
  if (has('patch')) {
    item.push({
      ...base,
      method: 'patch',
      action: 'patch',
      operationId: `patch${id}${scoped}${def.kind}`,
      description: `partially update the specified ${def.kind}`,
      params: PATCH_PARAMS,
      body: PATCH,
      patch: true,
      responses: ok(kindName, '200', '201'),
    });
  }
  if (has('delete')) {
    item.push({
      ...base,
      method: 'delete',
      action: 'delete',
      operationId: `delete${id}${scoped}${def.kind}`,
      description: `delete a ${def.kind}`,
      params: DELETE_PARAMS,
      body: DELETE_OPTIONS,
      responses: ok(STATUS, '200', '202'),
    });
  }
  const itemParams = [nameParam(def.kind), ...scopeParams, PRETTY];
  if (item.length)
    items.push({ path: `${collectionPath}/{name}`, params: itemParams, operations: item });

  for (const sub of routedSubresources(def, routes)) {
    const operations = subresourceOperations(
      def,
      sub,
      `${id}${scoped}${def.kind}${camel(sub.name)}`,
      tag,
    );
    if (operations.length) {
      items.push({ path: `${collectionPath}/{name}/${sub.name}`, params: itemParams, operations });
    }
  }

  if (def.namespaced && has('list')) {
    items.push({
      path: `${prefix}/${def.plural}`,
      params: [PRETTY],
      operations: [
        {
          ...base,
          method: 'get',
          action: 'list',
          operationId: `list${id}${def.kind}ForAllNamespaces`,
          description: `list or watch objects of kind ${def.kind}`,
          params: LIST_PARAMS,
          responses: ok(listName, '200'),
        },
      ],
    });
  }
  return items;
}

/** The subresources routed for a resource, each with the verbs its storage serves. */
function routedSubresources(def: ResourceDefinition, routes: DiscoveredRoutes): SubresourceInfo[] {
  return discoveredSubresources(def, routes).map((sub) => ({
    ...subresourceInfo(def, sub.name),
    verbs: sub.verbs,
  }));
}

function subresourceOperations(
  def: ResourceDefinition,
  sub: SubresourceInfo,
  suffix: string,
  tag: string,
): Operation[] {
  // Streams and proxies (exec, log, ...) have no object schema to validate or patch.
  if (sub.shape !== 'object') return [];
  const schema = schemaNameOf(sub.kind);
  const what = `${sub.name} of the specified ${def.kind}`;
  const base = { tag, gvk: sub.kind };
  const operations: Operation[] = [];
  for (const verb of sub.verbs) {
    if (verb === 'get') {
      operations.push({
        ...base,
        method: 'get',
        action: 'get',
        operationId: `read${suffix}`,
        description: `read ${what}`,
        params: [],
        responses: ok(schema, '200'),
      });
    } else if (verb === 'update') {
      operations.push({
        ...base,
        method: 'put',
        action: 'put',
        operationId: `replace${suffix}`,
        description: `replace ${what}`,
        params: WRITE_PARAMS,
        body: schema,
        responses: ok(schema, '200', '201'),
      });
    } else if (verb === 'patch') {
      operations.push({
        ...base,
        method: 'patch',
        action: 'patch',
        operationId: `patch${suffix}`,
        description: `partially update ${what}`,
        params: PATCH_PARAMS,
        body: PATCH,
        patch: true,
        responses: ok(schema, '200', '201'),
      });
    } else if (verb === 'create') {
      operations.push({
        ...base,
        method: 'post',
        action: 'post',
        operationId: `create${suffix}`,
        description: `create ${what}`,
        params: WRITE_PARAMS,
        body: schema,
        responses: ok(schema, '200', '201', '202'),
      });
    }
  }
  return operations;
}

/** `GET /api/v1/` or `/apis/<g>/<v>/`: the group/version's own discovery document. */
function resourceListPath(gv: ApiGroupVersion): PathItem {
  return {
    path: `${pathPrefixOf(gv)}/`,
    params: [],
    operations: [
      {
        method: 'get',
        action: 'get',
        operationId: `get${groupCamel(gv.group)}${camel(gv.version)}APIResources`,
        description: 'get available resources',
        tag: tagOf(gv),
        gvk: { group: '', version: 'v1', kind: 'APIResourceList' },
        params: [],
        responses: ok(`${META}.APIResourceList`, '200'),
      },
    ],
  };
}

export function groupVersionPaths(gv: ApiGroupVersion): PathItem[] {
  return [
    resourceListPath(gv),
    ...gv.resources.flatMap((def) => resourcePaths(def, gv.routesOf(def))),
  ];
}

/** The kinds a group/version's operations read and write, as component schemas. */
export function groupVersionSchemas(gv: ApiGroupVersion): Record<string, Schema> {
  const schemas: Record<string, Schema> = {};
  for (const def of gv.resources) {
    const routes = gv.routesOf(def);
    schemas[schemaNameOf(def)] = def.openAPISchema ? { ...def.openAPISchema } : kindSchema(def);
    // A list kind exists only for what lists (the reviews have none).
    if (routes.verbs.includes('list'))
      schemas[schemaNameOf({ ...def, kind: def.listKind })] = listSchema(def);
    for (const sub of routedSubresources(def, routes)) {
      if (sub.shape === 'object') schemas[schemaNameOf(sub.kind)] ??= kindSchema(sub.kind);
    }
  }
  return schemas;
}

export function gvkObject(gvk: GroupVersionKind): { group: string; kind: string; version: string } {
  return { group: gvk.group, kind: gvk.kind, version: gvk.version };
}

/** The security scheme both documents declare (kube's `BearerToken`). */
export const BEARER_TOKEN = {
  type: 'apiKey',
  description: 'Bearer Token authentication',
  name: 'authorization',
  in: 'header',
} as const;
