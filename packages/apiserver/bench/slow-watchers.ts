// `slow-watchers`: one healthy watcher and 100 that never read, while Pods are written at
// 1000/s: the healthy watcher's write→receive p99 against the same run without the stalled
// ones, the server's RSS (peak while they stall) and how long until the server cuts them all
// (its apiserver_watch_cache_watchers gauge back to the healthy one).
import type { Scenario } from '../../../bench/lib.js';
import { sleep } from '../../../bench/proc.js';
import { burst, openRig, type WatchRig } from './watch-harness.js';

const STALLED = 100;
const RATE = 1000;
const events = (quick: boolean) => (quick ? 1_000 : 5_000);

/** The number of Pod watchers the server's watch cache holds, from its /metrics. */
async function cacheWatchers(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith('apiserver_watch_cache_watchers{') && l.includes('resource="pods"'));
  return line ? Number(line.split(' ').at(-1)) : NaN;
}

/** One run; returns the healthy watcher's p99, or nothing if the server cut it. */
async function phase(
  withStalled: boolean,
  n: number,
  metrics: Record<string, number>,
): Promise<number | undefined> {
  const name = withStalled ? 'stalled' : 'clean';
  let rig: WatchRig | undefined;
  try {
    rig = await openRig({ mode: 'apiserver', count: 1, sample: 1 });
    await burst(rig, 10);
    const base = await rig.server.request<{ rss: number }>('memory');
    if (withStalled)
      await rig.watchers.request('stall', { url: rig.url, path: rig.path, count: STALLED });
    let peak = 0;
    let cutAt = NaN;
    const t0 = performance.now();
    let polling = true;
    const server = rig;
    const poll = (async () => {
      while (polling) {
        const m = await server.server.request<{ rss: number }>('memory', { gc: false });
        peak = Math.max(peak, m.rss);
        if (withStalled && Number.isNaN(cutAt) && (await cacheWatchers(server.url)) <= 1)
          cutAt = performance.now() - t0;
        await sleep(100);
      }
    })();
    let p99: number | undefined;
    try {
      p99 = (await burst(rig, n, RATE)).p99;
      metrics[`${name}_p99_ms`] = p99;
      metrics[`healthy_cut_${name}`] = 0;
    } catch (error) {
      if (!/a watch ended/.test((error as Error).message)) throw error;
      metrics[`healthy_cut_${name}`] = 1;
    }
    if (withStalled) {
      // Those not cut during the writes get up to 60 s more.
      const deadline = performance.now() + 60_000;
      while (Number.isNaN(cutAt) && performance.now() < deadline) await sleep(100);
      metrics['seconds_until_all_cut'] = cutAt / 1000;
    }
    polling = false;
    await poll;
    metrics[`server_rss_base_mb_${name}`] = base.rss;
    metrics[`server_rss_peak_mb_${name}`] = peak;
    return p99;
  } finally {
    await rig?.close();
  }
}

export const scenario: Scenario = {
  name: 'slow-watchers',
  title: `1 healthy + ${STALLED} stalled watchers at ${RATE} Pod writes/s`,
  processes: () =>
    `runner (polls /metrics) + our apiserver writing its own Pods (child) + 1 healthy and ${STALLED} stalled watchers (one child)`,
  rounds: (ctx) => (ctx.quick ? 1 : 3),
  open(ctx) {
    const n = events(ctx.quick);
    return Promise.resolve({
      async round() {
        const metrics: Record<string, number> = { events: n };
        // Each phase on a fresh server. On a loaded machine the server may cut even the healthy
        // watcher (blocked past the watch cache's budget): that is reported, not hidden.
        const clean = await phase(false, n, metrics);
        const stalled = await phase(true, n, metrics);
        ctx.progress(
          `  p99 clean ${clean?.toFixed(1) ?? 'cut'} ms, with ${STALLED} stalled ` +
            `${stalled?.toFixed(1) ?? 'cut'} ms, all stalled cut after ` +
            `${metrics['seconds_until_all_cut']?.toFixed(1)} s`,
        );
        return {
          metrics,
          ratios:
            clean !== undefined && stalled !== undefined ? { p99_vs_clean: stalled / clean } : {},
        };
      },
      close: () => Promise.resolve(),
    });
  },
};
