import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRequestInfo } from './request-info.js';

// Cases after k8s.io/apiserver/pkg/endpoints/request/requestinfo_test.go.
describe('parseRequestInfo', () => {
  it.each([
    ['/api/v1/pods', { group: '', version: 'v1', resource: 'pods' }],
    ['/api/v1/namespaces/ns/pods', { namespace: 'ns', resource: 'pods' }],
    ['/api/v1/namespaces/ns/pods/p', { namespace: 'ns', resource: 'pods', name: 'p' }],
    [
      '/api/v1/namespaces/ns/pods/p/status',
      { namespace: 'ns', resource: 'pods', name: 'p', subresource: 'status' },
    ],
    ['/api/v1/namespaces', { resource: 'namespaces' }],
    ['/api/v1/namespaces/ns', { resource: 'namespaces', name: 'ns' }],
    ['/api/v1/namespaces/ns/status', { resource: 'namespaces', name: 'ns', subresource: 'status' }],
    [
      '/api/v1/namespaces/ns/finalize',
      { resource: 'namespaces', name: 'ns', subresource: 'finalize' },
    ],
    ['/api/v1/nodes/n1', { resource: 'nodes', name: 'n1' }],
    [
      '/apis/apps/v1/namespaces/ns/deployments/d',
      { group: 'apps', version: 'v1', namespace: 'ns', resource: 'deployments', name: 'd' },
    ],
    [
      '/api/v1/watch/namespaces/ns/configmaps',
      { legacyWatch: true, namespace: 'ns', resource: 'configmaps' },
    ],
    [
      '/api/v1/watch/namespaces/ns/configmaps/c',
      { legacyWatch: true, namespace: 'ns', resource: 'configmaps', name: 'c' },
    ],
    ['/api/v1/watch/pods', { legacyWatch: true, resource: 'pods' }],
    [
      '/api/v1/namespaces/ns/configmaps/a%20b',
      { namespace: 'ns', resource: 'configmaps', name: 'a b' },
    ],
  ])('%s is a resource request', (path, expected) => {
    expect(parseRequestInfo(path)).toMatchObject(expected);
  });

  it.each([
    '/api',
    '/apis',
    '/api/v1',
    '/apis/apps/v1',
    '/healthz',
    '/version',
    '/api/v1/pods//x',
    '/api/v1/namespaces/ns/pods/p/status/extra',
  ])('%s is not a resource request', (path) => {
    expect(parseRequestInfo(path)).toBeUndefined();
  });

  it('any path either parses, is not a resource path, or is a 400', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.constantFrom('api', 'apis', 'v1', 'namespaces', 'watch', 'pods', '', '%', '%zz'),
            fc.string(),
          ),
          { maxLength: 8 },
        ),
        (segments) => {
          try {
            parseRequestInfo('/' + segments.join('/'));
          } catch (err) {
            expect((err as { status?: { code?: number } }).status?.code).toBe(400);
          }
        },
      ),
    );
  });
});

describe('parseRequestInfo asked again', () => {
  it('the same path parses to an equal answer every time, and changing one answer changes no other', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('api', 'v1', 'namespaces', 'ns', 'pods', 'p', 'status', 'watch'), {
          maxLength: 7,
        }),
        (segments) => {
          const path = `/${segments.join('/')}`;
          const first = parseRequestInfo(path);
          if (first) first.resource = 'changed';
          const again = parseRequestInfo(path);
          if (first === undefined) expect(again).toBeUndefined();
          else expect(again?.resource).not.toBe('changed');
          expect(parseRequestInfo(path)).toEqual(again);
        },
      ),
    );
  });
});
