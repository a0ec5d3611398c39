import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Deployment, ReplicaSet } from '../objects.js';
import {
  computeHash,
  equalIgnoreHash,
  fnv32a,
  getProportion,
  maxSurge,
  maxUnavailable,
  newRSNewReplicas,
  resolveFenceposts,
  safeEncodeString,
  scaledValue,
  setNewReplicaSetAnnotations,
  specOf,
} from './deployment-util.js';

// kubernetes pkg/controller/deployment/util/deployment_util.go, pkg/controller/controller_utils.go
// ComputeHash, apimachinery util/intstr and util/rand.

const intOrPercent = fc.oneof(
  fc.integer({ min: 0, max: 20 }),
  fc.integer({ min: 0, max: 100 }).map((n) => `${n}%`),
);

const rolling = (
  replicas: number,
  surge: number | string,
  unavailable: number | string,
): Deployment => ({
  metadata: { name: 'd' },
  spec: {
    replicas,
    strategy: {
      type: 'RollingUpdate',
      rollingUpdate: { maxSurge: surge, maxUnavailable: unavailable },
    },
  },
});

describe('deployment arithmetic', () => {
  it('percentages scale the replica count, maxSurge rounded up and maxUnavailable down', () => {
    expect(scaledValue('25%', 10, true)).toBe(3);
    expect(scaledValue('25%', 10, false)).toBe(2);
    expect(scaledValue(4, 10, true)).toBe(4);
    expect(() => scaledValue('x%', 10, true)).toThrow(/invalid value/);
  });

  it('resolved fenceposts are never both zero: maxUnavailable becomes 1', () => {
    fc.assert(
      fc.property(intOrPercent, intOrPercent, fc.integer({ min: 0, max: 50 }), (s, u, n) => {
        const { surge, unavailable } = resolveFenceposts(s, u, n);
        expect(surge + unavailable).toBeGreaterThan(0);
      }),
    );
  });

  it('maxUnavailable never exceeds replicas, and is 0 for Recreate or zero replicas', () => {
    fc.assert(
      fc.property(intOrPercent, intOrPercent, fc.integer({ min: 0, max: 50 }), (s, u, n) => {
        expect(maxUnavailable(rolling(n, s, u))).toBeLessThanOrEqual(n);
      }),
    );
    expect(
      maxUnavailable({ metadata: {}, spec: { replicas: 3, strategy: { type: 'Recreate' } } }),
    ).toBe(0);
    expect(maxSurge({ metadata: {}, spec: { replicas: 3, strategy: { type: 'Recreate' } } })).toBe(
      0,
    );
  });

  it('a Deployment with none of the defaulted fields reads as apps/v1 defaulting would have stored it', () => {
    expect(specOf({ metadata: {} })).toEqual({
      replicas: 1,
      strategyType: 'RollingUpdate',
      maxSurge: '25%',
      maxUnavailable: '25%',
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
      minReadySeconds: 0,
      paused: false,
    });
  });

  it('the new ReplicaSet grows only up to replicas + maxSurge in all, and never past replicas', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 30 }),
        intOrPercent,
        intOrPercent,
        fc.integer({ min: 0, max: 30 }),
        fc.integer({ min: 0, max: 30 }),
        (replicas, s, u, oldCount, newCount) => {
          const d = rolling(replicas, s, u);
          const newRS: ReplicaSet = { metadata: { name: 'new' }, spec: { replicas: newCount } };
          const old: ReplicaSet = { metadata: { name: 'old' }, spec: { replicas: oldCount } };
          const next = newRSNewReplicas(d, [old, newRS], newRS);
          if (oldCount + newCount >= replicas + maxSurge(d)) expect(next).toBe(newCount);
          else {
            expect(next + oldCount).toBeLessThanOrEqual(replicas + maxSurge(d));
            expect(next).toBeLessThanOrEqual(Math.max(replicas, newCount));
          }
        },
      ),
    );
  });

  it('a proportion never moves more replicas than are left to add or remove', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 30 }),
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: -30, max: 30 }),
        fc.integer({ min: 0, max: 30 }),
        (replicas, size, toAdd, already) => {
          const added = Math.sign(toAdd) * Math.min(Math.abs(toAdd), already);
          const d = rolling(replicas, 1, 0);
          d.status = { replicas: 10 };
          const rs: ReplicaSet = {
            metadata: { annotations: { 'deployment.kubernetes.io/max-replicas': '11' } },
            spec: { replicas: size },
          };
          const p = getProportion(rs, d, toAdd, added);
          if (toAdd > 0) expect(p).toBeLessThanOrEqual(toAdd - added);
          if (toAdd < 0) expect(p).toBeGreaterThanOrEqual(toAdd - added);
          if (toAdd === 0) expect(p).toBe(0);
        },
      ),
    );
  });
});

