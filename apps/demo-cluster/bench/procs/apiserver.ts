// Child process: the apiserver under the density load, started from command-line flags (the
// same parser as `pnpm apiserver`), alone in its process so its memory and CPU are its own.
import { writeHeapSnapshot } from 'node:v8';
import { parseArgs, startApiServer, type RunningApiServer } from '@listwatch/apiserver';
import { silentLogger } from '@listwatch/testing';
import { cpuMicros, eventLoopDelay, memoryMB, serveParent } from '../../../../bench/proc.js';

let server: RunningApiServer | undefined;

serveParent({
  async start(args) {
    const { flags } = args as { flags: string[] };
    const { options } = parseArgs(flags);
    server = await startApiServer({ ...options, logger: silentLogger });
    return { url: server.url };
  },
  /** RSS and heap in MiB; after a full GC unless `gc: false` (a cheap sample of the RSS). */
  memory: (args) => memoryMB((args as { gc?: boolean }).gc !== false),
  cpu: () => cpuMicros(),
  /** A heap snapshot written to `path` (BENCH_HEAP_SNAPSHOT=1; read it with bench/heap-summary.ts). */
  heapSnapshot: (args) => writeHeapSnapshot((args as { path: string }).path),
  loopDelay: (args) => eventLoopDelay(args),
  async stop() {
    await server?.close();
    server = undefined;
    return null;
  },
});
