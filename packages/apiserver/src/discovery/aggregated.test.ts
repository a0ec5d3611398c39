import { builtinResources } from '@listwatch/api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { apiGroupDiscoveryList, type ApiGroupDiscoveryList } from './aggregated.js';
import { apiGroupsOf, ApiGroupIndex } from './api-groups.js';
import { resourceDefinitions } from './definitions.test-helper.js';
import { apiGroup, apiResourceList, type ApiGroupDocument, type ApiResource } from './legacy.js';
import { compareVersionPriority } from './version-priority.js';

/**
 * What client-go makes of an aggregated document (discovery/aggregated_discovery.go,
 * SplitGroupsAndResources): the groups and, per group/version, the APIResources.
 */
function splitGroupsAndResources(list: ApiGroupDiscoveryList): {
  groups: ApiGroupDocument[];
  resources: Map<string, ApiResource[]>;
} {
  const groups: ApiGroupDocument[] = [];
  const resources = new Map<string, ApiResource[]>();
  for (const item of list.items) {
    const name = item.metadata.name ?? '';
    const versions = item.versions.map((v) => ({
      groupVersion: name ? `${name}/${v.version}` : v.version,
      version: v.version,
    }));
    groups.push({
      name,
      versions,
      preferredVersion: versions[0] ?? { groupVersion: '', version: '' },
    });
    for (const v of item.versions) {
      const out: ApiResource[] = [];
      for (const r of v.resources) {
        const parent: ApiResource = {
          name: r.resource,
          singularName: r.singularResource,
          namespaced: r.scope === 'Namespaced',
          group: r.responseKind.group,
          version: r.responseKind.version,
          kind: r.responseKind.kind,
          verbs: r.verbs,
          ...(r.shortNames ? { shortNames: r.shortNames } : {}),
          ...(r.categories ? { categories: r.categories } : {}),
        };
        out.push(parent);
        for (const s of r.subresources ?? []) {
          out.push({
            name: `${r.resource}/${s.subresource}`,
            singularName: parent.singularName,
            namespaced: parent.namespaced,
            group: s.responseKind.group,
            version: s.responseKind.version,
            kind: s.responseKind.kind,
            verbs: s.verbs,
          });
        }
      }
      resources.set(name ? `${name}/${v.version}` : v.version, out);
    }
  }
  return { groups, resources };
}

/** A legacy APIResource as client-go sees it after conversion: group/version filled in. */
function asConverted(
  r: ApiResource,
  group: string,
  version: string,
  parentSingular: string,
): ApiResource {
  const { storageVersionHash: _hash, ...rest } = r;
  return {
    ...rest,
    singularName: r.name.includes('/') ? parentSingular : r.singularName,
    group: r.group ?? group,
    version: r.version ?? version,
  };
}

describe('aggregated discovery', () => {
  it('converts, as client-go does, into exactly the legacy groups and resource lists', () => {
    fc.assert(
      fc.property(resourceDefinitions, (definitions) => {
        const index = new ApiGroupIndex([...builtinResources, ...definitions]);
        const groups = [...(index.core ? [index.core] : []), ...index.groups];
        const split = splitGroupsAndResources(apiGroupDiscoveryList(groups, 'v2'));
        expect(split.groups).toEqual(groups.map((g) => apiGroup(g)));
        for (const gv of index.allGroupVersions()) {
          const legacy = apiResourceList(gv).resources;
          const singular = new Map(legacy.map((r) => [r.name, r.singularName]));
          const expected = legacy.map((r) =>
            asConverted(r, gv.group, gv.version, singular.get(r.name.split('/')[0] ?? '') ?? ''),
          );
          const byName = (a: ApiResource, b: ApiResource) => (a.name < b.name ? -1 : 1);
          expect([...(split.resources.get(gv.groupVersion) ?? [])].sort(byName)).toEqual(
            expected.sort(byName),
          );
        }
      }),
    );
  });

  it('lists versions by priority, so the first (preferred) version is the most stable and newest', () => {
    fc.assert(
      fc.property(resourceDefinitions, (definitions) => {
        for (const group of apiGroupsOf(definitions)) {
          const versions = group.versions.map((v) => v.version);
          for (let i = 1; i < versions.length; i++) {
            expect(
              compareVersionPriority(versions[i - 1] ?? '', versions[i] ?? ''),
            ).toBeGreaterThan(0);
          }
        }
      }),
    );
  });

  it('serves one resource per group/version/plural, the first definition winning', () => {
    fc.assert(
      fc.property(resourceDefinitions, (definitions) => {
        const served = apiGroupsOf(definitions).flatMap((g) =>
          g.versions.flatMap((v) => v.resources),
        );
        const keys = served.map((d) => `${d.group}/${d.version}/${d.plural}`);
        expect(new Set(keys).size).toBe(keys.length);
        for (const def of served) {
          expect(
            definitions.find(
              (d) => d.group === def.group && d.version === def.version && d.plural === def.plural,
            ),
          ).toBe(def);
        }
      }),
    );
  });
});
