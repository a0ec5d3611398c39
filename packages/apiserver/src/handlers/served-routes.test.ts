import { builtinResources, type ResourceDefinition, type Verb } from '@listwatch/api';
import { MemoryStorage } from '@listwatch/storage';
import type { IncomingMessage } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { fooCrd } from '../apiextensions/crd.test-helper.js';
import { customResourceStorage } from '../registry/apiextensions/customresource/storage.js';
import { apiServices } from '../apiregistration/apiservice-resource.js';
import { customResourceDefinitions } from '../apiextensions/customresourcedefinition-resource.js';
import { apiResourceDiscovery } from '../discovery/aggregated.js';
import { apiResourcesOf } from '../discovery/legacy.js';
import type { Store } from '../registry/generic/store.js';
import { parseRequestInfo } from '../request/request-info.js';
import { ResourceRegistry } from '../registry/resource-registry.js';
import { withBuiltinStrategies } from '../registry/served-resources.js';
import { isWebSocketUpgrade } from '../transports/ignored-upgrade.js';
import { discoveredRoutes, routeVerbs } from './routes.js';
import { verbOf } from './verb.js';

// Every route the server serves, as endpoints/installer.go registers them from what each
// resource's storages implement, compared with the checked-in served-routes.txt: a path or a
// verb that appears (a named watch, `secrets/x/status`, a WebSocket upgrade of a subresource)
// or disappears fails here and has to be reviewed in that file. UPDATE_SERVED_ROUTES=1
// rewrites it.

const FILE = fileURLToPath(new URL('./served-routes.txt', import.meta.url));

/** Every subresource any resource has: a resource is asked for each, declared or not. */
const SUBRESOURCES = ['status', 'scale', 'binding', 'eviction', 'token', 'finalize', 'log'];
const CONNECT = ['exec', 'attach', 'portforward', 'proxy', 'ephemeralcontainers', 'resize'];

/** The requests each path is tried with: method and query, as clients send them. */
const REQUESTS: readonly [string, string][] = [
  ['GET', ''],
  ['GET', 'watch=true'],
  ['POST', ''],
  ['PUT', ''],
  ['PATCH', ''],
  ['DELETE', ''],
];

const builtins = [...builtinResources, customResourceDefinitions, apiServices];

/**
 * Custom resources, served from their CRD as the CRD handler serves them: one with status and
 * scale subresources, one (cluster-scoped) without.
 */
const withSubresources = fooCrd({ group: 'routes.example.com' });
const without = fooCrd({
  group: 'routes.example.com',
  plural: 'bars',
  kind: 'Bar',
  scope: 'Cluster',
});
for (const v of without.spec.versions) delete v.subresources;
const customResources = [withSubresources, without].map((crd) =>
  customResourceStorage(new MemoryStorage({ compactionInterval: 0 }), crd, crd.spec.versions[0]!),
);

const served = [...builtins, ...customResources.map((c) => c.definition)];

function prefixOf(d: ResourceDefinition): string {
  return d.group ? `/apis/${d.group}/${d.version}` : `/api/${d.version}`;
}

/** The verbs a path is served for, by the router and by the WebSocket transport. */
function servedAt(store: Store, path: string): { http: Verb[]; websocket: boolean } {
  const http: Verb[] = [];
  let websocket = false;
  const info = parseRequestInfo(path);
  // A path parsed as another resource's (`namespaces/x/scale`: scale in namespace x) is not this one's.
  const { group, version, plural } = store.definition;
  if (!info || info.group !== group || info.version !== version || info.resource !== plural)
    return { http, websocket };
  const routed = routeVerbs(store, info) ?? [];
  for (const [method, query] of REQUESTS) {
    const verb = verbOf(method, info, new URLSearchParams(query));
    if (verb && routed.includes(verb) && !http.includes(verb)) http.push(verb);
    const upgrade = {
      method,
      url: `${path}${query ? `?${query}` : ''}`,
      headers: { upgrade: 'websocket' },
    } as unknown as IncomingMessage;
    if (isWebSocketUpgrade(upgrade) && verb && routed.includes(verb)) websocket = true;
  }
  return { http, websocket };
}

