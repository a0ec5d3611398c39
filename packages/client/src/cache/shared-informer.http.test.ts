import {
  ApiError,
  findBuiltinResource,
  jsonLineLogger,
  type KubeObject,
  type Logger,
} from '@listwatch/api';
import type { RunningApiServer } from '@listwatch/apiserver';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RestClient } from '../rest/client.js';
import type { ResourceClient } from '../rest/resource-client.js';
import { backends } from '../testing/backends.js';
import { eventually } from '../testing/eventually.js';
import { configMap } from '../testing/fixtures.js';
import { PausableProxy } from '../testing/pausable-proxy.js';
import { json, proxyTo, statusBody, TestServer } from '../testing/test-server.js';
import { DeletedFinalStateUnknown } from './deleted-final-state-unknown.js';
import { SharedInformerFactory, type InformerFactoryOptions } from './informer-factory.js';
import type { EventHandler } from './processor-listener.js';
import type { SharedIndexInformer } from './shared-informer.js';
import { startTestApiServer } from '../testing/apiserver.js';

const configmaps = findBuiltinResource('configmaps')!;
const FAST = { backoff: { initialMs: 10, maxMs: 50 } };

function recorder(): { handler: EventHandler; seen: string[] } {
  const seen: string[] = [];
  const key = (o: KubeObject) => `${o.metadata.namespace}/${o.metadata.name}`;
  return {
    seen,
    handler: {
      onAdd: (o) => void seen.push(`add ${key(o)}`),
      onUpdate: (o, n) => {
        if (o.metadata.resourceVersion !== n.metadata.resourceVersion)
          seen.push(`update ${key(n)}`);
      },
      onDelete: (o) =>
        void seen.push(
          o instanceof DeletedFinalStateUnknown ? `tombstone ${o.key}` : `delete ${key(o)}`,
        ),
    },
  };
}

/** Everything this file starts, stopped after each test. */
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function factory(
  client: RestClient,
  options: Partial<InformerFactoryOptions> = {},
): SharedInformerFactory {
  const f = new SharedInformerFactory({ client, reflector: FAST, ...options });
  cleanups.push(() => f.shutdown());
  return f;
}

/** A factory's configmaps informer with a recorder attached, started; `synced` is its sync result. */
async function syncedInformer(
  api: RestClient,
  options: Partial<InformerFactoryOptions>,
): Promise<{ informer: SharedIndexInformer; rec: ReturnType<typeof recorder>; synced: boolean[] }> {
  const f = factory(api, options);
  const informer = f.informerFor(configmaps);
  const rec = recorder();
  informer.addEventHandler(rec.handler);
  f.start();
  return { informer, rec, synced: [...(await f.waitForCacheSync()).values()] };
}

/** A logger keeping every line it writes, parsed. */
function recordingLogger(level: 'info' | 'debug'): {
  logger: Logger;
  records: Record<string, string>[];
} {
  const records: Record<string, string>[] = [];
  const write = (l: string) => void records.push(JSON.parse(l) as Record<string, string>);
  return { logger: jsonLineLogger({ level, write }), records };
}

function client(server: string): RestClient {
  const c = new RestClient({ server, retry: { backoff: { initialMs: 10, maxMs: 50 } } });
  cleanups.push(() => c.close());
  return c;
}

async function serverState(cms: ResourceClient): Promise<Map<string, string | undefined>> {
  const list = await cms.list();
  return new Map(
    list.items.map((o) => [
      `${o.metadata.namespace}/${o.metadata.name}`,
      o.metadata.resourceVersion,
    ]),
  );
}

