// `informer-sync`: the initial sync of an informer over N realistic Pods from our apiserver
// (memory storage, its own process): our SharedIndexInformer and makeInformer,
// @kubernetes/client-node 1.4's makeInformer, the bare cost (the same paginated LIST fetched and
// JSON.parse'd), the decode floor (the LIST parsed as it arrives and kept, nothing else) and our
// informer with an opt-in stripManagedFields transform, and with the opt-in slimLists. Each
// measurement in a fresh child process (clean heap), after a pause for the machine to settle;
// rounds in rotating order.
import type { Measurement, Scenario } from '../../../bench/lib.js';
import { forkChild, sleep } from '../../../bench/proc.js';
import { MODES, type Mode } from './procs/informer-modes.js';

const SERVER = new URL('./procs/loaded-server.ts', import.meta.url);
const CLIENT = new URL('./procs/informer-client.ts', import.meta.url);
const pods = (quick: boolean) => (quick ? 5_000 : 50_000);
const settleMs = (quick: boolean) => (quick ? 300 : 3_000);

interface Result {
  objects: number;
  seconds: number;
  /** The client's CPU time (all its threads, GC included) from start to synced. */
  cpuSeconds: number;
  heapMB: number;
  baseMB: number;
}

const KEYS: Record<Mode, string> = {
  'ours: SharedIndexInformer': 'ours_informer',
  'ours: makeInformer': 'ours_make_informer',
  'ours: SharedIndexInformer + stripManagedFields': 'ours_strip_managed_fields',
  'ours: SharedIndexInformer + slimLists': 'ours_slim_lists',
  'client-node': 'client_node',
  bare: 'bare',
  'decode floor': 'floor',
};

export const scenario: Scenario = {
  name: 'informer-sync',
  title: 'informer initial sync: time to synced and client heap, ours vs client-node vs the floor',
  processes: (ctx) =>
    `apiserver with ${pods(ctx.quick).toLocaleString('en-US')} Pods (child) + one client (a fresh child per measurement); runner idle`,
  rounds: (ctx) => (ctx.quick ? 1 : 3),
  async open(ctx) {
    const n = pods(ctx.quick);
    const server = await forkChild(SERVER, { execArgv: ['--expose-gc'] });
    const { url } = await server.request<{ url: string }>('start', { pods: n });
    const measure = async (mode: Mode): Promise<Result> => {
      // The server's garbage from the previous client is collected now, not during the next one.
      await server.request('gc');
      await sleep(settleMs(ctx.quick));
      const child = await forkChild(CLIENT, { execArgv: ['--expose-gc'] });
      try {
        const r = await child.request<Result>('measure', { mode, url });
        if (r.objects !== n) throw new Error(`${mode} synced ${r.objects} objects, not ${n}`);
        return r;
      } finally {
        await child.close();
      }
    };
    await measure('bare'); // warms the server's LIST paths up
    return {
      async round(index): Promise<Measurement> {
        const got = new Map<Mode, Result>();
        for (let i = 0; i < MODES.length; i++) {
          const mode = MODES[(i + index) % MODES.length]!;
          const r = await measure(mode);
          got.set(mode, r);
          ctx.progress(
            `  ${mode}: ${r.seconds.toFixed(2)} s (${r.cpuSeconds.toFixed(2)} s CPU), ${r.heapMB.toFixed(0)} MB heap`,
          );
        }
        const metrics: Record<string, number> = { pods: n };
        for (const [mode, r] of got) {
          metrics[`${KEYS[mode]}_s`] = r.seconds;
          metrics[`${KEYS[mode]}_cpu_s`] = r.cpuSeconds;
          metrics[`${KEYS[mode]}_heap_mb`] = r.heapMB;
        }
        const ours = got.get('ours: SharedIndexInformer')!;
        const strip = got.get('ours: SharedIndexInformer + stripManagedFields')!;
        const slim = got.get('ours: SharedIndexInformer + slimLists')!;
        const node = got.get('client-node')!;
        const floor = got.get('decode floor')!;
        return {
          metrics,
          ratios: {
            vs_floor: ours.seconds / floor.seconds,
            // The same in client CPU time: steadier than wall time on shared cores.
            cpu_vs_floor: ours.cpuSeconds / floor.cpuSeconds,
            heap_vs_client_node: ours.heapMB / node.heapMB,
            vs_client_node: ours.seconds / node.seconds,
            make_informer_vs_floor: got.get('ours: makeInformer')!.seconds / floor.seconds,
            strip_managed_fields_vs_floor: strip.seconds / floor.seconds,
            strip_managed_fields_heap_vs_floor: strip.heapMB / floor.heapMB,
            // The opt-in slimmer's trade: CPU against the floor, heap against the default's.
            slim_lists_cpu_vs_floor: slim.cpuSeconds / floor.cpuSeconds,
            slim_lists_heap_vs_ours: slim.heapMB / ours.heapMB,
          },
        };
      },
      async close() {
        await server.request('stop').catch(() => undefined);
        await server.close();
      },
    };
  },
};