describe('the pod-template hash', () => {
  const template = {
    metadata: { labels: { app: 'web' } },
    spec: { containers: [{ name: 'c', image: 'nginx' }] },
  };

  it('FNV-1a 32 matches its published test vectors', () => {
    expect(fnv32a(Buffer.from(''))).toBe(0x811c9dc5);
    expect(fnv32a(Buffer.from('a'))).toBe(0xe40c292c);
    expect(fnv32a(Buffer.from('foobar'))).toBe(0xbf9cf968);
  });

  it('SafeEncodeString maps every character into the 27-letter alphabet without vowels', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme-ascii' }), (s) => {
        expect(safeEncodeString(s)).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]*$/);
        expect(safeEncodeString(s)).toHaveLength(s.length);
      }),
    );
    // '0' is 48, 48 % 27 = 21: the 22nd letter.
    expect(safeEncodeString('0123456789')).toBe('456789bcdf');
  });

  it('is one value for one template whatever its key order, another for another template or collisionCount', () => {
    const reordered = {
      spec: { containers: [{ image: 'nginx', name: 'c' }] },
      metadata: { labels: { app: 'web' } },
    };
    expect(computeHash(reordered, undefined)).toBe(computeHash(template, undefined));
    expect(computeHash(template, 1)).not.toBe(computeHash(template, undefined));
    expect(computeHash(template, 1)).not.toBe(computeHash(template, 2));
    expect(
      computeHash(
        { ...template, spec: { containers: [{ name: 'c', image: 'nginx:2' }] } },
        undefined,
      ),
    ).not.toBe(computeHash(template, undefined));
  });

  /** The same value with every object's keys in reverse insertion order. */
  const reverseKeys = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(reverseKeys)
      : typeof v === 'object' && v !== null
        ? Object.fromEntries(
            Object.entries(v)
              .reverse()
              .map(([k, x]) => [k, reverseKeys(x)]),
          )
        : v;

  it("a hash reads as kube's: at most 10 characters of SafeEncodeString's alphabet (a uint32's decimal digits map onto 456789bcdf), one value per template whatever its key order, and a collisionCount of 0 differs from none", () => {
    fc.assert(
      fc.property(
        fc.record({
          metadata: fc.record({ labels: fc.dictionary(fc.string(), fc.string()) }),
          spec: fc.object(),
        }),
        fc.option(fc.integer({ min: 0, max: 2 ** 31 - 1 }), { nil: undefined }),
        (t, collisionCount) => {
          const hash = computeHash(t, collisionCount);
          expect(hash).toMatch(/^[456789bcdf]{1,10}$/);
          expect(computeHash(reverseKeys(t) as typeof t, collisionCount)).toBe(hash);
          if (collisionCount === undefined) expect(computeHash(t, 0)).not.toBe(hash);
        },
      ),
    );
  });

  it('the hash of a template does not change from one release to the next (a new serialization would rename every ReplicaSet and roll every Deployment)', () => {
    expect(computeHash(template, undefined)).toBe('5776f98846');
    expect(computeHash(template, 1)).toBe('7fdf679775');
  });

  it('templates equal but for pod-template-hash are the same template', () => {
    const hashed = {
      ...template,
      metadata: { labels: { app: 'web', 'pod-template-hash': 'abc' } },
    };
    expect(equalIgnoreHash(hashed, template)).toBe(true);
    expect(equalIgnoreHash(hashed, { ...template, metadata: { labels: { app: 'other' } } })).toBe(
      false,
    );
  });
});

describe('ReplicaSet annotations', () => {
  const d: Deployment = {
    metadata: {
      name: 'd',
      annotations: { team: 'a', 'kubectl.kubernetes.io/last-applied-configuration': '{}' },
    },
    spec: { replicas: 4 },
  };

  it('a new ReplicaSet gets the Deployment’s annotations but last-applied, the revision and the replicas annotations', () => {
    const rs: ReplicaSet = { metadata: {} };
    expect(setNewReplicaSetAnnotations(d, rs, 3, false)).toBe(true);
    expect(rs.metadata.annotations).toEqual({
      team: 'a',
      'deployment.kubernetes.io/revision': '3',
      'deployment.kubernetes.io/desired-replicas': '4',
      'deployment.kubernetes.io/max-replicas': '5',
    });
  });

  it('a ReplicaSet rolled back to keeps its earlier revisions in revision-history', () => {
    const rs: ReplicaSet = {
      metadata: {
        annotations: {
          team: 'a',
          'deployment.kubernetes.io/revision': '2',
          'deployment.kubernetes.io/revision-history': '1',
        },
      },
    };
    expect(setNewReplicaSetAnnotations(d, rs, 5, true)).toBe(true);
    expect(rs.metadata.annotations?.['deployment.kubernetes.io/revision']).toBe('5');
    expect(rs.metadata.annotations?.['deployment.kubernetes.io/revision-history']).toBe('1,2');
    // A lower revision never replaces a higher one.
    expect(setNewReplicaSetAnnotations(d, rs, 4, true)).toBe(false);
  });
});
