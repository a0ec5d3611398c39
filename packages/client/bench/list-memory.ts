// `list-memory`: 10 concurrent slow LISTs of every Pod (resourceVersion=0, served from the watch
// cache, and unset, served from storage): the server's RSS growth per concurrent LIST against the
// response's size. A server that builds the whole response before sending it grows by at least
// the response per LIST (ratio ≥ 1); one that streams grows by its buffers only.
import type { Scenario } from '../../../bench/lib.js';
import { forkChild, sleep, type Child } from '../../../bench/proc.js';

const SERVER = new URL('./procs/loaded-server.ts', import.meta.url);
const READERS = new URL('./procs/list-readers.ts', import.meta.url);
const CONCURRENT = 10;
const pods = (quick: boolean) => (quick ? 5_000 : 50_000);

async function measure(server: Child, readers: Child, url: string) {
  await server.request('gc');
  await sleep(300);
  const before = await server.request<{ rss: number }>('memory');
  let peak = before.rss;
  let polling = true;
  const poll = (async () => {
    while (polling) {
      const m = await server.request<{ rss: number }>('memory', { gc: false });
      peak = Math.max(peak, m.rss);
      await sleep(50);
    }
  })();
  const r = await readers.request<{ bytes: number; seconds: number }>('read', {
    url,
    concurrency: CONCURRENT,
    pauseMs: 2,
  });
  polling = false;
  await poll;
  const growthPerList = ((peak - before.rss) * 2 ** 20) / CONCURRENT;
  return { growthPerList, bytes: r.bytes, seconds: r.seconds };
}

export const scenario: Scenario = {
  name: 'list-memory',
  title: `${CONCURRENT} concurrent slow LISTs of every Pod: server RSS growth per LIST vs response size`,
  processes: (ctx) =>
    `apiserver with ${pods(ctx.quick).toLocaleString('en-US')} Pods (child, --expose-gc) + ${CONCURRENT} readers (one child) + runner polling the server's RSS`,
  rounds: (ctx) => (ctx.quick ? 1 : 3),
  async open(ctx) {
    const server = await forkChild(SERVER, { execArgv: ['--expose-gc'] });
    const { url } = await server.request<{ url: string }>('start', { pods: pods(ctx.quick) });
    const readers = await forkChild(READERS);
    // One LIST of each kind first: what the server builds once (code, caches) is not per LIST.
    for (const query of ['?resourceVersion=0', ''])
      await readers.request('read', {
        url: `${url}/api/v1/pods${query}`,
        concurrency: 1,
        pauseMs: 0,
      });
    return {
      async round() {
        const metrics: Record<string, number> = {};
        const ratios: Record<string, number> = {};
        for (const [name, query] of [
          ['rv0', '?resourceVersion=0'],
          ['rv_unset', ''],
        ] as const) {
          const r = await measure(server, readers, `${url}/api/v1/pods${query}`);
          metrics[`${name}_response_mb`] = r.bytes / 2 ** 20;
          metrics[`${name}_growth_per_list_mb`] = r.growthPerList / 2 ** 20;
          metrics[`${name}_seconds`] = r.seconds;
          ratios[`${name}_growth_vs_response`] = r.growthPerList / r.bytes;
          ctx.progress(
            `  ${name}: ${(r.growthPerList / 2 ** 20).toFixed(1)} MB per LIST of ${(r.bytes / 2 ** 20).toFixed(1)} MB`,
          );
        }
        // The ratio: the worse of the two.
        ratios['growth_vs_response'] = Math.max(
          ratios['rv0_growth_vs_response']!,
          ratios['rv_unset_growth_vs_response']!,
        );
        return { metrics, ratios };
      },
      async close() {
        await readers.close();
        await server.request('stop').catch(() => undefined);
        await server.close();
      },
    };
  },
};
