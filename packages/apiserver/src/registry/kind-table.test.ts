import { builtinResources, qualifiedResource } from '@listwatch/api';
import { MemoryStorage } from '@listwatch/storage';
import { describe, expect, it } from 'vitest';
import { apiServices } from '../apiregistration/apiservice-resource.js';
import { customResourceDefinitions } from '../apiextensions/customresourcedefinition-resource.js';
import { servedResources } from '../server-config.js';
import { ResourceRegistry } from './resource-registry.js';
import { storesNothing } from './rest/resource-strategy.js';
import { builtinStrategies, withBuiltinStrategies } from './served-resources.js';

// One kind table (issue 32 item 4): every served built-in kind has its strategy, as every
// kube-apiserver resource has its own (pkg/registry/<group>/<resource>/strategy.go), injected
// into its Store when the registry is built (registry/served-resources.ts). A kind left out of
// that table is refused at start, and none is given the generic steps alone.

const nameOf = (d: { group: string; plural: string; version: string }) =>
  `${qualifiedResource(d)}/${d.version}`.replace(/\/v1$/, '');

describe('the kind table', () => {
  it('every served built-in resource has a strategy of its own, none the generic steps alone', () => {
    const generic = withBuiltinStrategies(builtinResources)
      .filter((r) => Object.keys(r.strategy).length === 0)
      .map((r) => nameOf(r.definition));
    expect(generic).toEqual([]);
  });

  it('the strategy table has a row for each served resource and none for a resource not served', () => {
    const served = new Set(servedResources.map((d) => `${d.group}/${d.version}/${d.plural}`));
    const rows = Object.entries(builtinStrategies).flatMap(([gv, byResource]) =>
      Object.keys(byResource).map((plural) => `${gv.includes('/') ? gv : `/${gv}`}/${plural}`),
    );
    expect(rows.sort()).toEqual([...served].sort());
    expect(servedResources).toEqual(
      expect.arrayContaining([...builtinResources, customResourceDefinitions, apiServices]),
    );
  });

  it('each served Store is made with its resource strategy from the table', () => {
    const resources = withBuiltinStrategies(servedResources);
    const registry = new ResourceRegistry(new MemoryStorage({ compactionInterval: 0 }), resources);
    for (const { definition, strategy } of resources) {
      const { group, version, plural } = definition;
      expect(registry.lookup(group, version, plural)?.store.strategy).toBe(strategy);
    }
  });

  it('a resource stores nothing exactly when it is served with create alone (discovery gives it no storageVersionHash)', () => {
    for (const { definition, strategy } of withBuiltinStrategies(servedResources))
      expect(storesNothing(strategy), nameOf(definition)).toBe(
        definition.verbs.every((verb) => verb === 'create'),
      );
  });

  it('each built-in resource is defined once per group and version (one row of the table per kind)', () => {
    const keys = builtinResources.map((d) => `${d.group}/${d.version}/${d.plural}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});
