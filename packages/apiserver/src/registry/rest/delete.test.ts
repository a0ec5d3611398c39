import { metaV1Time, type DeleteOptions, type KubeObject } from '@listwatch/api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  beforeDelete,
  deletionFinalizersForGarbageCollection,
  markAsDeleting,
  type GarbageCollectionPolicy,
} from './delete.js';
import { podGracePeriod, podStrategy, type Pod } from '../core/pod/strategy.js';

// rest/delete.go BeforeDelete, pod/strategy.go CheckGracefulDelete and store.go markAsDeleting.

const NOW = Date.parse('2026-03-01T12:00:00.750Z');

function pod(spec: NonNullable<Pod['spec']>, status: NonNullable<Pod['status']> = {}): Pod {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec, status };
}

const seconds = fc.integer({ min: -100, max: 100_000 });

describe('BeforeDelete with the pod strategy', () => {
  it('a bound, running pod is deleted gracefully: deadline now + grace, grace from the options, else the pod, else 30; negative is 1', () => {
    fc.assert(
      fc.property(
        fc.option(seconds, { nil: undefined }),
        fc.option(seconds, { nil: undefined }),
        (asked, own) => {
          const spec = {
            nodeName: 'n',
            ...(own !== undefined ? { terminationGracePeriodSeconds: own } : {}),
          };
          const result = beforeDelete(
            podStrategy,
            pod(spec, { phase: 'Running' }),
            asked !== undefined ? { gracePeriodSeconds: asked } : {},
            NOW,
          );
          const raw = asked !== undefined ? (asked < 0 ? 1 : asked) : (own ?? 30);
          const grace = raw < 0 ? 1 : raw;
          expect(result).toMatchObject({
            graceful: true,
            pending: false,
            gracePeriodSeconds: grace,
          });
          expect(result.object.metadata.deletionGracePeriodSeconds).toBe(grace);
          expect(result.object.metadata.deletionTimestamp).toBe(metaV1Time(NOW + grace * 1000));
        },
      ),
    );
  });

  it('an unbound or finished pod has no grace period', () => {
    expect(podGracePeriod(pod({}), { gracePeriodSeconds: 60 })).toBe(0);
    for (const phase of ['Succeeded', 'Failed'])
      expect(podGracePeriod(pod({ nodeName: 'n' }, { phase }), {})).toBe(0);
    expect(podGracePeriod(pod({ nodeName: 'n' }, { phase: 'Pending' }), {})).toBe(30);
  });

  it('a pod being deleted keeps its deadline unless a shorter grace period moves it back by the difference; at 0 s it goes at once', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 3600 }),
        fc.option(seconds, { nil: undefined }),
        (period, asked) => {
          const deadline = metaV1Time(NOW + period * 1000);
          const marked: KubeObject = {
            ...pod({ nodeName: 'n' }),
            metadata: {
              name: 'p',
              deletionTimestamp: deadline,
              deletionGracePeriodSeconds: period,
            },
          };
          const result = beforeDelete(
            podStrategy,
            marked,
            asked !== undefined ? { gracePeriodSeconds: asked } : {},
            NOW,
          );
          const requested = asked === undefined ? undefined : asked < 0 ? 1 : asked;
          if (requested === undefined || requested >= period) {
            expect(result).toMatchObject({ graceful: false, pending: true });
            expect(result.object).toEqual(marked);
          } else {
            expect(result).toMatchObject({
              graceful: true,
              pending: false,
              gracePeriodSeconds: requested,
            });
            expect(Date.parse(result.object.metadata.deletionTimestamp ?? '')).toBe(
              Date.parse(deadline) - (period - requested) * 1000,
            );
          }
        },
      ),
    );
    const zero: KubeObject = {
      ...pod({ nodeName: 'n' }),
      metadata: { name: 'p', deletionTimestamp: metaV1Time(NOW), deletionGracePeriodSeconds: 0 },
    };
    expect(beforeDelete(podStrategy, zero, {}, NOW)).toMatchObject({
      graceful: false,
      pending: false,
    });
  });

  it('a kind without graceful deletion is never graceful nor pending', () => {
    fc.assert(
      fc.property(fc.option(seconds, { nil: undefined }), (asked) => {
        const result = beforeDelete(
          {},
          {
            metadata: {
              name: 'c',
              deletionTimestamp: metaV1Time(NOW),
              deletionGracePeriodSeconds: 5,
            },
          },
          asked !== undefined ? { gracePeriodSeconds: asked } : {},
          NOW,
        );
        expect(result).toMatchObject({ graceful: false, pending: false });
      }),
    );
  });
});

