import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findBuiltinResource, type ApiError, type KubeObject } from '@listwatch/api';
import type { RunningApiServer } from '@listwatch/apiserver';
import { tempDir } from '@listwatch/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeConfig } from '../clientcmd/kubeconfig.js';
import { makeInformer } from './make-informer.js';
import { RestClient } from '../rest/client.js';
import { eventually } from '../testing/eventually.js';
import { configMap } from '../testing/fixtures.js';
import { PausableProxy } from '../testing/pausable-proxy.js';
import { startTestApiServer } from '../testing/apiserver.js';

describe('makeInformer (the @kubernetes/client-node surface)', () => {
  let apiserver: RunningApiServer;
  let proxy: PausableProxy;
  let dir: { path: string; remove(): void };
  let kubeConfig: KubeConfig;

  beforeAll(async () => {
    apiserver = await startTestApiServer();
    proxy = await PausableProxy.start(apiserver.port);
    dir = tempDir('listwatch-make-informer-');
    const path = join(dir.path, 'config');
    writeFileSync(
      path,
      `apiVersion: v1
kind: Config
current-context: local
clusters: [{name: local, cluster: {server: '${proxy.url}'}}]
users: [{name: me, user: {token: not-checked}}]
contexts: [{name: local, context: {cluster: local, user: me, namespace: default}}]
`,
    );
    kubeConfig = KubeConfig.fromFile(path);
  });
  afterAll(async () => {
    await proxy.close();
    await apiserver.close();
    dir.remove();
  });

  it('emits add, update, change and delete, serves list and get, and keeps going through errors', async () => {
    const writer = new RestClient({ server: apiserver.url });
    const cms = writer.resource(findBuiltinResource('configmaps')!).namespace('default');
    await cms.create(configMap('default', 'first'));

    const informer = makeInformer<KubeObject>(kubeConfig, '/api/v1/namespaces/default/configmaps', {
      labelSelector: '!skip',
    });
    const events: string[] = [];
    const errors: ApiError[] = [];
    let connects = 0;
    informer.on('add', (o) => events.push(`add ${o.metadata.name}`));
    informer.on('update', (o, old) =>
      events.push(
        `update ${o.metadata.name} ${old.metadata.resourceVersion}->${o.metadata.resourceVersion}`,
      ),
    );
    informer.on('change', (o) => events.push(`change ${o.metadata.name}`));
    informer.on('delete', (o) => events.push(`delete ${o.metadata.name}`));
    informer.on('error', (e) => errors.push(e));
    informer.on('connect', () => connects++);

    await informer.start();
    expect(informer.list('default').map((o) => o.metadata.name)).toEqual(['first']);
    expect(informer.get('first', 'default')?.metadata.name).toBe('first');
    expect(informer.get('nope', 'default')).toBeUndefined();
    await eventually(() => expect(connects).toBe(1));

    const second = await cms.create(configMap('default', 'second'));
    const updated = await cms.update({ ...second, data: { k: 'v' } });
    await cms.create(configMap('default', 'skipped', undefined, { skip: 'yes' }));
    await cms.delete('first');
    await eventually(() =>
      expect(events).toEqual([
        'add first',
        'change first',
        'add second',
        'change second',
        `update second ${second.metadata.resourceVersion}->${updated.metadata.resourceVersion}`,
        'change second',
        'delete first',
        'change first',
      ]),
    );

    // Cut the connection: client-node's informer would stop; this one reports and carries on.
    await proxy.pause();
    await cms.create(configMap('default', 'while-down'));
    await eventually(() => expect(errors.length).toBeGreaterThan(0));
    await proxy.resume();
    await eventually(() => expect(informer.get('while-down', 'default')).toBeDefined());
    expect(connects).toBeGreaterThan(1);

    await informer.stop();
    await writer.close();
  });

  it('start() after stop() resumes: objects written while stopped and after the restart reach the cache and the handlers', async () => {
    const writer = new RestClient({ server: apiserver.url });
    const cms = writer.resource(findBuiltinResource('configmaps')!).namespace('default');
    const labels = { suite: 'restart' };
    await cms.create(configMap('default', 'kept', undefined, labels));
    const changed = await cms.create(configMap('default', 'changed', undefined, labels));
    await cms.create(configMap('default', 'gone', undefined, labels));

    const informer = makeInformer<KubeObject>(kubeConfig, '/api/v1/namespaces/default/configmaps', {
      labelSelector: 'suite=restart',
    });
    const shared = informer.informer;
    const events: string[] = [];
    const errors: ApiError[] = [];
    let connects = 0;
    informer.on('add', (o) => events.push(`add ${o.metadata.name}`));
    informer.on('update', (o) => events.push(`update ${o.metadata.name}`));
    informer.on('delete', (o) => events.push(`delete ${o.metadata.name}`));
    informer.on('error', (e) => errors.push(e));
    informer.on('connect', () => connects++);
    const names = (): (string | undefined)[] =>
      informer
        .list('default')
        .map((o) => o.metadata.name)
        .sort();

    await informer.start();
    await eventually(() =>
      expect([...events].sort()).toEqual(['add changed', 'add gone', 'add kept']),
    );
    await eventually(() => expect(connects).toBe(1));
    await informer.stop();
    events.length = 0;

    await cms.create(configMap('default', 'while-stopped', undefined, labels));
    await cms.update({ ...changed, data: { k: 'v' } });
    await cms.delete('gone');
    expect(names()).toEqual(['changed', 'gone', 'kept']);

    await informer.start();
    // Resolved once the relist is in the cache; the handlers hear only what changed meanwhile.
    expect(names()).toEqual(['changed', 'kept', 'while-stopped']);
    expect(informer.get('changed', 'default')?.data).toEqual({ k: 'v' });
    await cms.create(configMap('default', 'after-restart', undefined, labels));
    await eventually(() =>
      expect(events).toEqual([
        'delete gone',
        'update changed',
        'add while-stopped',
        'add after-restart',
      ]),
    );
    expect(informer.get('after-restart', 'default')).toBeDefined();
    await eventually(() => expect(connects).toBe(2));
    // The same shared informer, restarted: its cache, indexes and handlers carry over.
    expect(informer.informer).toBe(shared);
    expect(shared.isStopped()).toBe(false);
    expect(errors).toEqual([]);

    await informer.stop();
    expect(shared.isStopped()).toBe(true);
    await writer.close();
  });

  it('start() twice, stop() twice and stop() before start() are harmless, and start() right after an unawaited stop() restarts', async () => {
    const writer = new RestClient({ server: apiserver.url });
    const cms = writer.resource(findBuiltinResource('configmaps')!).namespace('default');
    const labels = { suite: 'idempotent' };
    await cms.create(configMap('default', 'one', undefined, labels));

    const informer = makeInformer<KubeObject>(kubeConfig, '/api/v1/namespaces/default/configmaps', {
      labelSelector: 'suite=idempotent',
    });
    const adds: string[] = [];
    const errors: ApiError[] = [];
    let connects = 0;
    informer.on('add', (o) => adds.push(o.metadata.name ?? ''));
    informer.on('error', (e) => errors.push(e));
    informer.on('connect', () => connects++);

    await informer.stop();
    await Promise.all([informer.start(), informer.start()]);
    await informer.start();
    expect(informer.list('default').map((o) => o.metadata.name)).toEqual(['one']);
    await eventually(() => expect(connects).toBe(1));

    await Promise.all([informer.stop(), informer.stop()]);
    await informer.stop();
    expect(informer.informer.isStopped()).toBe(true);

    const stopping = informer.stop();
    await informer.start();
    await stopping;
    await informer.start();
    const stoppingAgain = informer.stop();
    await informer.start();
    await stoppingAgain;
    await cms.create(configMap('default', 'two', undefined, labels));
    await eventually(() => expect(informer.get('two', 'default')).toBeDefined());
    expect(adds).toEqual(['one', 'two']);
    expect(informer.informer.isStopped()).toBe(false);
    expect(errors).toEqual([]);

    await informer.stop();
    await writer.close();
  });

  it("accepts client-node's call form: a list function it never calls, then label and field selectors", async () => {
    const writer = new RestClient({ server: apiserver.url });
    const cms = writer.resource(findBuiltinResource('configmaps')!).namespace('default');
    await cms.create(configMap('default', 'ported', undefined, { app: 'ported' }));
    await cms.create(configMap('default', 'other-app', undefined, { app: 'other' }));
    await cms.create(configMap('default', 'ported-but-named', undefined, { app: 'ported' }));

    let listCalls = 0;
    const informer = makeInformer<KubeObject>(
      kubeConfig,
      '/api/v1/namespaces/default/configmaps',
      () => {
        listCalls++;
        return Promise.resolve({ items: [] });
      },
      'app=ported',
      'metadata.name!=ported-but-named',
    );
    await informer.start();
    expect(informer.list('default').map((o) => o.metadata.name)).toEqual(['ported']);
    expect(listCalls).toBe(0);
    await informer.stop();
    await writer.close();
  });
});
