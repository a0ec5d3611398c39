import { jsonLineLogger, silentLogger } from '@listwatch/api';
import type { RunningApiServer } from '@listwatch/apiserver';
import { freePort } from '@listwatch/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RestClient } from '../../rest/client.js';
import { startTestApiServer } from '../../testing/apiserver.js';
import { eventually } from '../../testing/eventually.js';
import { coreV1, eventsV1 } from '../../typed/resources.js';
import { EventBroadcaster } from './event-broadcaster.js';

// client-go tools/events (events.k8s.io/v1, series) and tools/record (core/v1, count), written
// to the in-process apiserver.
describe('EventBroadcaster against an apiserver', () => {
  let apiserver: RunningApiServer;
  let client: RestClient;

  beforeAll(async () => {
    apiserver = await startTestApiServer();
    client = new RestClient({ server: apiserver.url });
  });
  afterAll(async () => {
    await client.close();
    await apiserver.close();
  });

  async function namespace(name: string): Promise<string> {
    await client.resource(coreV1.namespaces).create({ metadata: { name } });
    return name;
  }

  it('records an events.k8s.io/v1 Event regarding the object, which core/v1 readers see as its involvedObject; a repeat becomes a series (count 2) by a PATCH', async () => {
    const ns = await namespace('events-v1');
    const cm = await client
      .resource(coreV1.configmaps)
      .namespace(ns)
      .create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web', namespace: ns } });
    const broadcaster = new EventBroadcaster({ client, logger: silentLogger });
    const recorder = broadcaster.newRecorder({ reportingController: 'example.com/web-controller' });
    recorder.event(cm, 'Normal', 'ScalingReplicaSet', 'Scaled up replica set web-7d4 to 3');

    const events = client.resource(eventsV1.events).namespace(ns);
    const [created] = await eventually(async () => {
      const list = await events.list();
      expect(list.items).toHaveLength(1);
      return list.items;
    });
    expect(created).toMatchObject({
      reason: 'ScalingReplicaSet',
      note: 'Scaled up replica set web-7d4 to 3',
      type: 'Normal',
      action: 'ScalingReplicaSet',
      reportingController: 'example.com/web-controller',
      regarding: { kind: 'ConfigMap', name: 'web', namespace: ns, uid: cm.metadata?.uid },
    });
    expect(created!.series).toBeUndefined();
    const core = await client.resource(coreV1.events).namespace(ns).get(created!.metadata!.name!);
    expect(core.involvedObject).toMatchObject({
      kind: 'ConfigMap',
      name: 'web',
      uid: cm.metadata?.uid,
    });

    recorder.eventf(
      cm,
      'Normal',
      'ScalingReplicaSet',
      'Scaled up replica set %s to %d',
      'web-7d4',
      3,
    );
    await eventually(async () => {
      const list = await events.list();
      expect(list.items).toHaveLength(1); // the same Event, not a second one
      expect(list.items[0]!.series?.count).toBe(2);
      expect(list.items[0]!.series?.lastObservedTime).toMatch(/\.\d{6}Z$/);
    });
    expect(broadcaster.stats()).toMatchObject({ written: 2, dropped: 0, failed: 0 });
    await broadcaster.shutdown();
  });

  it('with apiVersion v1 writes core/v1 Events and counts a repeat up with a PATCH (count, lastTimestamp)', async () => {
    const ns = await namespace('events-core');
    const broadcaster = new EventBroadcaster({ client, apiVersion: 'v1', logger: silentLogger });
    const recorder = broadcaster.newRecorder({ reportingController: 'legacy-controller' });
    const obj = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cfg', namespace: ns, uid: 'u-1' },
    };
    recorder.event(obj, 'Warning', 'Invalid', 'key "x" is invalid');
    const events = client.resource(coreV1.events).namespace(ns);
    await eventually(async () => expect((await events.list()).items).toHaveLength(1));
    recorder.event(obj, 'Warning', 'Invalid', 'key "x" is invalid');
    recorder.event(obj, 'Warning', 'Invalid', 'key "x" is invalid');
    await eventually(async () => {
      const list = await events.list();
      expect(list.items).toHaveLength(1);
      expect(list.items[0]).toMatchObject({
        count: 3,
        involvedObject: { kind: 'ConfigMap', name: 'cfg', uid: 'u-1' },
        source: { component: 'legacy-controller' },
      });
    });
    await broadcaster.shutdown();
  });

  it('never blocks the caller when the server is down: the queue is bounded, overflow is dropped, counted and logged', async () => {
    const port = await freePort(); // nothing listens
    const down = new RestClient({ server: `http://127.0.0.1:${port}` });
    const log: string[] = [];
    const broadcaster = new EventBroadcaster({
      client: down,
      maxQueuedEvents: 5,
      logger: jsonLineLogger({ level: 'warn', write: (l) => log.push(l) }),
    });
    const recorder = broadcaster.newRecorder({ reportingController: 'c' });
    for (let i = 0; i < 20; i++) {
      const obj = { kind: 'Pod', metadata: { name: `p${i}`, namespace: 'default' } };
      recorder.event(obj, 'Normal', 'Started', 'started'); // returns at once: nothing awaited
    }
    // One write is in flight (the writer took it at once), five wait, the rest were dropped.
    expect(broadcaster.queued()).toBe(5);
    expect(broadcaster.stats().dropped).toBe(14);
    expect(log.map((l) => (JSON.parse(l) as { msg: string }).msg)).toContain(
      'event queue full, dropping events',
    );
    await broadcaster.shutdown();
    await down.close();
  });
});
