// `envtest`: @listwatch/apiserver/envtest from the fork of a fresh process (node, tsx, the
// import of the apiserver from source) to an apiserver serving two established CRDs, then the
// same again in the warm process; the first namespace and stop.
import type { Scenario } from '../../../bench/lib.js';
import { forkChild } from '../../../bench/proc.js';

const ENVTEST = new URL('./procs/envtest.ts', import.meta.url);
const CRDS = new URL('../src/envtest/testdata/crds', import.meta.url).pathname;

interface Started {
  readyMs: number;
  namespaceMs: number;
}

export const scenario: Scenario = {
  name: 'envtest',
  title: 'envtest without binaries: fork to an apiserver with 2 CRDs established; warm restart',
  processes: () => 'the environment (child, in-process apiserver on memory storage)',
  rounds: (ctx) => (ctx.quick ? 1 : 5),
  open() {
    return Promise.resolve({
      async round() {
        const t0 = performance.now();
        const child = await forkChild(ENVTEST);
        try {
          const first = await child.request<Started>('start', { dir: CRDS });
          const forkS = (performance.now() - t0) / 1000;
          const { stopMs } = await child.request<{ stopMs: number }>('stop');
          const warm = await child.request<Started>('start', { dir: CRDS });
          await child.request('stop');
          return {
            metrics: {
              fork_to_ready_s: forkS,
              start_to_ready_ms: first.readyMs,
              warm_start_to_ready_ms: warm.readyMs,
              first_namespace_ms: first.namespaceMs,
              stop_ms: stopMs,
            },
          };
        } finally {
          await child.close();
        }
      },
      close: () => Promise.resolve(),
    });
  },
};
