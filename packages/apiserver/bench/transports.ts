// `transports`: the fanout burst at 100 watchers over each way a client can watch — HTTP/1.1
// JSON and CBOR, HTTP/2 (1 connection × 100 streams, 10 × 10, and 1 × 100 with node's default
// 64 KiB receive windows instead of raised ones), WebSocket; ratios of events/s to HTTP/1.1 JSON.
import type { Scenario } from '../../../bench/lib.js';
import { burst, openRig, type OpenOptions } from './watch-harness.js';

const WATCHERS = 100;
const events = (quick: boolean) => (quick ? 20 : 100);

const VARIANTS: Record<string, Partial<OpenOptions>> = {
  http1_json: { transport: 'http1' },
  http1_cbor: { transport: 'http1', cbor: true },
  h2_1x100: { transport: 'h2', connections: 1 },
  h2_10x10: { transport: 'h2', connections: 10 },
  h2_1x100_default_window: { transport: 'h2', connections: 1, h2Window: false },
  websocket: { transport: 'ws' },
};

export const scenario: Scenario = {
  name: 'transports',
  title: `watch fan-out to ${WATCHERS} watchers over each transport and encoding`,
  processes: () => `runner + our apiserver (child) + ${WATCHERS} watchers (one child)`,
  rounds: (ctx) => (ctx.quick ? 1 : 3),
  open(ctx) {
    const n = events(ctx.quick);
    return Promise.resolve({
      async round() {
        const eps: Record<string, number> = {};
        const metrics: Record<string, number> = {};
        for (const [name, variant] of Object.entries(VARIANTS)) {
          const rig = await openRig({ mode: 'apiserver', count: WATCHERS, sample: 10, ...variant });
          try {
            await burst(rig, 5);
            const r = await burst(rig, n);
            eps[name] = r.eventsPerSecond;
            metrics[`${name}_events_per_s`] = r.eventsPerSecond;
            metrics[`${name}_p99_ms`] = r.p99;
          } finally {
            await rig.close();
          }
          ctx.progress(`  ${name}: ${Math.round(eps[name])} events/s`);
        }
        const base = eps['http1_json']!;
        const ratios: Record<string, number> = {};
        for (const name of Object.keys(VARIANTS))
          if (name !== 'http1_json') ratios[`${name}_vs_http1_json`] = eps[name]! / base;
        ratios['h2_raised_window_vs_default'] = eps['h2_1x100']! / eps['h2_1x100_default_window']!;
        return { metrics, ratios };
      },
      close: () => Promise.resolve(),
    });
  },
};
