import type { KubeObject } from '@listwatch/api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { beforeDelete, formatTime, markAsDeleting } from './graceful-deletion.js';
import { podGracePeriod, podStrategy } from './pod-strategy.js';

// rest/delete.go BeforeDelete, pod/strategy.go CheckGracefulDelete and store.go markAsDeleting.

const NOW = Date.parse('2026-03-01T12:00:00.750Z');

function pod(spec: Record<string, unknown>, status: Record<string, unknown> = {}): KubeObject {
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
          expect(result.object.metadata.deletionTimestamp).toBe(formatTime(NOW + grace * 1000));
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
          const deadline = formatTime(NOW + period * 1000);
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
      metadata: { name: 'p', deletionTimestamp: formatTime(NOW), deletionGracePeriodSeconds: 0 },
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
              deletionTimestamp: formatTime(NOW),
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
