import { ApiError, statusOf, type ResourceDefinition } from '@listwatch/api';
import type { Context, Middleware } from 'koa';
import { encodeOpenApiV2Protobuf } from '@listwatch/codec';
import {
  aggregatedContentType,
  apiGroupDiscoveryList,
  type AggregatedDiscoveryVersion,
} from './aggregated.js';
import type { Store } from '../registry/generic/store.js';
import { discoveredRoutes } from '../handlers/routes.js';
import { ApiGroupIndex } from './api-groups.js';
import type { RoutesOf } from './subresources.js';
import {
  acceptsJson,
  negotiateDiscovery,
  negotiateOpenApiV2,
  OPENAPI_V2_PROTOBUF_TYPES,
} from './content-negotiation.js';
import {
  computeETag,
  protobufRepresentation,
  representation,
  respondWithETag,
  type Representation,
} from './etag.js';
import {
  apiGroup,
  apiGroupList,
  apiResourceList,
  apiVersions,
  type ServerAddressByClientCIDR,
} from './legacy.js';
import { openApiV2Document } from './openapi-v2.js';
import { openApiV3Document, openApiV3Index, openApiV3Key } from './openapi-v3.js';
import { versionInfo } from './version.js';

const ONE_YEAR_MS = 365 * 24 * 60 * 60 * 1000;

function sendError(ctx: Context, err: ApiError): void {
  ctx.status = err.code;
  ctx.set('Content-Type', 'application/json');
  ctx.set('Cache-Control', 'no-cache, private');
  ctx.body = Buffer.from(`${JSON.stringify(statusOf(err.status))}\n`);
}

/** Computes a value on first use: OpenAPI documents are only built if someone asks. */
function lazy<T>(make: () => T): () => T {
  let value: { v: T } | undefined;
  return () => (value ??= { v: make() }).v;
}

/**
 * `host:port` of the socket the request came in on: what kube reports as the server address for
 * clients from 0.0.0.0/0 (discovery/addresses.go), so clients learn how they reached us.
 */
function serverAddresses(ctx: Context): ServerAddressByClientCIDR[] {
  const socket = ctx.req.socket;
  let host = socket.localAddress ?? '127.0.0.1';
  if (host.startsWith('::ffff:')) host = host.slice('::ffff:'.length);
  const address = host.includes(':') ? `[${host}]` : host;
  return [{ clientCIDR: '0.0.0.0/0', serverAddress: `${address}:${socket.localPort ?? 0}` }];
}

function notAcceptable(aggregated: boolean): ApiError {
  const types = aggregated
    ? `application/json, ${aggregatedContentType('v2')}, ${aggregatedContentType('v2beta1')}`
    : 'application/json';
  return ApiError.notAcceptable(`only the following media types are accepted: ${types}`);
}

type Handler = (ctx: Context) => void;

/**
 * What discovery is built from: fixed definitions, or a registry that changes at runtime, whose
 * Stores give each resource's verbs and subresources (the routes the router serves).
 */
export interface DiscoverySource {
  readonly definitions: readonly ResourceDefinition[];
  onChange(listener: () => void): unknown;
  lookup(group: string, version: string, resource: string): { store: Store } | undefined;
}

/** The routes of a registry's resource; a definition it no longer serves has none. */
function registryRoutes(source: DiscoverySource): RoutesOf {
  return (def) => {
    const entry = source.lookup(def.group, def.version, def.plural);
    return entry ? discoveredRoutes(entry.store) : { verbs: [], subresources: new Map() };
  };
}

/**
 * Serves everything a client reads to discover the API: `/version`, legacy and aggregated
 * discovery under `/api` and `/apis`, and the OpenAPI v2/v3 documents, all built from the
 * resource definitions. Any other path goes to `next()`. Documents carry an ETag and answer
 * If-None-Match with 304; errors are metav1.Status bodies. A registry's documents are rebuilt
 * when it changes (a CRD established or deleted): new bodies, so new ETags, as kube's
 * aggregated discovery manager and OpenAPI controller do.
 */
