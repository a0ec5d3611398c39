// Child process: our apiserver on one storage backend (memory, sqlite or etcd3), alone in its
// process, for the scenarios that drive it from other processes over HTTP.
import { samplePod, silentLogger } from '@listwatch/testing';
import { cpuMicros, eventLoopDelay, memoryMB, serveParent } from '../../../../bench/proc.js';
import { startApiServer, type ApiServerOptions, type RunningApiServer } from '../../src/index.js';

let server: RunningApiServer | undefined;

serveParent({
  async start(args) {
    const options = (args as { options: ApiServerOptions }).options;
    const t0 = performance.now();
    server = await startApiServer({ port: 0, logger: silentLogger, ...options });
    return { url: server.url, readyMs: performance.now() - t0 };
  },
  /** Writes `count` realistic Pods straight to the storage, 64 at a time (set-up, not measured). */
  async fill(args) {
    const { count } = args as { count: number };
    const storage = server!.storage;
    for (let i = 0; i < count; i += 64) {
      const writes: Promise<unknown>[] = [];
      for (let j = i; j < Math.min(count, i + 64); j++) {
        const pod = samplePod(j);
        delete pod.metadata.resourceVersion;
        pod.metadata.name = `${pod.metadata.name}-${j}`;
        writes.push(
          storage.create(
            `${storage.prefix}/pods/${pod.metadata.namespace}/${pod.metadata.name}`,
            pod,
          ),
        );
      }
      await Promise.all(writes);
    }
    return null;
  },
  memory: (args) => memoryMB((args as { gc?: boolean }).gc !== false),
  /** CPU time used so far (user + system, µs): per-operation cost, robust to a loaded machine. */
  cpu: () => cpuMicros(),
  loopDelay: (args) => eventLoopDelay(args),
  async stop() {
    await server?.close();
    server = undefined;
    return null;
  },
});
