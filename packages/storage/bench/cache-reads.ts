// `cache-reads`: the watch cache's reads (issue 23) — apply cost per event at 150,000 vs 1,500
// objects, snapshot memory over 75 s of writes as a fraction of the store, and a paginated LIST
// from the cache vs each backend; the measurement is runCacheReads (cache-reads.bench.ts).
import type { Scenario } from '../../../bench/lib.js';
import { runCacheReads } from './cache-reads.bench.js';

export const scenario: Scenario = {
  name: 'cache-reads',
  title: 'watch cache: apply cost by store size, snapshot memory, paginated LIST by source',
  processes: () => 'the runner alone (Cacher in-process; etcd in its own process for the LIST)',
  rounds: (ctx) => (ctx.quick ? 1 : 3),
  open(ctx) {
    return Promise.resolve({
      async round() {
        const result = await runCacheReads({ scale: ctx.quick ? 0.1 : 1, etcd: true });
        const { figures } = result;
        const metrics: Record<string, number> = {};
        for (const [source, ms] of Object.entries(figures.list_ms))
          metrics[`list_ms_${source.replace(/\W+/g, '_')}`] = ms;
        return {
          metrics,
          ratios: {
            apply_150k_vs_1k5: figures.apply_150k_vs_1k5,
            ...(figures.snapshot_overhead !== undefined
              ? { snapshot_overhead: figures.snapshot_overhead }
              : {}),
          },
        };
      },
      close: () => Promise.resolve(),
    });
  },
};