export function discoveryMiddleware(
  source: readonly ResourceDefinition[] | DiscoverySource,
): Middleware {
  if (!('onChange' in source)) {
    const route = discoveryRoutes(source);
    return serveDiscovery(() => route);
  }
  const routesOf = registryRoutes(source);
  let route = discoveryRoutes(source.definitions, routesOf);
  source.onChange(() => (route = discoveryRoutes(source.definitions, routesOf)));
  return serveDiscovery(() => route);
}

function serveDiscovery(current: () => (path: string) => Handler | undefined): Middleware {
  return async (ctx, next) => {
    const handler = current()(ctx.path);
    if (!handler) {
      await next();
      return;
    }
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      return sendError(ctx, ApiError.methodNotAllowed());
    }
    handler(ctx);
  };
}

/** The handler of each discovery path for one set of definitions. */
function discoveryRoutes(
  definitions: readonly ResourceDefinition[],
  routesOf?: RoutesOf,
): (path: string) => Handler | undefined {
  const index = new ApiGroupIndex(definitions, routesOf);
  const coreGroups = index.core ? [index.core] : [];
  const coreVersions = index.core?.versions.map((v) => v.version) ?? [];

  const version = representation(versionInfo());
  const aggregated = (root: 'api' | 'apis', v: AggregatedDiscoveryVersion): Representation =>
    representation(
      apiGroupDiscoveryList(root === 'api' ? coreGroups : index.groups, v),
      aggregatedContentType(v),
    );
  const aggregatedDocs: Record<
    'api' | 'apis',
    Record<AggregatedDiscoveryVersion, Representation>
  > = {
    api: { v2: aggregated('api', 'v2'), v2beta1: aggregated('api', 'v2beta1') },
    apis: { v2: aggregated('apis', 'v2'), v2beta1: aggregated('apis', 'v2beta1') },
  };
  const resourceLists = new Map<string, Representation>(
    index.allGroupVersions().map((gv) => [gv.groupVersion, representation(apiResourceList(gv))]),
  );
  const groupDocs = new Map<string, Representation>(
    index.groups.map((g) => [
      g.name,
      representation({ kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(g) }),
    ]),
  );
  const openApiV3Docs = lazy(
    () =>
      new Map(
        index
          .allGroupVersions()
          .map((gv) => [openApiV3Key(gv), representation(openApiV3Document(gv))]),
      ),
  );
  const openApiV3IndexDoc = lazy(() =>
    representation(
      openApiV3Index([...openApiV3Docs()].map(([key, doc]) => ({ key, etag: doc.etag }))),
    ),
  );
  const openApiV2Doc = lazy(() => representation(openApiV2Document(index.allGroupVersions())));

  /** `/api` and `/apis`: aggregated when asked for, legacy otherwise. */
  function serveRoot(ctx: Context, root: 'api' | 'apis'): void {
    const form = negotiateDiscovery(ctx.get('Accept') || undefined, { aggregated: true });
    if (!form) return sendError(ctx, notAcceptable(true));
    if (form.form === 'aggregated') {
      return respondWithETag(ctx, aggregatedDocs[root][form.version], {
        cacheControl: 'public',
        vary: 'Accept',
      });
    }
    const addresses = serverAddresses(ctx);
    const body =
      root === 'api'
        ? { ...apiVersions(addresses), versions: coreVersions }
        : apiGroupList(index.groups, addresses);
    respondWithETag(ctx, form.protobuf ? protobufRepresentation(body) : representation(body), {
      vary: 'Accept',
    });
  }

  /** Legacy-only documents (a group, a group/version's resources). */
  function serveLegacy(ctx: Context, doc: Representation | undefined): void {
    if (!doc) return sendError(ctx, ApiError.pathNotFound());
    const form = negotiateDiscovery(ctx.get('Accept') || undefined, { aggregated: false });
    if (!form) return sendError(ctx, notAcceptable(false));
    respondWithETag(ctx, form.form === 'legacy' && form.protobuf ? protobufOf(doc) : doc);
  }

  /** The protobuf form of a legacy document, made once per document. */
  const protobufForms = new WeakMap<Representation, Representation>();
  function protobufOf(doc: Representation): Representation {
    let form = protobufForms.get(doc);
    if (!form) {
      form = protobufRepresentation(JSON.parse(doc.body.toString('utf8')) as unknown);
      protobufForms.set(doc, form);
    }
    return form;
  }

  /** kube-openapi handler3: a matching `?hash=` makes the document immutable; a stale one redirects. */
  function serveOpenApiV3(ctx: Context, key: string): void {
    const doc = openApiV3Docs().get(key);
    if (!doc) return sendError(ctx, ApiError.pathNotFound());
    if (!acceptsJson(ctx.get('Accept') || undefined))
      return sendError(ctx, ApiError.notAcceptable('only application/json is served'));
    const hash = typeof ctx.query['hash'] === 'string' ? ctx.query['hash'] : '';
    if (hash && hash !== doc.etag) {
      ctx.status = 301;
      ctx.redirect(`/openapi/v3/${key}?hash=${doc.etag}`);
      return;
    }
    respondWithETag(
      ctx,
      doc,
      hash
        ? {
            cacheControl: 'public, immutable',
            vary: 'Accept',
            expires: new Date(Date.now() + ONE_YEAR_MS),
          }
        : { vary: 'Accept' },
    );
  }

  /** The handler of a discovery path, or undefined for paths that belong to someone else. */
  function route(path: string): Handler | undefined {
    const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
    const parts = trimmed.split('/').slice(1);
    const [first = '', second = '', third = '', fourth = '', fifth = ''] = parts;
    switch (`${first}:${parts.length}`) {
      case 'version:1':
        return (ctx) => respondWithETag(ctx, version);
      case 'api:1':
        return (ctx) => serveRoot(ctx, 'api');
      case 'api:2':
        return (ctx) => serveLegacy(ctx, index.core ? resourceLists.get(second) : undefined);
      case 'apis:1':
        return (ctx) => serveRoot(ctx, 'apis');
      case 'apis:2':
        return (ctx) => serveLegacy(ctx, groupDocs.get(second));
      case 'apis:3':
        return (ctx) => serveLegacy(ctx, resourceLists.get(`${second}/${third}`));
    }
    if (first !== 'openapi') return undefined;
    if (second === 'v2' && parts.length === 2) return serveOpenApiV2;
    if (second !== 'v3') return undefined;
    if (parts.length === 2) return (ctx) => respondWithETag(ctx, openApiV3IndexDoc());
    if (third === 'api' && parts.length === 4) return (ctx) => serveOpenApiV3(ctx, `api/${fourth}`);
    if (third === 'apis' && parts.length === 5)
      return (ctx) => serveOpenApiV3(ctx, `apis/${fourth}/${fifth}`);
    return (ctx) => sendError(ctx, ApiError.pathNotFound());
  }

  /** Made once, from the JSON document, for kubectl's `explain` and `kind: List` validation. */
  const openApiV2Protobuf = lazy(() => {
    const json = openApiV2Doc();
    const body = Buffer.from(
      encodeOpenApiV2Protobuf(JSON.parse(json.body.toString('utf8')) as unknown),
    );
    return { body, etag: computeETag(body) };
  });

  function serveOpenApiV2(ctx: Context): void {
    const type = negotiateOpenApiV2(ctx.get('Accept') || undefined);
    if (!type) {
      return sendError(
        ctx,
        ApiError.notAcceptable(
          `only the following media types are accepted: application/json, ${OPENAPI_V2_PROTOBUF_TYPES.join(', ')}`,
        ),
      );
    }
    const doc =
      type === 'application/json' ? openApiV2Doc() : { ...openApiV2Protobuf(), contentType: type };
    respondWithETag(ctx, doc, { vary: 'Accept' });
  }

  return route;
}
