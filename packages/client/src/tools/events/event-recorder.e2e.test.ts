import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { silentLogger } from '@listwatch/api';
import type { RunningApiServer } from '@listwatch/apiserver';
import { KUBECTL } from '@listwatch/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RestClient } from '../../rest/client.js';
import { startTestApiServer } from '../../testing/apiserver.js';
import { eventually } from '../../testing/eventually.js';
import { appsV1, coreV1 } from '../../typed/resources.js';
import { EventBroadcaster } from './event-broadcaster.js';

const run = promisify(execFile);

// The real kubectl: `describe` finds an object's events by involvedObject (uid, name, namespace,
// kind), so this checks the recorder fills the reference as kube's controllers do.
describe('events recorded by EventRecorder, as kubectl shows them', () => {
  let apiserver: RunningApiServer;
  let client: RestClient;
  const kubectl = async (...args: string[]) =>
    (await run(KUBECTL, ['--server', apiserver.url, ...args])).stdout;

  beforeAll(async () => {
    apiserver = await startTestApiServer();
    client = new RestClient({ server: apiserver.url });
  });
  afterAll(async () => {
    await client.close();
    await apiserver.close();
  });

  it('kubectl describe deployment ends with the events recorded about it, and kubectl get events lists them', async () => {
    const ns = 'describe';
    await client.resource(coreV1.namespaces).create({ metadata: { name: ns } });
    const web = await client
      .resource(appsV1.deployments)
      .namespace(ns)
      .create({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', namespace: ns },
        spec: {
          replicas: 3,
          selector: { matchLabels: { app: 'web' } },
          template: {
            metadata: { labels: { app: 'web' } },
            spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] },
          },
        },
      });
    const broadcaster = new EventBroadcaster({ client, logger: silentLogger });
    const recorder = broadcaster.newRecorder({ reportingController: 'deployment-controller' });
    recorder.event(web, 'Normal', 'ScalingReplicaSet', 'Scaled up replica set web-7d4 to 3');
    recorder.event(web, 'Warning', 'ReplicaSetCreateError', 'Failed to create new replica set');
    await eventually(() => expect(broadcaster.stats().written).toBe(2));

    const described = await kubectl('describe', 'deployment', 'web', '-n', ns);
    const events = described.slice(described.indexOf('Events:'));
    expect(events).toMatch(
      /Normal\s+ScalingReplicaSet\s+.*deployment-controller\s+Scaled up replica set web-7d4 to 3/,
    );
    expect(events).toMatch(/Warning\s+ReplicaSetCreateError\s+.*Failed to create new replica set/);

    const listed = await kubectl('get', 'events', '-n', ns);
    expect(listed).toContain('deployment/web');
    expect(listed).toContain('Scaled up replica set web-7d4 to 3');
    await broadcaster.shutdown();
  }, 60_000);
});
