import { ApiError, type KubeList, type KubeObject } from '@listwatch/api';
import { describe, expect, it } from 'vitest';
import type { ListParams } from '../rest/list-params.js';
import { ListPager } from './list-pager.js';

const pod = (name: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'ns' },
});

/** A list of `names`, pointing at `next` when there is more. */
const page = (names: string[], next?: string): KubeList => ({
  apiVersion: 'v1',
  kind: 'PodList',
  metadata: { resourceVersion: '7', ...(next ? { continue: next, remainingItemCount: 1 } : {}) },
  items: names.map(pod),
});

const names = (list: KubeList): string[] => list.items.map((o) => o.metadata.name ?? '');

describe('ListPager.list (client-go tools/pager)', () => {
  it('joins every page into one list without continue or remainingItemCount, and leaves each page as it came', async () => {
    const pages: Record<string, KubeList> = {
      '': page(['a', 'b'], 'p2'),
      p2: page(['c', 'd'], 'p3'),
      p3: page(['e']),
    };
    const asked: ListParams[] = [];
    const pager = new ListPager(
      (params) => {
        asked.push(params);
        return Promise.resolve(pages[params.continue ?? '']!);
      },
      { pageSize: 2 },
    );

    const { list, paginated } = await pager.list({ resourceVersion: '0' });

    expect(names(list)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(list.metadata).toEqual({ resourceVersion: '7' });
    expect(paginated).toBe(true);
    expect(asked).toEqual([
      { resourceVersion: '0', limit: 2 },
      { limit: 2, continue: 'p2' },
      { limit: 2, continue: 'p3' },
    ]);
    // The joined items live in an array of the pager's own, not in the first page's.
    expect(names(pages['']!)).toEqual(['a', 'b']);
  });

  it('returns a list the server did not split as it came, and says it was not paginated', async () => {
    const whole = page(['a', 'b', 'c']);
    const pager = new ListPager(() => Promise.resolve(whole), { pageSize: 2 });

    const { list, paginated } = await pager.list({ resourceVersion: '0' });

    expect(names(list)).toEqual(['a', 'b', 'c']);
    expect(paginated).toBe(false);
  });

  it('drops the pages gathered so far when a continue token expires, keeps the full list that replaces them, and still reports the result as paginated', async () => {
    const pager = new ListPager(
      (params) => {
        if (params.continue === 'p2') {
          return Promise.reject(
            new ApiError({ code: 410, reason: 'Expired', message: 'continue token too old' }),
          );
        }
        if (params.limit === undefined) return Promise.resolve(page(['a', 'b', 'c']));
        return Promise.resolve(page(['a', 'x'], 'p2'));
      },
      { pageSize: 2 },
    );

    const { list, paginated } = await pager.list({ resourceVersion: '' });

    expect(names(list)).toEqual(['a', 'b', 'c']);
    // The server did split it: the next relist should page again (client-go paginatedResult).
    expect(paginated).toBe(true);
  });
});
