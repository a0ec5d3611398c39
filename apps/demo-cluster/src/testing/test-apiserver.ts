import { jsonLogger, startApiServer, type RunningApiServer } from '@listwatch/apiserver';
import { realClock, RestClient, type Clock, type ResourceClient } from '@listwatch/client';
import { afterAll, beforeAll, expect } from 'vitest';
import { DemoCluster, type DemoClusterOptions } from '../demo-cluster.js';
import { isPodReady, resources, type Pod } from '../controllers/objects.js';

/** A real apiserver on memory storage at a free port, and a client of it. */
export interface TestApiServer {
  server: RunningApiServer;
  client: RestClient;
  /** A fresh namespace, so the tests of a file share one server without seeing each other. */
  namespace(): Promise<string>;
  close(): Promise<void>;
}

let namespaces = 0;

export async function startTestApiServer(): Promise<TestApiServer> {
  const server = await startApiServer({
    port: 0,
    storageBackend: 'memory',
    logger: jsonLogger('error'),
  });
  const client = new RestClient({
    server: server.url,
    retry: { backoff: { initialMs: 10, maxMs: 100 } },
  });
  return {
    server,
    client,
    namespace: async () => {
      const name = `test-${process.pid}-${++namespaces}`;
      await client
        .resource(resources.namespaces)
        .create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
      return name;
    },
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

/** The pods of a namespace as the apiserver has them now. */
export async function listPods(pods: ResourceClient<Pod>, namespace: string): Promise<Pod[]> {
  return (await pods.namespace(namespace).list()).items;
}

/** Waits until the namespace holds exactly `count` pods, all Running, Ready and bound to a node. */
export async function expectRunningPods(
  pods: ResourceClient<Pod>,
  namespace: string,
  count: number,
): Promise<Pod[]> {
  let last: Pod[] = [];
  await expect
    .poll(
      async () => {
        last = await listPods(pods, namespace);
        return last.map((p) => `${p.status?.phase}/${isPodReady(p)}/${Boolean(p.spec?.nodeName)}`);
      },
      { timeout: 20_000, interval: 100 },
    )
    .toEqual(Array.from({ length: count }, () => 'Running/true/true'));
  return last;
}

/**
 * One apiserver per test file with the demo's control plane (controllers, scheduler, kubelets
 * on `nodes`) running against it: started before the file's tests, stopped after them.
 */
export function demoClusterForFile(
  nodes: string[] = ['node-a', 'node-b'],
  options: Pick<DemoClusterOptions, 'cronJobClock' | 'runToCompletionMs'> = {},
): {
  readonly api: TestApiServer;
  readonly cluster: DemoCluster;
} {
  let api: TestApiServer | undefined;
  let cluster: DemoCluster | undefined;
  beforeAll(async () => {
    api = await startTestApiServer();
    cluster = new DemoCluster({ client: api.client, nodes, ...options });
    await cluster.start();
  });
  afterAll(async () => {
    await cluster?.stop();
    await api?.close();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the demo cluster of the file starts in beforeAll');
    return value;
  };
  return {
    get api() {
      return started(api);
    },
    get cluster() {
      return started(cluster);
    },
  };
}

/**
 * Real time moved ahead by `skewMs`: a CronJob controller on it meets a schedule time within
 * seconds, with no fake timers (its waits are real, only its "now" is ahead).
 */
export class SkewedClock implements Clock {
  skewMs = 0;

  now(): number {
    return realClock.now() + this.skewMs;
  }

  setTimer(fn: () => void, ms: number, options?: { unref?: boolean }) {
    return realClock.setTimer(fn, ms, options);
  }

  /** Moves ahead so that the next whole minute comes in `leadMs`; returns that minute (ms). */
  minuteIn(leadMs: number): number {
    const now = this.now();
    const next = Math.ceil((now + 1) / 60_000) * 60_000;
    const gap = next - now;
    this.skewMs += gap > leadMs ? gap - leadMs : gap + 60_000 - leadMs;
    return Math.ceil((this.now() + 1) / 60_000) * 60_000;
  }
}
