import fc from 'fast-check';
import type { APIResource } from 'kubernetes-types/meta/v1.js';
import { describe, expect, it } from 'vitest';
import type { APIGroupResources } from '../discovery/discovery.js';
import { DiscoveryRESTMapper, isNoMatchError, NoKindMatchError } from './restmapper.js';

// client-go restmapper/discovery_test.go's rules, over arbitrary discovery answers.
const dnsLabel = fc.stringMatching(/^[a-z][a-z0-9]{0,7}$/);
const kindName = fc.stringMatching(/^[A-Z][a-zA-Z0-9]{0,7}$/);

/** Groups with distinct names, versions and kinds; each kind served in every version of its group. */
const groupsArb: fc.Arbitrary<APIGroupResources[]> = fc
  .uniqueArray(
    fc.record({
      name: fc.oneof(
        dnsLabel.map((l) => `${l}.example.com`),
        fc.constant(''),
      ),
      versions: fc.uniqueArray(fc.stringMatching(/^v[1-9](alpha[1-3]|beta[1-3])?$/), {
        minLength: 1,
        maxLength: 3,
      }),
      kinds: fc.uniqueArray(fc.record({ kind: kindName, namespaced: fc.boolean() }), {
        minLength: 1,
        maxLength: 4,
        selector: (k) => k.kind.toLowerCase(),
      }),
    }),
    { maxLength: 4, selector: (g) => g.name },
  )
  .map((groups) =>
    groups.map((g) => {
      const resources = new Map<string, APIResource[]>();
      for (const v of g.versions) {
        resources.set(
          v,
          g.kinds.flatMap(({ kind, namespaced }) => {
            const plural = `${kind.toLowerCase()}s`;
            return [
              { name: plural, singularName: kind.toLowerCase(), kind, namespaced, verbs: ['get'] },
              { name: `${plural}/status`, singularName: '', kind, namespaced, verbs: ['get'] },
            ];
          }),
        );
      }
      return { name: g.name, versions: g.versions, preferredVersion: g.versions[0]!, resources };
    }),
  );

describe('DiscoveryRESTMapper (property)', () => {
  it("kind → resource → kind round-trips, in the group's preferred version, with the resource's scope", () => {
    fc.assert(
      fc.property(groupsArb, (groups) => {
        const mapper = new DiscoveryRESTMapper(groups);
        for (const g of groups) {
          for (const r of g.resources.get(g.preferredVersion)!) {
            if (r.name.includes('/')) continue;
            const mapping = mapper.restMapping({ group: g.name, kind: r.kind });
            expect(mapping.resource).toEqual({
              group: g.name,
              version: g.preferredVersion,
              resource: r.name,
            });
            expect(mapping.scope).toBe(r.namespaced ? 'namespace' : 'root');
            expect(mapper.kindFor(mapping.resource)).toEqual(mapping.groupVersionKind);
            // Every version serves it; asking for one gets that one.
            for (const v of g.versions)
              expect(mapper.restMapping({ group: g.name, kind: r.kind }, v).resource.version).toBe(
                v,
              );
            expect(mapper.restMappings({ group: g.name, kind: r.kind })).toHaveLength(
              g.versions.length,
            );
          }
        }
      }),
    );
  });

  it('a kind or resource no group serves is a no-match error, never a wrong answer', () => {
    fc.assert(
      fc.property(groupsArb, kindName, (groups, kind) => {
        const mapper = new DiscoveryRESTMapper(groups);
        const served = groups.some((g) =>
          [...g.resources.values()].flat().some((r) => r.kind.toLowerCase() === kind.toLowerCase()),
        );
        const plural = `${kind.toLowerCase()}s`;
        const named = groups.some((g) =>
          [...g.resources.values()].flat().some((r) => [r.name, r.singularName].includes(plural)),
        );
        fc.pre(!served && !named);
        for (const g of [...groups.map((x) => x.name), 'none.example.com'])
          expect(() => mapper.restMapping({ group: g, kind })).toThrow(NoKindMatchError);
        let err: unknown;
        try {
          mapper.resourceFor({ resource: plural });
        } catch (e) {
          err = e;
        }
        expect(isNoMatchError(err)).toBe(true);
      }),
    );
  });
});
