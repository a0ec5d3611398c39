import { escapeFieldValue } from '@listwatch/api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRequestInfo } from '../request/request-info.js';
import { requestedName, verbOf } from './verb.js';

// A request's verb and name as requestinfo.go gives them (requestinfo_test.go cases and
// properties over arbitrary queries).

const info = (path: string) => parseRequestInfo(path)!;
const query = (q: string) => new URLSearchParams(q);

describe('verbOf and requestedName (requestinfo.go)', () => {
  it.each([
    ['GET', '/api/v1/namespaces/ns/pods', '', 'list', undefined],
    ['GET', '/api/v1/namespaces/ns/pods', 'watch=true', 'watch', undefined],
    ['GET', '/api/v1/namespaces/ns/pods/p1', 'watch=true', 'get', 'p1'],
    ['GET', '/api/v1/namespaces/ns/pods/p1/status', 'watch=1', 'get', 'p1'],
    ['GET', '/api/v1/watch/namespaces/ns/pods/p1', '', 'watch', 'p1'],
    [
      'GET',
      '/api/v1/watch/namespaces/ns/pods',
      'fieldSelector=metadata.name%3Dp1',
      'watch',
      undefined,
    ],
    ['GET', '/api/v1/namespaces/ns/pods', 'fieldSelector=metadata.name%3Dp1', 'list', 'p1'],
    [
      'GET',
      '/api/v1/namespaces/ns/pods',
      'watch=1&fieldSelector=metadata.name%3D%3Dp1',
      'watch',
      'p1',
    ],
    ['GET', '/api/v1/namespaces/ns/pods', 'fieldSelector=metadata.name!%3Dp1', 'list', undefined],
    ['GET', '/api/v1/namespaces/ns/pods', 'fieldSelector=metadata.name%3D', 'list', undefined],
    ['GET', '/api/v1/namespaces/ns/pods', 'fieldSelector=metadata.name%3D..', 'list', undefined],
    ['GET', '/api/v1/namespaces/ns/pods', 'fieldSelector=a%3D%3D%3D', 'list', undefined],
    [
      'DELETE',
      '/api/v1/namespaces/ns/pods',
      'fieldSelector=metadata.name%3Dp1',
      'deletecollection',
      undefined,
    ],
  ])('%s %s?%s is %s of %s', (method, path, q, verb, name) => {
    const parsed = info(path);
    const v = verbOf(method, parsed, query(q))!;
    expect(v).toBe(verb);
    expect(requestedName(v, parsed, query(q))).toBe(name);
  });

  it('a GET naming an object is never a watch but through the legacy /watch/ prefix', () => {
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.stringMatching(/^[a-z0-9][a-z0-9.-]{0,20}$/),
        fc.array(fc.tuple(fc.constantFrom('watch', 'fieldSelector', 'x'), fc.string())),
        (legacy, name, pairs) => {
          const parsed = info(`/api/v1/${legacy ? 'watch/' : ''}namespaces/ns/pods/${name}`);
          const q = new URLSearchParams(pairs);
          const verb = verbOf('GET', parsed, q)!;
          expect(verb).toBe(legacy ? 'watch' : 'get');
          expect(requestedName(verb, parsed, q)).toBe(name);
        },
      ),
    );
  });

  it('an exact metadata.name selector names a list, whatever else it selects; nothing else throws', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }).filter((n) => !/[/%]/.test(n) && n !== '.' && n !== '..'),
        fc.array(fc.tuple(fc.constantFrom('spec.nodeName', 'metadata.namespace'), fc.string())),
        fc.string(),
        (name, others, garbage) => {
          const parsed = info('/api/v1/namespaces/ns/pods');
          const terms = [
            `metadata.name=${escapeFieldValue(name)}`,
            ...others.map(([f, v]) => `${f}=${escapeFieldValue(v)}`),
          ];
          expect(
            requestedName(
              'list',
              parsed,
              query(`fieldSelector=${encodeURIComponent(terms.join(','))}`),
            ),
          ).toBe(name);
          // Any selector at all: a name or none, never an exception (requestinfo.go logs and goes on).
          expect(() =>
            requestedName('watch', parsed, new URLSearchParams({ fieldSelector: garbage })),
          ).not.toThrow();
        },
      ),
    );
  });
});
