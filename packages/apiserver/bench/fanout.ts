// `fanout`: N HTTP/1.1 watchers of all Pods, a burst of Pod creations; delivered events/s and
// write→receive p50/p99 for our apiserver, the same apiserver encoding per watcher, and
// the ceiling (a minimal node:http server writing the same pre-encoded bytes, one write per burst
// per connection). Each server in its own process, the watchers in another.
import type { Scenario } from '../../../bench/lib.js';
import { burst, openRig, type WatchRig } from './watch-harness.js';

const size = (quick: boolean) =>
  quick ? { watchers: 300, events: 20 } : { watchers: 1000, events: 100 };
const MODES = ['apiserver', 'per-watcher', 'ceiling'] as const;

export const scenario: Scenario = {
  name: 'fanout',
  title:
    'watch fan-out over HTTP/1.1: our apiserver vs encode-per-watcher vs the node:http ceiling',
  processes: (ctx) =>
    `runner + the server under test (child; one of ${MODES.join(', ')} at a time) + ` +
    `${size(ctx.quick).watchers} watchers (one child)`,
  rounds: (ctx) => (ctx.quick ? 2 : 5),
  open(ctx) {
    const { watchers, events } = size(ctx.quick);
    return Promise.resolve({
      async round() {
        const metrics: Record<string, number> = {};
        const eps: Record<string, number> = {};
        const cpuPerEvent: Record<string, number> = {};
        // One server at a time: none competes with another for the cores.
        for (const mode of MODES) {
          let rig: WatchRig | undefined;
          try {
            rig = await openRig({ mode, count: watchers, sample: 20 });
            // Warm-up: the code paths compiled before anything is measured.
            for (let i = 0; i < 3; i++) await burst(rig, Math.max(2, events >> 2));
            const cpu = await rig.server.request<number>('cpu');
            const r = await burst(rig, events);
            // The server's CPU per delivered event: what encode-once saves, whoever is the
            // bottleneck of the end-to-end rate (on 2 shared cores, often the watchers' process).
            cpuPerEvent[mode] =
              ((await rig.server.request<number>('cpu')) - cpu) / (events * watchers);
            metrics[`${mode}_server_cpu_us_per_event`] = cpuPerEvent[mode];
            eps[mode] = r.eventsPerSecond;
            metrics[`${mode}_events_per_s`] = r.eventsPerSecond;
            metrics[`${mode}_p50_ms`] = r.p50;
            metrics[`${mode}_p99_ms`] = r.p99;
            metrics[`${mode}_mb_per_s`] = r.mbPerSecond;
          } finally {
            await rig?.close();
          }
          ctx.progress(`  ${mode}: ${Math.round(eps[mode] ?? 0)} events/s`);
        }
        metrics['watchers'] = watchers;
        metrics['events'] = events;
        return {
          metrics,
          ratios: {
            vs_per_watcher: eps['apiserver']! / eps['per-watcher']!,
            vs_ceiling: eps['apiserver']! / eps['ceiling']!,
            server_cpu_per_watcher_vs_once: cpuPerEvent['per-watcher']! / cpuPerEvent['apiserver']!,
          },
        };
      },
      close: () => Promise.resolve(),
    });
  },
};
