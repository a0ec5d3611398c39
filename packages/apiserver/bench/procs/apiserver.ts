// Child process: our apiserver on one storage backend (memory, sqlite or etcd3), alone in its
// process, for the scenarios that drive it from other processes over HTTP.
import { silentLogger } from '@listwatch/testing';
import { memoryMB, serveParent } from '../../../../bench/proc.js';
import { startApiServer, type ApiServerOptions, type RunningApiServer } from '../../src/index.js';

let server: RunningApiServer | undefined;

serveParent({
  async start(args) {
    const options = (args as { options: ApiServerOptions }).options;
    const t0 = performance.now();
    server = await startApiServer({ port: 0, logger: silentLogger, ...options });
    return { url: server.url, readyMs: performance.now() - t0 };
  },
  memory: (args) => memoryMB((args as { gc?: boolean }).gc !== false),
  async stop() {
    await server?.close();
    server = undefined;
    return null;
  },
});
