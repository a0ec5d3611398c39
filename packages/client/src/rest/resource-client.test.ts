import {
  ApiError,
  findBuiltinResource,
  isValidPathSegmentName,
  type ResourceDefinition,
} from '@listwatch/api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RestClient } from './client.js';

const def = (plural: string): ResourceDefinition => findBuiltinResource(plural)!;

describe('ResourceClient URLs (k8s.io/client-go/rest request.go URL building)', () => {
  const client = new RestClient({ server: 'https://example.test:6443/prefix/' });
  it('puts the core group under /api and the others under /apis/<group>/<version>', () => {
    expect(client.resource(def('pods')).namespace('ns').collectionPath()).toBe(
      '/api/v1/namespaces/ns/pods',
    );
    expect(client.resource(def('deployments')).namespace('ns').objectPath('web')).toBe(
      '/apis/apps/v1/namespaces/ns/deployments/web',
    );
    expect(client.resource(def('pods')).namespace('ns').objectPath('p', 'ns', 'status')).toBe(
      '/api/v1/namespaces/ns/pods/p/status',
    );
  });

  it('lists a namespaced resource across namespaces when no namespace is set, and never namespaces cluster-scoped ones', () => {
    expect(client.resource(def('pods')).collectionPath()).toBe('/api/v1/pods');
    expect(client.resource(def('nodes')).namespace('ns').objectPath('n1')).toBe('/api/v1/nodes/n1');
  });

  it('refuses to address a namespaced object without a namespace', () => {
    expect(() => client.resource(def('pods')).objectPath('p')).toThrow(ApiError);
  });

  it('refuses names that are not path segments, as client-go does', () => {
    for (const name of ['.', '..', 'a/b', 'a%b']) {
      expect(() => client.resource(def('configmaps')).namespace('ns').objectPath(name)).toThrow(
        ApiError,
      );
    }
  });

  it('keeps the server path prefix and escapes every name', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }).filter((n) => isValidPathSegmentName(n).length === 0),
        (name) => {
          const path = client.resource(def('configmaps')).namespace('ns').objectPath(name);
          const url = client.url(path);
          expect(url.pathname.startsWith('/prefix/api/v1/namespaces/ns/configmaps/')).toBe(true);
          expect(
            decodeURIComponent(
              url.pathname.slice('/prefix/api/v1/namespaces/ns/configmaps/'.length),
            ),
          ).toBe(name);
        },
      ),
    );
  });
});
