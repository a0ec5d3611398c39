// Child process: the apiserver under the density load, started from command-line flags (the
// same parser as `pnpm apiserver`), alone in its process so its memory and CPU are its own.
import { parseArgs, startApiServer, type RunningApiServer } from '@listwatch/apiserver';
import { silentLogger } from '@listwatch/testing';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { cpuMicros, memoryMB, serveParent } from '../../../../bench/proc.js';

let server: RunningApiServer | undefined;
/** How late the event loop ran its timers: every request waits at least this long to be read. */
let loopDelay: IntervalHistogram | undefined;

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
  /** Starts (again) measuring the event loop's delay; `read` gives p50/p99/max in ms so far. */
  loopDelay(args) {
    const { read } = args as { read?: boolean };
    if (read && loopDelay) {
      const ms = (ns: number) => ns / 1e6;
      return {
        p50: ms(loopDelay.percentile(50)),
        p99: ms(loopDelay.percentile(99)),
        max: ms(loopDelay.max),
      };
    }
    loopDelay?.disable();
    loopDelay = monitorEventLoopDelay({ resolution: 10 });
    loopDelay.enable();
    return null;
  },
  async stop() {
    await server?.close();
    server = undefined;
    return null;
  },
});
