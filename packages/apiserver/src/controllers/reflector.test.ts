import { builtinResources, type KubeObject } from '@listwatch/api';
import { MemoryStorage } from '@listwatch/storage';
import { silentLogger } from '@listwatch/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { ensureSystemNamespaces } from '../admission/namespace-lifecycle.js';
import { alwaysAllow } from '../authorization/authorizer.js';
import { RequestAuthorizer } from '../authorization/request-authorizer.js';
import { ResourceRegistry } from '../registry/resource-registry.js';
import { loopbackContext } from '../registry/rest/loopback-context.js';
import { withBuiltinStrategies } from '../registry/served-resources.js';
import { Reflector, type ChangeType } from './reflector.js';

// client-go's Reflector over a Store (tools/cache/reflector.go): the list, then every change,
// read through the Store's watch cache; a watch that breaks is followed by a relist.

const served = builtinResources.filter(
  (d) => d.plural === 'namespaces' || d.plural === 'configmaps',
);
const parts = {
  authorizer: new RequestAuthorizer(alwaysAllow),
  authenticator: { reviewToken: () => Promise.reject(new Error('no tokens here')) },
  logger: silentLogger,
};

async function until<T>(check: () => T | undefined): Promise<T> {
  for (const deadline = Date.now() + 10_000; ;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('gave up waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('Reflector (a Store as lister and watcher)', () => {
  const stops: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
  });

  async function setUp(start = true) {
    const storage = new MemoryStorage({ compactionInterval: 0 });
    const registry = new ResourceRegistry(storage, withBuiltinStrategies(served), {
      logger: silentLogger,
    });
    stops.push(() => storage.close());
    await ensureSystemNamespaces(registry, parts);
    if (start) await registry.start();
    stops.push(() => registry.stop());
    const entry = registry.lookup('', 'v1', 'configmaps')!;
    const create = (name: string) =>
      entry.store.create(
        loopbackContext(parts, {
          verb: 'create',
          apiGroup: '',
          resource: 'configmaps',
          namespace: 'default',
        }),
        undefined,
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } },
        { dryRun: false },
      );
    const seen = new Map<string, KubeObject>();
    const events: [ChangeType | 'LISTED', string][] = [];
    const reflector = new Reflector(
      entry.store,
      parts,
      {
        listed: (objects) => {
          seen.clear();
          for (const o of objects) seen.set(o.metadata.name ?? '', o);
          events.push(['LISTED', objects.map((o) => o.metadata.name).join(',')]);
        },
        changed: (type, object) => {
          if (type === 'DELETED') seen.delete(object.metadata.name ?? '');
          else seen.set(object.metadata.name ?? '', object);
          events.push([type, object.metadata.name ?? '']);
        },
      },
      'test',
    );
    stops.push(() => reflector.stop());
    return { registry, create, seen, events, reflector };
  }

  it('hands on the list, then each change after it', async () => {
    const { create, seen, events, reflector } = await setUp();
    await create('before');
    await reflector.start();
    expect(events).toEqual([['LISTED', 'before']]);
    await create('after');
    await until(() => (seen.has('after') ? true : undefined));
    expect(events).toEqual([
      ['LISTED', 'before'],
      ['ADDED', 'after'],
    ]);
  });

  it('a watch that fails (the watch cache not ready yet: 429) is followed by a relist that misses nothing', async () => {
    const { registry, create, seen, events, reflector } = await setUp(false);
    // Paged lists are served from storage while the cache initializes; watches are refused.
    await reflector.start();
    expect(events).toEqual([['LISTED', '']]);
    await create('meanwhile');
    await registry.start();
    await until(() => (seen.has('meanwhile') ? true : undefined));
    expect(events.at(-1)).toEqual(['LISTED', 'meanwhile']);
    await create('later');
    await until(() => (seen.has('later') ? true : undefined));
    expect(events.at(-1)).toEqual(['ADDED', 'later']);
  });
});
