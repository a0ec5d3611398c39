import { findBuiltinResource, type KubeObject } from '@listwatch/api';
import { EtcdCluster, TcpProxy } from '@listwatch/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Etcd3Storage } from '../etcd3/etcd3-storage.js';
import { Cacher } from './cacher.js';

// The watch cache on a real etcd that fails under it: kube's Cacher re-initializes on any
// break of its storage watch (compaction included) and must end consistent with storage.

const configmaps = findBuiltinResource('configmaps')!;
let etcd: EtcdCluster;
let seq = 0;

beforeAll(async () => {
  etcd = await EtcdCluster.start();
});
afterAll(() => etcd.destroy());

const cm = (name: string, v = '1'): KubeObject => ({
  metadata: { name, namespace: 'ns' },
  data: { v },
});

async function cachedNames(cacher: Cacher): Promise<string[]> {
  return (await cacher.list({ resourceVersion: '0' })).items.map(
    (o) => `${o.metadata.name}@${o.metadata.resourceVersion}`,
  );
}

async function storedNames(storage: Etcd3Storage): Promise<string[]> {
  return (await storage.list(`${storage.prefix}/configmaps/`)).items.map(
    (o) => `${o.metadata.name}@${o.metadata.resourceVersion}`,
  );
}

describe('the watch cache on a failing etcd', () => {
  it('re-initializes when its watch resumes from a compacted revision, ending watchers, then matches storage', async () => {
    const prefix = `/faults-${seq++}`;
    const proxy = await TcpProxy.start(etcd.member.options.clientPort);
    const cached = new Etcd3Storage({
      endpoints: [proxy.endpoint],
      prefix,
      compactionInterval: 0,
      requestTimeout: 2000,
    });
    const direct = new Etcd3Storage({ endpoints: etcd.endpoints, prefix, compactionInterval: 0 });
    const cacher = new Cacher({
      storage: cached,
      definition: configmaps,
      freshnessTimeoutMs: 2000,
    });
    try {
      await direct.create(`${prefix}/configmaps/ns/a`, cm('a'));
      await cacher.start();
      const watcher = await cacher.watch({ resourceVersion: '0' });
      proxy.cut();
      // While the cache is cut off: changes it misses, then history compacted past them.
      await direct.update(`${prefix}/configmaps/ns/a`, cm('a', '2'));
      await direct.create(`${prefix}/configmaps/ns/b`, cm('b'));
      await direct.delete(`${prefix}/configmaps/ns/a`);
      await direct.compact(await direct.currentRevision());
      proxy.restore();
      await expect.poll(() => watcher.endReason, { timeout: 20_000 }).toBe('reinitializing');
      await cacher.waitReady();
      await expect
        .poll(() => cachedNames(cacher), { timeout: 10_000 })
        .toEqual(await storedNames(direct));
    } finally {
      await cacher.stop();
      await cached.close();
      await direct.close();
      await proxy.close();
    }
  });

  it('survives etcd being killed and restarted: the cache ends equal to storage, no event lost', async () => {
    const prefix = `/faults-${seq++}`;
    const storage = new Etcd3Storage({
      endpoints: etcd.endpoints,
      prefix,
      compactionInterval: 0,
      requestTimeout: 2000,
    });
    const cacher = new Cacher({ storage, definition: configmaps, freshnessTimeoutMs: 2000 });
    try {
      await cacher.start();
      const watcher = await cacher.watch({ resourceVersion: String(cacher.revision) });
      for (let i = 0; i < 5; i++)
        await storage.create(`${prefix}/configmaps/ns/c${i}`, cm(`c${i}`));
      await etcd.member.kill();
      await etcd.member.start();
      for (let i = 5; i < 10; i++) {
        // A write during recovery may fail as Unreachable; the client retries, as kubectl would.
        await expect
          .poll(
            async () =>
              storage.create(`${prefix}/configmaps/ns/c${i}`, cm(`c${i}`)).then(
                () => true,
                () => false,
              ),
            { timeout: 20_000 },
          )
          .toBe(true);
      }
      await expect
        .poll(() => cachedNames(cacher), { timeout: 20_000 })
        .toEqual(await storedNames(storage));
      // The open watcher either saw all ten creations in order or was ended to resume.
      const seen: string[] = [];
      for (;;) {
        const batch = await Promise.race([
          watcher.nextBatch(),
          new Promise<null>((r) => setTimeout(() => r(null), 300)),
        ]);
        if (!batch) break;
        seen.push(...batch.map((b) => (b.encoded.event.object as KubeObject).metadata.name ?? ''));
      }
      if (watcher.endReason === undefined)
        expect(seen).toEqual(Array.from({ length: 10 }, (_, i) => `c${i}`));
      else expect(seen).toEqual(Array.from({ length: seen.length }, (_, i) => `c${i}`));
    } finally {
      await cacher.stop();
      await storage.close();
    }
  });

  it('consistent LISTs read their own writes under 10 concurrent writers', async () => {
    const prefix = `/faults-${seq++}`;
    const storage = new Etcd3Storage({ endpoints: etcd.endpoints, prefix, compactionInterval: 0 });
    const cacher = new Cacher({ storage, definition: configmaps });
    try {
      await cacher.start();
      await Promise.all(
        Array.from({ length: 10 }, async (_, w) => {
          for (let i = 0; i < 5; i++) {
            const created = await storage.create(
              `${prefix}/configmaps/ns/w${w}-${i}`,
              cm(`w${w}-${i}`),
            );
            const list = await cacher.list({});
            expect(Number(list.resourceVersion)).toBeGreaterThanOrEqual(
              Number(created.metadata.resourceVersion),
            );
            expect(list.items.map((o) => o.metadata.name)).toContain(`w${w}-${i}`);
          }
        }),
      );
    } finally {
      await cacher.stop();
      await storage.close();
    }
  });
});
