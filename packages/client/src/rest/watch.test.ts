import type { WatchEvent } from '@listwatch/api';
import type { RunningApiServer } from '@listwatch/apiserver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeConfig } from '../clientcmd/kubeconfig.js';
import { eventually } from '../testing/eventually.js';
import { coreV1 } from '../typed/resources.js';
import { RestClient } from './client.js';
import { Watch } from './watch.js';
import { startTestApiServer } from '../testing/apiserver.js';

// @kubernetes/client-node src/watch.ts's contract, on RestClient.watch.
describe("Watch (client-node's shape)", () => {
  let apiserver: RunningApiServer;
  let client: RestClient;
  let kc: KubeConfig;

  beforeAll(async () => {
    apiserver = await startTestApiServer({
      // A short window, so a watch from an old resourceVersion expires.
      watchCacheSizes: { configmaps: 3 },
    });
    client = new RestClient({ server: apiserver.url });
    kc = new KubeConfig();
    kc.loadFromString(`apiVersion: v1
kind: Config
current-context: local
clusters: [{name: local, cluster: {server: '${apiserver.url}'}}]
contexts: [{name: local, context: {cluster: local}}]
`);
  });
  afterAll(async () => {
    await client.close();
    await apiserver.close();
  });

  it('hands each event to the callback as (type, object, event) and calls done(null) once when the server ends the watch', async () => {
    const events: [string, unknown, WatchEvent | undefined][] = [];
    const done: unknown[] = [];
    await new Watch(kc).watch(
      '/api/v1/namespaces/default/configmaps',
      { timeoutSeconds: 1, labelSelector: 'app=web' },
      (phase, obj, event) => events.push([phase, obj, event as WatchEvent | undefined]),
      (err) => done.push(err),
    );
    const cms = client.resource(coreV1.configmaps).namespace('default');
    await cms.create({ metadata: { name: 'other' } });
    await cms.create({ metadata: { name: 'web', labels: { app: 'web' } } });
    await eventually(() => expect(done).toEqual([null]), 10_000);
    expect(
      events.map(([phase, obj]) => [phase, (obj as { metadata: { name: string } }).metadata.name]),
    ).toEqual([['ADDED', 'web']]);
    expect(events[0]![2]).toEqual({ type: 'ADDED', object: events[0]![1] });
  });

  it('hands a 410 Expired ERROR event to the callback, as client-node does, then done(null)', async () => {
    const cms = client.resource(coreV1.configmaps).namespace('default');
    const first = await cms.create({ metadata: { name: 'churn' } });
    for (let i = 0; i < 10; i++) await cms.patch('churn', { data: { i: String(i) } });
    const events: [string, unknown][] = [];
    const done: unknown[] = [];
    await new Watch(kc).watch(
      '/api/v1/namespaces/default/configmaps',
      { resourceVersion: first.metadata?.resourceVersion },
      (phase, obj) => events.push([phase, obj]),
      (err) => done.push(err),
    );
    await eventually(() => expect(done).toEqual([null]));
    expect(events).toHaveLength(1);
    expect(events[0]![0]).toBe('ERROR');
    expect(events[0]![1]).toMatchObject({ kind: 'Status', code: 410, reason: 'Expired' });
  });

  it("calls done once with the abort's error after abort(), and with the request's error when the watch cannot open", async () => {
    const done: unknown[] = [];
    const req = await new Watch(kc).watch(
      '/api/v1/configmaps',
      {},
      () => undefined,
      (err) => done.push(err),
    );
    req.abort();
    await eventually(() => expect(done).toHaveLength(1));
    expect(done[0]).toMatchObject({ code: 499 });

    const failed: unknown[] = [];
    const controller = await new Watch(kc).watch(
      '/apis/nope.example.com/v1/things',
      {},
      () => undefined,
      (err) => failed.push(err),
    );
    expect(controller).toBeInstanceOf(AbortController);
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ code: 404 });
  });

  it("KubeConfig's client-node getters name the current context, cluster and user", () => {
    expect(kc.getCurrentContext()).toBe('local');
    expect(kc.getCurrentCluster()?.server).toBe(apiserver.url);
    expect(kc.getCurrentUser()).toBeNull();
    expect(kc.getContexts().map((c) => c.name)).toEqual(['local']);
    expect(() => kc.setCurrentContext('missing')).toThrow(/context "missing" does not exist/);
    expect(new KubeConfig().getCurrentCluster()).toBeNull();
  });
});
