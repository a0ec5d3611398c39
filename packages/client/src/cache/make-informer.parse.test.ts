import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCollectionPath } from './make-informer.js';

describe('parseCollectionPath', () => {
  it('reads core and grouped, namespaced and cluster-wide collection paths', () => {
    expect(parseCollectionPath('/api/v1/namespaces/default/pods')).toEqual({
      resource: { group: '', version: 'v1', plural: 'pods', namespaced: true },
      namespace: 'default',
    });
    expect(parseCollectionPath('/api/v1/pods')).toMatchObject({
      resource: { plural: 'pods', namespaced: true },
      namespace: '',
    });
    expect(parseCollectionPath('/apis/apps/v1/namespaces/x/deployments/')).toMatchObject({
      resource: { group: 'apps', plural: 'deployments' },
      namespace: 'x',
    });
    expect(parseCollectionPath('/api/v1/nodes')).toMatchObject({
      resource: { plural: 'nodes', namespaced: false },
    });
    expect(parseCollectionPath('/apis/example.com/v1/namespaces/a/widgets')).toMatchObject({
      resource: { group: 'example.com', plural: 'widgets', namespaced: true },
    });
  });

  it('rejects anything that is not a collection with a 400', () => {
    fc.assert(
      fc.property(fc.string(), (path) => {
        try {
          const { resource } = parseCollectionPath(path);
          expect(resource.plural.length).toBeGreaterThan(0);
        } catch (err) {
          expect(err).toMatchObject({ code: 400 });
        }
      }),
    );
    for (const bad of [
      '/api',
      '/api/v1/namespaces/x',
      '/apis/apps/v1/namespaces/x/deployments/web',
      'pods',
    ]) {
      expect(() => parseCollectionPath(bad)).toThrow(/not a collection path/);
    }
  });
});
