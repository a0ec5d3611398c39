import { builtinResources, qualifiedResource } from '@listwatch/api';
import { describe, expect, it } from 'vitest';
import { strategyOf } from './strategy.js';

// One kind table (issue 32 item 4): every served built-in kind has its strategy, as every
// kube-apiserver resource has its own (pkg/registry/<group>/<resource>/strategy.go). A strategy
// left out of registry/strategy.ts's table would silently become the generic steps only; this
// test is what notices. It reads the registration API of today (strategyOf); when strategies
// are injected into a Store per resource, it moves to asserting each Store has one.

/**
 * Kinds served today with the generic steps only. Upstream has a strategy for each
 * (pkg/registry/core/node/strategy.go, pkg/registry/coordination/lease/strategy.go): the list
 * only shrinks. A kind added here instead of given a strategy is the drift this test forbids.
 */
const GENERIC_ONLY = ['leases.coordination.k8s.io', 'nodes'];

describe('the kind table', () => {
  it('every served built-in resource has a registered strategy (none falls back to an empty one), the known generic-only kinds excepted', () => {
    const missing = builtinResources
      .filter((def) => Object.keys(strategyOf(def)).length === 0)
      .map((def) => `${qualifiedResource(def)}/${def.version}`.replace(/\/v1$/, ''));
    expect(missing.sort()).toEqual(GENERIC_ONLY);
  });

  it('each built-in resource is defined once per group and version (one row of the table per kind)', () => {
    const keys = builtinResources.map((d) => `${d.group}/${d.version}/${d.plural}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});
