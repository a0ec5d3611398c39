// Child process: our apiserver (memory storage) holding `pods` realistic Pods from the codec's
// fixture, alone in its process, so that what a client costs is measured apart from it and the
// server's own memory (RSS) can be read.
import type { KubeObject } from '@listwatch/api';
import { startApiServer, type RunningApiServer } from '@listwatch/apiserver';
import { MemoryStorage } from '@listwatch/storage';
import { samplePod, silentLogger } from '@listwatch/testing';
import { memoryMB, serveParent } from '../../../../bench/proc.js';

let server: RunningApiServer | undefined;

serveParent({
  async start(args) {
    const { pods, options } = args as { pods: number; options?: Record<string, unknown> };
    const storage = new MemoryStorage({ compactionInterval: 0 });
    let bytes = 0;
    for (let i = 0; i < pods; i++) {
      const pod: KubeObject = samplePod(i);
      delete pod.metadata.resourceVersion;
      bytes += JSON.stringify(pod).length;
      await storage.create(
        `${storage.prefix}/pods/${pod.metadata.namespace}/${pod.metadata.name}`,
        pod,
      );
    }
    server = await startApiServer({ port: 0, storage, logger: silentLogger, ...options });
    return { url: server.url, bytes };
  },
  memory: (args) => memoryMB((args as { gc?: boolean }).gc !== false),
  gc() {
    (globalThis as { gc?: () => void }).gc?.();
    return null;
  },
  async stop() {
    await server?.close();
    return null;
  },
});
