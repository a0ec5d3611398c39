import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compareVersionPriority,
  parseKubeVersion,
  sortByVersionPriority,
} from './version-priority.js';

// k8s.io/apimachinery/pkg/version/helpers.go and helpers_test.go.

const kubeVersion = fc
  .tuple(fc.nat(1000), fc.constantFrom('', 'alpha', 'beta'), fc.nat(1000))
  .map(([major, stage, minor]) => (stage ? `v${major}${stage}${minor}` : `v${major}`));
const anyVersion = fc.oneof(
  kubeVersion,
  fc.string(),
  fc.stringMatching(/^v\d{1,25}(beta|alpha)?\d{0,3}$/),
);

describe('version priority', () => {
  it('orders GA before beta before alpha, then by major and minor, then non-kube versions (helpers_test.go)', () => {
    expect(
      sortByVersionPriority([
        'v1alpha1',
        'foo10',
        'v1beta1',
        'v2',
        'foo1',
        'v1',
        'v1beta2',
        'v11alpha2',
        'v10beta3',
        'v12alpha1',
      ]),
    ).toEqual([
      'v2',
      'v1',
      'v10beta3',
      'v1beta2',
      'v1beta1',
      'v12alpha1',
      'v11alpha2',
      'v1alpha1',
      'foo1',
      'foo10',
    ]);
  });

  it('parses only v<major>[alpha|beta<minor>]', () => {
    expect(parseKubeVersion('v1')).toEqual({ major: 1n, stability: 2, minor: 0n });
    expect(parseKubeVersion('v2beta3')).toEqual({ major: 2n, stability: 1, minor: 3n });
    for (const text of ['1', 'v', 'v1beta', 'vbeta1', 'v1.2', 'V1', ' v1', 'v1gamma1'])
      expect(parseKubeVersion(text)).toBeUndefined();
  });

  it('a parsed version prints back to the text it came from, for canonical numbers', () => {
    fc.assert(
      fc.property(kubeVersion, (text) => {
        const v = parseKubeVersion(text);
        expect(v).toBeDefined();
        const stage =
          v?.stability === 2 ? '' : v?.stability === 1 ? `beta${v.minor}` : `alpha${v?.minor}`;
        expect(`v${v?.major}${stage}`).toBe(text);
      }),
    );
  });

  it('is antisymmetric and reflexive', () => {
    fc.assert(
      fc.property(anyVersion, anyVersion, (a, b) => {
        expect(Math.sign(compareVersionPriority(a, b))).toBe(
          -Math.sign(compareVersionPriority(b, a)) || 0,
        );
        expect(compareVersionPriority(a, a)).toBe(0);
      }),
    );
  });

  it('is transitive, so sorting is well defined', () => {
    fc.assert(
      fc.property(anyVersion, anyVersion, anyVersion, (a, b, c) => {
        if (compareVersionPriority(a, b) > 0 && compareVersionPriority(b, c) > 0) {
          expect(compareVersionPriority(a, c)).toBeGreaterThan(0);
        }
      }),
    );
  });

  it('never ranks a non-kube version above a kube version, and sorting keeps every element', () => {
    fc.assert(
      fc.property(fc.array(anyVersion), (versions) => {
        const sorted = sortByVersionPriority(versions);
        expect([...sorted].sort()).toEqual([...versions].sort());
        const firstOther = sorted.findIndex((v) => !parseKubeVersion(v));
        if (firstOther >= 0)
          expect(sorted.slice(firstOther).every((v) => !parseKubeVersion(v))).toBe(true);
      }),
    );
  });
});
