// Child process: @listwatch/apiserver/envtest in a fresh process, as a vitest worker runs it.
import { cpuMicros, serveParent } from '../../../../bench/proc.js';
import { startTestEnvironment, type TestEnvironment } from '../../src/envtest/index.js';

let env: TestEnvironment | undefined;

serveParent({
  /** startTestEnvironment with the CRDs of `dir`, then one namespace; each timed. */
  async start(args) {
    const { dir } = args as { dir: string };
    const t0 = performance.now();
    env = await startTestEnvironment({ crdDirectoryPaths: [dir] });
    const ready = performance.now();
    await env.createNamespace();
    return { readyMs: ready - t0, namespaceMs: performance.now() - ready };
  },
  async stop() {
    const t0 = performance.now();
    await env?.stop();
    env = undefined;
    return { stopMs: performance.now() - t0 };
  },
  cpu: () => cpuMicros(),
});