/** One line per resource or subresource path: its shapes, each with the verbs served there. */
function servedRoutes(registry: ResourceRegistry): string[] {
  const lines: string[] = [];
  for (const d of served) {
    const store = registry.lookup(d.group, d.version, d.plural)!.store;
    const prefix = prefixOf(d);
    const ns = d.namespaced ? '/namespaces/default' : '';
    const shapes: [string, string][] = [
      ['collection', `${prefix}${ns}/${d.plural}`],
      ...(d.namespaced ? [['all-namespaces', `${prefix}/${d.plural}`] as [string, string]] : []),
      ['item', `${prefix}${ns}/${d.plural}/x`],
      ['watch-prefix', `${prefix}/watch${ns}/${d.plural}`],
      ['watch-prefix-item', `${prefix}/watch${ns}/${d.plural}/x`],
    ];
    const gv = d.group ? `${d.group}/${d.version}` : d.version;
    const describe = (resource: string, paths: [string, string][]) => {
      const parts: string[] = [];
      for (const [shape, path] of paths) {
        const { http, websocket } = servedAt(store, path);
        if (http.length) parts.push(`${shape}[${http.sort().join(' ')}]`);
        if (websocket) parts.push(`${shape}[websocket]`);
      }
      if (parts.length) lines.push(`${gv} ${resource}: ${parts.join(' ')}`);
    };
    describe(d.plural, shapes);
    for (const sub of [...SUBRESOURCES, ...CONNECT])
      describe(`${d.plural}/${sub}`, [
        ['item', `${prefix}${ns}/${d.plural}/x/${sub}`],
        ['watch-prefix-item', `${prefix}/watch${ns}/${d.plural}/x/${sub}`],
      ]);
  }
  return lines;
}

describe('routes exist where a storage implements a verb (installer.go), as served-routes.txt lists them', () => {
  const registry = new ResourceRegistry(
    new MemoryStorage({ compactionInterval: 0 }),
    withBuiltinStrategies(builtins),
  );
  let routes: string[] = [];
  beforeAll(async () => {
    for (const resource of customResources) await registry.add(resource, resource.storage);
    routes = servedRoutes(registry);
  });

  it('every (group, version, resource, subresource, verb) served is the checked-in list', () => {
    const text = `${routes.join('\n')}\n`;
    if (process.env['UPDATE_SERVED_ROUTES'] === '1') writeFileSync(FILE, text);
    expect(text).toBe(readFileSync(FILE, 'utf8'));
  });

  it('discovery lists exactly the verbs and subresources routed, legacy and aggregated', () => {
    for (const d of served) {
      const store = registry.lookup(d.group, d.version, d.plural)!.store;
      const ns = d.namespaced ? '/namespaces/default' : '';
      const collection = servedAt(store, `${prefixOf(d)}${ns}/${d.plural}`).http;
      const item = servedAt(store, `${prefixOf(d)}${ns}/${d.plural}/x`).http;
      const routed = new Map<string, Verb[]>([[d.plural, [...new Set([...collection, ...item])]]]);
      for (const sub of [...SUBRESOURCES, ...CONNECT]) {
        const verbs = servedAt(store, `${prefixOf(d)}${ns}/${d.plural}/x/${sub}`).http;
        if (verbs.length) routed.set(`${d.plural}/${sub}`, verbs);
      }
      const expected = new Map([...routed].map(([name, verbs]) => [name, [...verbs].sort()]));
      const legacy = apiResourcesOf(d, discoveredRoutes(store));
      expect(new Map(legacy.map((r) => [r.name, r.verbs])), d.plural).toEqual(expected);
      const aggregated = apiResourceDiscovery(d, discoveredRoutes(store));
      expect(
        new Map([
          [aggregated.resource, aggregated.verbs],
          ...(aggregated.subresources ?? []).map(
            (s) => [`${d.plural}/${s.subresource}`, s.verbs] as const,
          ),
        ]),
        d.plural,
      ).toEqual(expected);
    }
  });

  it('each definition’s declared verbs (the client’s, and discovery of fixed definitions) are the routed ones', () => {
    for (const d of served) {
      const store = registry.lookup(d.group, d.version, d.plural)!.store;
      expect(apiResourcesOf(d), d.plural).toEqual(apiResourcesOf(d, discoveredRoutes(store)));
    }
  });

  it('the three holes stay closed: no named watch, no secrets/status, no WebSocket but watches', () => {
    // A named GET with watch=true is a get (requestinfo.go): no item path routes a watch.
    expect(routes.filter((l) => / item\[[^\]]*watch/.test(l))).toEqual([]);
    expect(routes.filter((l) => l.startsWith('v1 secrets/'))).toEqual([]);
    expect(routes.filter((l) => l.includes('[websocket]') && !/^\S+ [a-z]+: /.test(l))).toEqual([]);
  });
});
