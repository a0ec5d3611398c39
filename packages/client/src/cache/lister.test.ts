import { ApiError } from '@listwatch/api';
import { describe, expect, it } from 'vitest';
import { configMap, equalitySelector, namespaceObject } from '../testing/fixtures.js';
import { newIndexer } from './indexer.js';
import { Lister } from './lister.js';

const configMaps = { resource: 'configmaps' };

function fill() {
  const indexer = newIndexer();
  indexer.add(configMap('a', 'web-1', '1', { app: 'web' }));
  indexer.add(configMap('a', 'db-1', '1', { app: 'db' }));
  indexer.add(configMap('b', 'web-2', '1', { app: 'web' }));
  indexer.add(configMap('b', 'bare'));
  return indexer;
}

const names = (objs: { metadata: { name?: string } }[]) => objs.map((o) => o.metadata.name).sort();

// client-go tools/cache/listers.go (GenericLister, ListAll, ListAllByNamespace).
describe('Lister', () => {
  it('lists everything without a selector and the matching objects with one', () => {
    const lister = new Lister(fill(), configMaps);
    expect(names(lister.list())).toEqual(['bare', 'db-1', 'web-1', 'web-2']);
    expect(names(lister.list(equalitySelector({ app: 'web' })))).toEqual(['web-1', 'web-2']);
  });

  it('an object without labels is matched against an empty label set', () => {
    const lister = new Lister(fill(), configMaps);
    expect(names(lister.list({ matches: (labels) => Object.keys(labels).length === 0 }))).toEqual([
      'bare',
    ]);
  });

  it('a namespace lister sees only its namespace, filtered by the selector', () => {
    const lister = new Lister(fill(), configMaps);
    expect(names(lister.namespace('b').list())).toEqual(['bare', 'web-2']);
    expect(names(lister.namespace('a').list(equalitySelector({ app: 'web' })))).toEqual(['web-1']);
    expect(lister.namespace('empty').list()).toEqual([]);
  });

  it('the empty namespace lists all namespaces (metav1.NamespaceAll)', () => {
    const lister = new Lister(fill(), configMaps);
    expect(lister.namespace('').list()).toHaveLength(4);
  });

  it('a namespace lister works without a namespace index by scanning', () => {
    const indexer = newIndexer({});
    indexer.add(configMap('a', 'x'));
    indexer.add(configMap('b', 'y'));
    expect(names(new Lister(indexer, configMaps).namespace('a').list())).toEqual(['x']);
  });

  it('get finds an object by name in its namespace', () => {
    const lister = new Lister(fill(), configMaps);
    expect(lister.namespace('a').get('db-1').metadata.labels).toEqual({ app: 'db' });
  });

  it('get of a missing object throws 404 NotFound naming the resource', () => {
    const lister = new Lister(fill(), { group: 'apps', resource: 'deployments' });
    try {
      lister.namespace('a').get('nope');
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ApiError);
      expect((e as ApiError).code).toBe(404);
      expect((e as ApiError).message).toBe('deployments.apps "nope" not found');
    }
  });

  it('tryGet answers undefined for a missing object instead of throwing, and the object otherwise', () => {
    const indexer = fill();
    indexer.add(namespaceObject('kube-system'));
    const lister = new Lister(indexer, configMaps);
    expect(lister.namespace('a').tryGet('nope')).toBeUndefined();
    expect(lister.namespace('a').tryGet('db-1')?.metadata.labels).toEqual({ app: 'db' });
    expect(lister.tryGet('default')).toBeUndefined();
    expect(lister.tryGet('kube-system')?.kind).toBe('Namespace');
  });

  it('get without a namespace finds cluster-scoped objects', () => {
    const indexer = newIndexer();
    indexer.add(namespaceObject('kube-system'));
    const lister = new Lister(indexer, { resource: 'namespaces' });
    expect(lister.get('kube-system').kind).toBe('Namespace');
    expect(lister.namespace('').get('kube-system').kind).toBe('Namespace');
    expect(() => lister.get('default')).toThrow(ApiError);
  });

  it('byIndex reads a named index', () => {
    const indexer = fill();
    indexer.addIndexers({ app: (o) => [o.metadata.labels?.['app'] ?? ''] });
    expect(names(new Lister(indexer, configMaps).byIndex('app', 'web'))).toEqual([
      'web-1',
      'web-2',
    ]);
  });
});