describe.each(backends())(
  'informers over HTTP against the apiserver on $name storage',
  (backend) => {
    let apiserver: RunningApiServer;
    let ns = 0;
    /** A fresh namespace per test (the apiserver refuses objects in namespaces that do not exist). */
    const namespace = async (): Promise<string> => {
      const name = `ns-${++ns}`;
      const api = new RestClient({ server: apiserver.url });
      await api
        .resource(findBuiltinResource('namespaces')!)
        .create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
      await api.close();
      return name;
    };

    beforeAll(async () => {
      await backend.setup();
      apiserver = await startTestApiServer({
        storage: backend.open('main'),
        bookmarkIntervalMs: 500,
      });
    });
    afterAll(async () => {
      await apiserver?.close();
      await backend.teardown();
    });

    it('syncs the initial state, then sees every added, modified and deleted object', async () => {
      const space = await namespace();
      const api = client(apiserver.url);
      const cms = api.resource(configmaps).namespace(space);
      await cms.create(configMap(space, 'before'));
      const { informer, rec, synced } = await syncedInformer(api, { namespace: space });
      expect(synced).toEqual([true]);
      const a = await cms.create(configMap(space, 'a'));
      await cms.update({ ...a, data: { k: 'v' } });
      await cms.delete('before');
      await eventually(() =>
        expect(rec.seen).toEqual([
          `add ${space}/before`,
          `add ${space}/a`,
          `update ${space}/a`,
          `delete ${space}/before`,
        ]),
      );
      await eventually(async () =>
        expect(
          new Map(
            informer
              .getIndexer()
              .list()
              .map((o) => [
                `${o.metadata.namespace}/${o.metadata.name}`,
                o.metadata.resourceVersion,
              ]),
          ),
        ).toEqual(await serverState(cms)),
      );
    });

    it('shares one informer per resource, namespace and selector', () => {
      const api = client(apiserver.url);
      const f = factory(api);
      const one = f.informerFor(configmaps, { namespace: 'x' });
      expect(f.informerFor(configmaps, { namespace: 'x' })).toBe(one);
      expect(f.informerFor(configmaps, { namespace: 'y' })).not.toBe(one);
      expect(
        f.informerFor(configmaps, {
          namespace: 'x',
          tweakListOptions: (p) => ({ ...p, labelSelector: 'a=b' }),
        }),
      ).not.toBe(one);
    });

    it('waitForCacheSync waits for the informers it started, not for one created after start', async () => {
      const space = await namespace();
      const f = factory(client(apiserver.url), { namespace: space });
      f.informerFor(configmaps);
      f.start();
      const late = f.informerFor(configmaps, { namespace: `${space}-late` });
      const synced = await f.waitForCacheSync(AbortSignal.timeout(5000));
      expect([...synced.values()]).toEqual([true]);
      expect(late.hasSynced()).toBe(false);
    });

    it('follows objects into and out of its label selector', async () => {
      const space = await namespace();
      const api = client(apiserver.url);
      const cms = api.resource(configmaps).namespace(space);
      const { rec } = await syncedInformer(api, {
        namespace: space,
        tweakListOptions: (p) => ({ ...p, labelSelector: 'tier=web' }),
      });
      const a = await cms.create(configMap(space, 'a', undefined, { tier: 'db' }));
      const b = await cms.update({ ...a, metadata: { ...a.metadata, labels: { tier: 'web' } } });
      await cms.update({ ...b, metadata: { ...b.metadata, labels: { tier: 'db' } } });
      await eventually(() => expect(rec.seen).toEqual([`add ${space}/a`, `delete ${space}/a`]));
    });

    it('isolates a slow and a throwing handler from the others', async () => {
      const space = await namespace();
      const api = client(apiserver.url);
      const cms = api.resource(configmaps).namespace(space);
      const f = factory(api, { namespace: space, handlerBufferSize: 4 });
      const informer = f.informerFor(configmaps);
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const slowSeen = new Set<string>();
      const slow = informer.addEventHandler(
        { onAdd: async (o) => (await gate, void slowSeen.add(o.metadata.name!)) },
        { name: 'slow' },
      );
      const broken = informer.addEventHandler(
        {
          onAdd: () => {
            throw new Error('handler bug');
          },
        },
        { name: 'broken' },
      );
      const rec = recorder();
      informer.addEventHandler(rec.handler, { name: 'healthy' });
      f.start();
      await f.waitForCacheSync();
      for (let i = 0; i < 12; i++) await cms.create(configMap(space, `o${i}`));
      await eventually(() => expect(rec.seen).toHaveLength(12));
      expect(slow.metrics()).toMatchObject({ lagging: true });
      expect(broken.metrics().handlerErrors).toBe(12);
      release();
      await eventually(() => expect(slowSeen.size).toBe(12));
      expect(slow.metrics().lagging).toBe(false);
    });

    it('relists after a 410 and reports the deletes it missed as tombstones', async () => {
      const small = await startTestApiServer({
        storage: backend.open('small-window'),
        defaultWatchCacheSize: 5,
      });
      cleanups.push(() => small.close());
      const proxy = await PausableProxy.start(small.port);
      cleanups.push(() => proxy.close());
      const direct = client(small.url).resource(configmaps).namespace('default');
      for (const name of ['keep', 'gone']) await direct.create(configMap('default', name));
      const { logger, records } = recordingLogger('info');
      const { informer, rec } = await syncedInformer(client(proxy.url), {
        namespace: 'default',
        logger,
      });
      // An event on the watch first: a watch that breaks before any would count as failed and relist.
      await direct.create(configMap('default', 'warmup'));
      await eventually(() => expect(rec.seen).toContain('add default/warmup'));

      await proxy.pause();
      await direct.delete('gone');
      for (let i = 0; i < 10; i++) await direct.create(configMap('default', `churn-${i}`));
      await proxy.resume();

      await eventually(() => expect(rec.seen).toContain('tombstone default/gone')).catch(
        (err: unknown) => {
          const log = records.map((r) => JSON.stringify(r)).join('\n');
          throw new Error(`${String(err)}\n${log}\n${rec.seen.join('\n')}`);
        },
      );
      await eventually(async () =>
        expect(new Set(informer.getIndexer().listKeys())).toEqual(
          new Set((await serverState(direct)).keys()),
        ),
      );
      // The re-watch from the old resourceVersion was answered 410, and the relist asked for that
      // same RV (NotOlderThan, served by the watch cache) rather than a quorum read.
      const expired = records.find((l) => l.msg === 'watch expired, relisting');
      expect(expired?.error).toMatch(/too old resource version/);
      const relist = records.filter((l) => l.msg === 'listed').at(-1);
      expect(relist?.requestedResourceVersion).toBe(expired?.resourceVersion);
    });

    it('resumes after its connections drop: misses nothing written meanwhile, and does not relist', async () => {
      const space = await namespace();
      const proxy = await PausableProxy.start(apiserver.port);
      cleanups.push(() => proxy.close());
      const { logger, records } = recordingLogger('debug');
      const { informer, rec } = await syncedInformer(client(proxy.url), {
        namespace: space,
        logger,
      });
      const direct = client(apiserver.url).resource(configmaps).namespace(space);
      // An event first: a watch that breaks within a second having seen nothing counts as an
      // error and relists (client-go handleWatch's "very short watch").
      await direct.create(configMap(space, 'before'));
      await eventually(() => expect(rec.seen).toEqual([`add ${space}/before`]));
      await proxy.pause(); // connections reset, new ones refused
      const a = await direct.create(configMap(space, 'while-down'));
      await direct.update({ ...a, data: { k: 'v' } });
      await proxy.resume();
      await direct.create(configMap(space, 'after'));
      await eventually(() =>
        expect(rec.seen).toEqual([
          `add ${space}/before`,
          `add ${space}/while-down`,
          `update ${space}/while-down`,
          `add ${space}/after`,
        ]),
      );
      expect(
        new Map(
          informer
            .getIndexer()
            .list()
            .map((o) => [`${space}/${o.metadata.name}`, o.metadata.resourceVersion]),
        ),
      ).toEqual(await serverState(direct));
      const lists = records.filter((l) => l.msg === 'listed');
      expect(lists).toHaveLength(1);
    });

    // A memory store does not outlive its apiserver: there is nothing to restart onto.
    const persistent = backend.persistent ? [backend] : [];
    it.each(persistent)(
      'resumes after the apiserver restarts on the same port and data',
      async () => {
        const first = await startTestApiServer({
          storage: backend.open('restart'),
        });
        const port = first.port;
        // The informer reaches the server through a proxy that resets its connections when the
        // server goes down, as a crash would.
        const proxy = await PausableProxy.start(port);
        cleanups.push(() => proxy.close());
        const writer = new RestClient({ server: first.url });
        await writer
          .resource(configmaps)
          .namespace('default')
          .create(configMap('default', 'before-restart'));
        await writer.close();
        const { informer, rec } = await syncedInformer(client(proxy.url), { namespace: 'default' });
        await proxy.pause();
        await first.close();
        const second = await startTestApiServer({
          port,
          storage: backend.open('restart'),
        });
        cleanups.push(() => second.close());
        await proxy.resume();
        await client(second.url)
          .resource(configmaps)
          .namespace('default')
          .create(configMap('default', 'after-restart'));
        await eventually(() => expect(rec.seen).toContain('add default/after-restart'));
        expect(informer.getIndexer().listKeys().sort()).toEqual([
          'default/after-restart',
          'default/before-restart',
        ]);
      },
    );

    // The restarted apiserver's watch cache starts from storage's history (cacher.ts relist) and
    // the stopping one closes its watch connections and answers re-watches 429 (kube's
    // WithRetryAfter): the informer re-watches from its resourceVersion, it does not relist.
    it.each(persistent)(
      'resumes its watch from its resourceVersion across a graceful restart, without relisting where storage replays its history',
      async () => {
        const first = await startTestApiServer({
          storage: backend.open('resume'),
        });
        const port = first.port;
        const direct = () => client(`http://127.0.0.1:${port}`).resource(configmaps);
        await direct().namespace('default').create(configMap('default', 'before-restart'));
        const { logger, records } = recordingLogger('debug');
        const { informer, rec } = await syncedInformer(client(first.url), {
          namespace: 'default',
          logger,
        });
        // An event first: a watch that ends within a second having seen nothing relists.
        await direct().namespace('default').create(configMap('default', 'watched'));
        await eventually(() => expect(rec.seen).toContain('add default/watched'));
        await first.close();
        const down = backend.open('resume');
        // An etcd that does not answer progress requests reliably (before 3.4.31/3.5.13, as
        // Debian's 3.4.23) gets no history replay: the restarted cache lists at the current
        // revision, as kube's cacher always does, so the informer's re-watch is a 410 and it
        // relists once (cacher.ts).
        const replays = (await down.supportsProgressRequests?.()) ?? true;
        await down.create(
          `${down.prefix}/configmaps/default/while-down`,
          configMap('default', 'while-down'),
        );
        await down.close();
        const second = await startTestApiServer({
          port,
          storage: backend.open('resume'),
        });
        cleanups.push(() => second.close());
        await direct().namespace('default').create(configMap('default', 'after-restart'));
        await eventually(() => expect(rec.seen).toContain('add default/after-restart'));
        expect(rec.seen).toContain('add default/while-down');
        expect(informer.getIndexer().listKeys().sort()).toEqual([
          'default/after-restart',
          'default/before-restart',
          'default/watched',
          'default/while-down',
        ]);
        expect(records.filter((l) => l.msg === 'listed')).toHaveLength(replays ? 1 : 2);
      },
    );

    it('backs off and re-watches when a watch is answered 429, without relisting', async () => {
      const front = await TestServer.start();
      cleanups.push(() => front.close());
      const pass = proxyTo(apiserver.url);
      let throttled = 0;
      front.handle((req, res) => {
        if (req.url.includes('watch=1') && throttled++ === 0) {
          return json(
            res,
            429,
            statusBody(429, 'TooManyRequests', 'Too many requests, please try again later.'),
            { 'retry-after': '1' },
          );
        }
        return pass(req, res);
      });
      const space = await namespace();
      const f = factory(client(front.url), { namespace: space });
      const informer = f.informerFor(configmaps);
      f.start();
      await f.waitForCacheSync();
      await client(apiserver.url)
        .resource(configmaps)
        .namespace(space)
        .create(configMap(space, 'a'));
      await eventually(() => expect(informer.getIndexer().listKeys()).toEqual([`${space}/a`]));
      const kinds = front.requests.map((r) => (r.url.includes('watch=1') ? 'watch' : 'list'));
      expect(kinds).toEqual(['list', 'watch', 'watch']);
    });

    it('streams the initial state with a watch-list, and falls back to LIST where the server rejects it', async () => {
      const space = await namespace();
      await client(apiserver.url)
        .resource(configmaps)
        .namespace(space)
        .create(configMap(space, 'a'));
      const front = await TestServer.start();
      cleanups.push(() => front.close());
      const pass = proxyTo(apiserver.url);
      let reject = false;
      front.handle((req, res) => {
        if (reject && req.url.includes('sendInitialEvents')) {
          const err = ApiError.invalid({ group: 'meta.k8s.io', kind: 'ListOptions' }, '', [
            {
              type: 'FieldValueForbidden',
              field: 'sendInitialEvents',
              detail:
                'sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled',
            },
          ]);
          return json(res, 422, err.status);
        }
        return pass(req, res);
      });
      for (const rejecting of [false, true]) {
        reject = rejecting;
        front.requests.length = 0;
        const f = factory(client(front.url), { namespace: space, useWatchList: true });
        const informer = f.informerFor(configmaps);
        f.start();
        await f.waitForCacheSync();
        expect(informer.getIndexer().listKeys()).toEqual([`${space}/a`]);
        const kinds = (): string[] =>
          front.requests.map((r) =>
            r.url.includes('sendInitialEvents')
              ? 'watch-list'
              : r.url.includes('watch=1')
                ? 'watch'
                : 'list',
          );
        // The watch after a fallback LIST opens once the list is in: soon after the sync.
        await eventually(() =>
          expect(kinds()).toEqual(rejecting ? ['watch-list', 'list', 'watch'] : ['watch-list']),
        );
        await f.shutdown();
      }
    });
  },
);
