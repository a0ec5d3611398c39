import { findBuiltinResource, silentLogger, type KubeObject } from '@listwatch/api';
import type { RunningApiServer } from '@listwatch/apiserver';
import { afterEach, expect, it } from 'vitest';
import { RestClient } from '../rest/client.js';
import { startTestApiServer } from '../testing/apiserver.js';
import { eventually } from '../testing/eventually.js';
import { configMap } from '../testing/fixtures.js';
import { PausableProxy } from '../testing/pausable-proxy.js';
import { SharedInformerFactory } from './informer-factory.js';
import type { ReflectorObserver } from './reflector-observer.js';
import type { SharedIndexInformer } from './shared-informer.js';

const configmaps = findBuiltinResource('configmaps')!;
const FAST = { backoff: { initialMs: 10, maxMs: 50 } };

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function apiserver(defaultWatchCacheSize?: number): Promise<RunningApiServer> {
  const server = await startTestApiServer(
    defaultWatchCacheSize === undefined ? {} : { defaultWatchCacheSize },
  );
  cleanups.push(() => server.close());
  return server;
}

function client(server: string): RestClient {
  const c = new RestClient({ server, retry: { maxRetries: 0 } });
  cleanups.push(() => c.close());
  return c;
}

/** What an observer heard, one line each, in order: what a UI would draw. */
function recordingObserver(): { observer: ReflectorObserver; heard: string[]; rvs: string[] } {
  const heard: string[] = [];
  const rvs: string[] = [];
  const name = (o: KubeObject) => o.metadata.name;
  return {
    heard,
    rvs,
    observer: {
      onPhase: (phase) => void heard.push(`phase ${phase}`),
      onWatchEvent: (event, { initialEvents, initialEventsEnd }) => {
        const obj = event.object as KubeObject;
        if (event.type === 'BOOKMARK')
          heard.push(`BOOKMARK${initialEventsEnd ? ' initial-events-end' : ''}`);
        else heard.push(`${event.type} ${name(obj)}${initialEvents ? ' initial' : ''}`);
      },
      onExpired: (err) => void heard.push(`expired ${err.code}`),
      updateResourceVersion: (rv) => void rvs.push(rv),
    },
  };
}

function informerOn(
  api: RestClient,
  useWatchList: boolean,
  observer: ReflectorObserver,
): SharedIndexInformer {
  const factory = new SharedInformerFactory({
    client: api,
    namespace: 'default',
    useWatchList,
    reflector: FAST,
    logger: silentLogger,
  });
  cleanups.push(() => factory.shutdown());
  const informer = factory.informerFor(configmaps);
  informer.setReflectorObserver(observer);
  factory.start();
  return informer;
}

it("a reflector's observer hears a watch-list in order: the initial state marked initial, the initial-events-end bookmark, then watching, then live events; the last resourceVersion follows", async () => {
  const server = await apiserver();
  const api = client(server.url);
  const cms = api.resource(configmaps).namespace('default');
  for (const name of ['a', 'b']) await cms.create(configMap('default', name));
  const { observer, heard, rvs } = recordingObserver();
  const informer = informerOn(api, true, observer);
  await informer.waitForCacheSync();
  await cms.create(configMap('default', 'c'));
  await eventually(() => expect(heard).toContain('ADDED c'));
  expect(heard.filter((h) => !h.startsWith('BOOKMARK') || h.includes('initial'))).toEqual([
    'phase watch-list',
    'ADDED a initial',
    'ADDED b initial',
    'BOOKMARK initial-events-end',
    'phase watching',
    'ADDED c',
  ]);
  await eventually(() => expect(rvs.at(-1)).toBe(informer.lastSyncResourceVersion()));
});

it("a reflector's observer hears a LIST and WATCH as listing, then watching", async () => {
  const server = await apiserver();
  const api = client(server.url);
  const { observer, heard } = recordingObserver();
  const informer = informerOn(api, false, observer);
  await informer.waitForCacheSync();
  await eventually(() => expect(heard).toEqual(['phase listing', 'phase watching']));
});

// client-go reflector.go: a watch whose resourceVersion was compacted away ends with 410 Gone,
// and the reflector relists; a broken watch resumes from its resourceVersion first.
it("a reflector's observer hears a cut watch resume and back off, the 410 Gone it gets once its resourceVersion left the watch cache, and the relist that follows, in that order", async () => {
  const server = await apiserver(5);
  const proxy = await PausableProxy.start(server.port);
  cleanups.push(() => proxy.close());
  const direct = client(server.url).resource(configmaps).namespace('default');
  await direct.create(configMap('default', 'before'));
  const { observer, heard } = recordingObserver();
  const informer = informerOn(client(proxy.url), true, observer);
  await informer.waitForCacheSync();
  // An event on the watch first: one that breaks having seen nothing counts as failed.
  await direct.create(configMap('default', 'warmup'));
  await eventually(() => expect(heard).toContain('ADDED warmup'));

  await proxy.pause();
  await eventually(() => expect(heard).toContain('phase backoff'));
  for (let i = 0; i < 10; i++) await direct.create(configMap('default', `churn-${i}`));
  await proxy.resume();
  await eventually(() => {
    const relisting = heard.indexOf('phase relisting');
    expect(relisting).toBeGreaterThan(0);
    expect(heard.slice(relisting)).toContain('phase watching');
  });

  const phases = heard.filter((h) => !h.startsWith('BOOKMARK') || h.includes('initial'));
  const cut = phases.indexOf('ADDED warmup') + 1;
  const expired = phases.indexOf('expired 410');
  expect(phases.slice(cut, cut + 2)).toEqual(['phase resuming', 'phase backoff']);
  expect(expired).toBeGreaterThan(cut);
  // Before the 410 it only resumed and backed off; the watch that opened once the proxy was back
  // was told 410 (kube's watch cache sends it as an ERROR event); then one relist of it all.
  expect(new Set(phases.slice(cut, expired - 1))).toEqual(
    new Set(['phase resuming', 'phase backoff']),
  );
  expect(phases[expired - 1]).toBe('phase watching');
  const relist = phases.slice(expired + 1);
  expect(relist[0]).toBe('phase backoff');
  expect(relist[1]).toBe('phase relisting');
  expect(relist.at(-2)).toBe('BOOKMARK initial-events-end');
  expect(relist.at(-1)).toBe('phase watching');
  expect(relist.filter((h) => h.endsWith(' initial'))).toHaveLength(12);
});
