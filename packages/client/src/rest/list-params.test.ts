import { parseLabelSelector, parseListOptions } from '@listwatch/api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { listParamsToQuery, type ListParams } from './list-params.js';

const label = fc.stringMatching(/^[a-z]([a-z0-9-]{0,8}[a-z0-9])?$/);

describe('listParamsToQuery', () => {
  it('produces a query kube-apiserver parses back to the same options', () => {
    fc.assert(
      fc.property(
        fc.record(
          {
            labelSelector: fc.tuple(label, label).map(([k, v]) => `${k}=${v}`),
            fieldSelector: label.map((v) => `metadata.name=${v}`),
            resourceVersion: fc.integer({ min: 1, max: 1e9 }).map(String),
            limit: fc.integer({ min: 1, max: 10_000 }),
            timeoutSeconds: fc.integer({ min: 0, max: 3600 }),
            allowWatchBookmarks: fc.boolean(),
          },
          { requiredKeys: [] },
        ),
        fc.boolean(),
        (params: ListParams, watch) => {
          const parsed = parseListOptions(listParamsToQuery(params, watch));
          expect(parsed.watch).toBe(watch);
          expect(parsed.labelSelector.toString()).toBe(params.labelSelector ?? '');
          expect(parsed.fieldSelector.toString()).toBe(params.fieldSelector ?? '');
          expect(parsed.resourceVersion).toBe(params.resourceVersion);
          expect(parsed.limit).toBe(params.limit);
          expect(parsed.timeoutSeconds).toBe(params.timeoutSeconds);
          expect(parsed.allowWatchBookmarks).toBe(params.allowWatchBookmarks ?? false);
        },
      ),
    );
  });

  it('writes a watch-list request the apiserver accepts', () => {
    const query = listParamsToQuery(
      { sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: true },
      true,
    );
    expect(query.toString()).toBe(
      'watch=1&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&sendInitialEvents=true',
    );
    expect(parseListOptions(query)).toMatchObject({
      watch: true,
      sendInitialEvents: true,
      resourceVersionMatch: 'NotOlderThan',
    });
  });

  it('takes parsed selectors as well as strings, and leaves continue out of a watch', () => {
    const query = listParamsToQuery(
      { labelSelector: parseLabelSelector('app in (a,b)'), continue: 'tok' },
      true,
    );
    expect(query.get('labelSelector')).toBe('app in (a,b)');
    expect(query.has('continue')).toBe(false);
  });
});