describe('markAsDeleting', () => {
  it('sets deletionTimestamp now with grace 0, keeps an earlier one, pulls a later one in, and bumps generation only the first time', () => {
    const fresh = markAsDeleting({ metadata: { name: 'd', generation: 3 } }, ['x'], NOW);
    expect(fresh.metadata).toEqual({
      name: 'd',
      generation: 4,
      finalizers: ['x'],
      deletionTimestamp: '2026-03-01T12:00:00Z',
      deletionGracePeriodSeconds: 0,
    });
    expect(markAsDeleting(fresh, ['x'], NOW + 60_000).metadata).toMatchObject({
      generation: 4,
      deletionTimestamp: '2026-03-01T12:00:00Z',
    });
    const later = { metadata: { name: 'p', deletionTimestamp: '2026-03-01T12:00:30Z' } };
    expect(markAsDeleting(later, ['x'], NOW).metadata.deletionTimestamp).toBe(
      '2026-03-01T12:00:00Z',
    );
    expect(
      markAsDeleting({ metadata: { name: 'c' } }, ['x'], NOW).metadata.generation,
    ).toBeUndefined();
  });
});

// store.go deletionFinalizersForGarbageCollection, shouldOrphanDependents, shouldDeleteDependents.
describe('the garbage collector finalizers a delete leaves', () => {
  const object = (finalizers?: string[]): KubeObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'c', ...(finalizers ? { finalizers } : {}) },
  });
  const gc = (
    finalizers: string[] | undefined,
    options: DeleteOptions,
    policy?: GarbageCollectionPolicy,
  ) =>
    deletionFinalizersForGarbageCollection(
      policy ? { defaultGarbageCollectionPolicy: policy } : {},
      object(finalizers),
      options,
    );

  it('propagationPolicy Orphan adds orphan, Foreground adds foregroundDeletion, Background neither, replacing the other GC finalizer', () => {
    expect(gc(['a'], { propagationPolicy: 'Orphan' })).toEqual(['a', 'orphan']);
    expect(gc(['orphan', 'a'], { propagationPolicy: 'Foreground' })).toEqual([
      'a',
      'foregroundDeletion',
    ]);
    expect(gc(['foregroundDeletion', 'a'], { propagationPolicy: 'Background' })).toEqual(['a']);
  });

  it('orphanDependents true orphans; false removes both GC finalizers (never foreground)', () => {
    expect(gc(undefined, { orphanDependents: true })).toEqual(['orphan']);
    expect(gc(['foregroundDeletion'], { orphanDependents: false })).toEqual([]);
  });

  it('with no policy asked, the GC finalizer the object carries stands, else the kind default decides', () => {
    expect(gc(['foregroundDeletion'], {})).toEqual(['foregroundDeletion']);
    expect(gc(['orphan'], {}, 'DeleteDependents')).toEqual(['orphan']);
    expect(gc(undefined, {})).toEqual([]);
    expect(gc(undefined, {}, 'OrphanDependents')).toEqual(['orphan']);
    expect(gc(['foregroundDeletion'], {}, 'OrphanDependents')).toEqual(['foregroundDeletion']);
  });

  it('a kind whose policy is Unsupported never gets a GC finalizer and loses none it has', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('orphan', 'foregroundDeletion', 'example.com/x'), {
          maxLength: 4,
        }),
        fc.constantFrom<DeleteOptions>(
          {},
          { propagationPolicy: 'Orphan' },
          { propagationPolicy: 'Foreground' },
          { orphanDependents: true },
        ),
        (finalizers, options) => {
          const result = gc(finalizers, options, 'Unsupported');
          expect(result).toEqual(
            finalizers.filter((f) => f !== 'orphan' && f !== 'foregroundDeletion'),
          );
        },
      ),
    );
  });

  it('the other finalizers keep their order, and an unchanged set keeps the object’s own order', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.constantFrom('orphan', 'foregroundDeletion', 'x/a', 'x/b', 'x/c')),
        fc.constantFrom<DeleteOptions>({}, { propagationPolicy: 'Orphan' }),
        (finalizers, options) => {
          const result = gc(finalizers, options);
          const others = finalizers.filter((f) => f.startsWith('x/'));
          expect(result.filter((f) => f.startsWith('x/'))).toEqual(others);
          if (
            new Set(result).size === finalizers.length &&
            finalizers.every((f) => result.includes(f))
          )
            expect(result).toEqual(finalizers);
        },
      ),
    );
  });
});
