import { builtinResources, type ResourceDefinition, type Verb } from '@listwatch/api';
import fc from 'fast-check';

// Random resource definitions for property tests: built from a real one, so fields the
// discovery code does not read stay valid.

const ALL_VERBS: readonly Verb[] = [
  'create',
  'delete',
  'deletecollection',
  'get',
  'list',
  'patch',
  'update',
  'watch',
];

export const resourceDefinition: fc.Arbitrary<ResourceDefinition> = fc
  .record({
    group: fc.constantFrom(
      '',
      'apps',
      'batch',
      'coordination.k8s.io',
      'example.com',
      'stable.example.io',
    ),
    version: fc.constantFrom('v1', 'v2', 'v1beta1', 'v1alpha1', 'v2beta3'),
    name: fc.stringMatching(/^[a-z]{1,8}$/),
    namespaced: fc.boolean(),
    verbs: fc.subarray([...ALL_VERBS], { minLength: 1 }),
    subresources: fc.subarray([
      'status',
      'scale',
      'binding',
      'finalize',
      'log',
      'eviction',
      'exec',
      'proxy',
      'resize',
    ]),
    shortNames: fc.uniqueArray(fc.stringMatching(/^[a-z]{1,4}$/), { maxLength: 2 }),
    categories: fc.subarray(['all', 'api-extensions']),
  })
  .map((r) => {
    const kind = `${r.name[0]?.toUpperCase() ?? 'X'}${r.name.slice(1)}`;
    return {
      ...(builtinResources[0] as ResourceDefinition),
      group: r.group,
      version: r.version,
      kind,
      listKind: `${kind}List`,
      plural: `${r.name}s`,
      singular: r.name,
      namespaced: r.namespaced,
      verbs: r.verbs,
      subresources: r.subresources,
      shortNames: r.shortNames,
      categories: r.categories,
    };
  });

export const resourceDefinitions = fc.array(resourceDefinition, { maxLength: 8 });
