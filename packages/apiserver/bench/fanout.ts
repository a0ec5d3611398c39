// `fanout`: N HTTP/1.1 watchers of all Pods, a burst of Pod creations; delivered events/s and
// write→receive p50/p99 for our apiserver, the same apiserver encoding per watcher, and
// the ceiling (a minimal node:http server writing the same pre-encoded bytes, one write per burst
// per connection). Each server in its own process, the watchers in another.
import { median, type Scenario } from '../../../bench/lib.js';
import { burst, openRig, type WatchRig } from './watch-harness.js';

// Quick mode keeps the issue's size and measures fewer bursts: a burst lasts a few seconds at most.
const size = (quick: boolean) => ({ watchers: 1000, events: 100, bursts: quick ? 2 : 3 });
const MODES = ['apiserver', 'per-watcher', 'ceiling'] as const;
type Mode = (typeof MODES)[number];

interface Sample {
  eps: number;
  cpuPerEvent: number;
  p50: number;
  p99: number;
  mbPerSecond: number;
}

export const scenario: Scenario = {
  name: 'fanout',
  title:
    'watch fan-out over HTTP/1.1: our apiserver vs encode-per-watcher vs the node:http ceiling',
  processes: (ctx) =>
    `runner + the three servers under test (${MODES.join(', ')}; a child each, one bursting at a ` +
    `time, the others idle) + ${size(ctx.quick).watchers} watchers of each (a child each)`,
  rounds: (ctx) => (ctx.quick ? 2 : 5),
  async open(ctx) {
    const { watchers, events, bursts } = size(ctx.quick);
    // All three open for the whole run, so that each round alternates bursts between them: a
    // ratio is taken between bursts moments apart, under the same machine load.
    const rigs = new Map<Mode, WatchRig>();
    try {
      for (const mode of MODES) {
        const rig = await openRig({ mode, count: watchers, sample: 20 });
        rigs.set(mode, rig);
        // Warm-up: the code paths compiled before anything is measured.
        for (let i = 0; i < 3; i++) await burst(rig, Math.max(2, events >> 2));
      }
    } catch (err) {
      await Promise.all([...rigs.values()].map((rig) => rig.close()));
      throw err;
    }
    const measure = async (mode: Mode): Promise<Sample> => {
      const rig = rigs.get(mode)!;
      const cpu = await rig.server.request<number>('cpu');
      const r = await burst(rig, events);
      // The server's CPU per delivered event: what encode-once saves, whoever is the bottleneck
      // of the end-to-end rate (on 2 shared cores, often the watchers' process).
      const cpuPerEvent = ((await rig.server.request<number>('cpu')) - cpu) / (events * watchers);
      return {
        eps: r.eventsPerSecond,
        cpuPerEvent,
        p50: r.p50,
        p99: r.p99,
        mbPerSecond: r.mbPerSecond,
      };
    };
    return {
      async round() {
        const samples = new Map<Mode, Sample[]>(MODES.map((mode) => [mode, []]));
        const perBurst = {
          vs_per_watcher: [] as number[],
          vs_ceiling: [] as number[],
          cpu: [] as number[],
        };
        for (let i = 0; i < bursts; i++) {
          const at = {} as Record<Mode, Sample>;
          for (const mode of MODES) {
            at[mode] = await measure(mode);
            samples.get(mode)!.push(at[mode]);
          }
          perBurst.vs_per_watcher.push(at.apiserver.eps / at['per-watcher'].eps);
          perBurst.vs_ceiling.push(at.apiserver.eps / at.ceiling.eps);
          perBurst.cpu.push(at['per-watcher'].cpuPerEvent / at.apiserver.cpuPerEvent);
        }
        const metrics: Record<string, number> = { watchers, events, bursts };
        for (const mode of MODES) {
          const of = (pick: (s: Sample) => number) => median(samples.get(mode)!.map(pick));
          metrics[`${mode}_server_cpu_us_per_event`] = of((s) => s.cpuPerEvent);
          metrics[`${mode}_events_per_s`] = of((s) => s.eps);
          metrics[`${mode}_p50_ms`] = of((s) => s.p50);
          metrics[`${mode}_p99_ms`] = of((s) => s.p99);
          metrics[`${mode}_mb_per_s`] = of((s) => s.mbPerSecond);
          ctx.progress(`  ${mode}: ${Math.round(metrics[`${mode}_events_per_s`]!)} events/s`);
        }
        return {
          metrics,
          ratios: {
            vs_per_watcher: median(perBurst.vs_per_watcher),
            vs_ceiling: median(perBurst.vs_ceiling),
            server_cpu_per_watcher_vs_once: median(perBurst.cpu),
          },
        };
      },
      close: async () => {
        for (const rig of rigs.values()) await rig.close();
      },
    };
  },
};
