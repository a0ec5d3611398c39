import { builtinResources, type ResourceDefinition } from '@listwatch/api';
import { MemoryStorage } from '@listwatch/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiServices } from '../apiregistration/apiservice-resource.js';
import { customResourceDefinitions } from '../apiextensions/customresourcedefinition-resource.js';
import { ResourceRegistry } from '../registry/resource-registry.js';
import { withBuiltinStrategies } from '../registry/served-resources.js';
import { aggregatedContentType } from './aggregated.js';
import { startDiscoveryServer, type DiscoveryServer } from './discovery-server.test-helper.js';

// Discovery served from a registry lists what each resource's storages route (installer.go
// builds APIResource entries from the storage's interfaces), not what a definition declares.

const builtins = [...builtinResources, customResourceDefinitions, apiServices];

function registryOf(definitions: readonly ResourceDefinition[]): ResourceRegistry {
  return new ResourceRegistry(
    new MemoryStorage({ compactionInterval: 0 }),
    withBuiltinStrategies(definitions),
  );
}

async function body(server: DiscoveryServer, path: string, accept?: string): Promise<string> {
  const res = await fetch(`${server.url}${path}`, accept ? { headers: { accept } } : {});
  expect(res.status, path).toBe(200);
  return res.text();
}

const AGGREGATED = aggregatedContentType('v2');

describe('discovery served from a registry', () => {
  let fromRegistry: DiscoveryServer;
  let fromDefinitions: DiscoveryServer;
  beforeAll(async () => {
    fromRegistry = await startDiscoveryServer(registryOf(builtins));
    fromDefinitions = await startDiscoveryServer(builtins);
  });
  afterAll(async () => {
    await fromRegistry.close();
    await fromDefinitions.close();
  });

  it('is byte for byte the documents (discovery and OpenAPI) the built-in definitions declare', async () => {
    const paths = [
      '/api/v1',
      '/apis/apps/v1',
      '/apis/authorization.k8s.io/v1',
      '/apis/policy/v1',
      '/openapi/v2',
      '/openapi/v3/api/v1',
      '/openapi/v3/apis/apps/v1',
    ];
    for (const path of paths)
      expect(await body(fromRegistry, path), path).toBe(await body(fromDefinitions, path));
    for (const root of ['/api', '/apis'])
      expect(await body(fromRegistry, root, AGGREGATED), root).toBe(
        await body(fromDefinitions, root, AGGREGATED),
      );
  });

  it('leaves out a declared subresource no storage serves', async () => {
    // configmaps declaring scale: their strategy has no scale, so no ScaleREST and no route.
    const configMaps = builtinResources.find((d) => d.plural === 'configmaps' && !d.group)!;
    const definitions = builtins.map((d) =>
      d === configMaps ? { ...d, subresources: [...d.subresources, 'scale'] } : d,
    );
    const server = await startDiscoveryServer(registryOf(definitions));
    try {
      const legacy = JSON.parse(await body(server, '/api/v1')) as {
        resources: { name: string }[];
      };
      const names = legacy.resources.map((r) => r.name);
      expect(names).toContain('configmaps');
      expect(names).not.toContain('configmaps/scale');
      const aggregated = await body(server, '/api', AGGREGATED);
      expect(aggregated).toBe(await body(fromRegistry, '/api', AGGREGATED));
    } finally {
      await server.close();
    }
  });
});
