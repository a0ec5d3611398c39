import { findBuiltinResource, type KubeObject } from '@listwatch/api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SharedInformerFactory } from '../cache/informer-factory.js';
import type { SharedIndexInformer } from '../cache/shared-informer.js';
import { Controller, deletedObject, enqueueKeys } from './controller.js';
import { DeletedFinalStateUnknown } from '../cache/deleted-final-state-unknown.js';
import { CacheCluster } from '../testing/cache-cluster.js';
import { eventually } from '../testing/eventually.js';
import { configMap } from '../testing/fixtures.js';
import { ItemExponentialFailureRateLimiter } from '../workqueue/rate-limiters.js';

describe('Controller (kubernetes/sample-controller)', () => {
  let cluster: CacheCluster;
  let factory: SharedInformerFactory;
  let stop: AbortController;

  beforeEach(() => {
    cluster = new CacheCluster();
    factory = new SharedInformerFactory({
      listerWatcherFor: (r) => cluster.listerWatcher(r.plural),
    });
    stop = new AbortController();
  });
  afterEach(async () => {
    stop.abort();
    await factory.shutdown();
    await cluster.close();
  });

  function setup(
    reconcile: (key: string, lister: ReturnType<typeof informerLister>) => void | Promise<void>,
    workers = 1,
  ) {
    const informer = factory.informerFor(findBuiltinResource('configmaps')!);
    const controller = new Controller<string>({
      name: 'test',
      workers,
      cacheSyncs: [informer],
      rateLimiter: new ItemExponentialFailureRateLimiter(1, 10),
      reconcile: (key) => reconcile(key, informerLister(informer)),
    });
    informer.addEventHandler(enqueueKeys(controller.queue));
    factory.start();
    const running = controller.run(stop.signal);
    return { informer, controller, running };
  }
  const informerLister = (informer: SharedIndexInformer<KubeObject>) => informer.lister();

  it('waits for the cache, then reconciles each changed key, reading state from the lister', async () => {
    await cluster.create('configmaps', configMap('ns', 'a'));
    const seen: string[] = [];
    setup((key, lister) => {
      const [ns, name] = key.split('/');
      const exists = lister
        .namespace(ns!)
        .list()
        .some((o) => o.metadata.name === name);
      seen.push(`${key} ${exists ? 'exists' : 'gone'}`);
    });
    await eventually(() => expect(seen).toEqual(['ns/a exists']));
    await cluster.remove('configmaps', 'ns', 'a');
    await eventually(() => expect(seen).toEqual(['ns/a exists', 'ns/a gone']));
  });

  it('retries a failing key with backoff until it succeeds, then forgets its failures', async () => {
    let attempts = 0;
    const { controller } = setup(() => {
      if (++attempts < 4) throw new Error('not yet');
    });
    await cluster.create('configmaps', configMap('ns', 'a'));
    await eventually(() => expect(attempts).toBe(4));
    await eventually(() => expect(controller.queue.numRequeues('ns/a')).toBe(0));
  });

  it('never reconciles one key in two workers at once, however many changes arrive', async () => {
    let active = 0;
    let maxActive = 0;
    // What each finished run had read: once a run that read the last change has finished, any
    // run overlapping it has already pushed maxActive up.
    const finishedWith: string[] = [];
    setup(async (_key, lister) => {
      active++;
      maxActive = Math.max(maxActive, active);
      const read = lister
        .namespace('ns')
        .list()
        .find((o) => o.metadata.name === 'a') as { data?: { i?: string } } | undefined;
      await new Promise((resolve) => setTimeout(resolve, 5));
      active--;
      finishedWith.push(read?.data?.i ?? '');
    }, 4);
    let obj = await cluster.create('configmaps', configMap('ns', 'a'));
    for (let i = 0; i < 10; i++)
      obj = await cluster.update('configmaps', { ...obj, data: { i: String(i) } });
    await eventually(() => expect(finishedWith).toContain('9'));
    expect(maxActive).toBe(1);
  });

  it('lets the items being processed finish when it shuts down', async () => {
    let finished = false;
    let started!: () => void;
    const begun = new Promise<void>((resolve) => (started = resolve));
    const { running } = setup(async () => {
      started();
      await new Promise((resolve) => setTimeout(resolve, 20));
      finished = true;
    });
    await cluster.create('configmaps', configMap('ns', 'a'));
    await begun;
    stop.abort();
    await running;
    expect(finished).toBe(true);
  });

  it('unwraps tombstones for delete handlers', () => {
    const obj: KubeObject = configMap('ns', 'a');
    expect(deletedObject(obj)).toBe(obj);
    expect(deletedObject(new DeletedFinalStateUnknown('ns/a', obj))).toBe(obj);
    const keys: string[] = [];
    void enqueueKeys({ add: (k) => keys.push(k) }).onDelete?.(
      new DeletedFinalStateUnknown('ns/b', undefined),
    );
    expect(keys).toEqual(['ns/b']);
  });
});
