// `list-stall`: what a cluster-wide LIST does to every other request (issue 35). Our apiserver
// holds N Pods (30,000 full size, as the density test's 1,000 nodes); another process LISTs them
// all — draining its socket as fast as the server writes, as a client elsewhere does — while the
// runner GETs one Pod every 10 ms. Measured per LIST: the apiserver's event-loop delay p99/max
// (perf_hooks monitorEventLoopDelay: how long any request waits to be read) and the GETs' p99/max.
// The first LIST encodes every Pod (cold); the next ones copy remembered encodings (warm).
import { Agent, request } from 'node:http';
import { percentile, type Scenario } from '../../../bench/lib.js';
import { forkChild, sleep, type Child } from '../../../bench/proc.js';

const APISERVER = new URL('./procs/apiserver.ts', import.meta.url);
const pods = (quick: boolean) => (quick ? 3_000 : 30_000);

/** One request timed from the call to the last byte; the body is counted, not decoded. */
function timed(agent: Agent, url: string): Promise<{ ms: number; bytes: number }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, headers: { accept: 'application/json' } }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      res.on('end', () => resolve({ ms: performance.now() - t0, bytes }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** A body as text; undefined when the request fails (a starved server: asked again). */
function getText(agent: Agent, url: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const req = request(url, { agent }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (chunk: Buffer) => parts.push(chunk));
      res.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
      res.on('error', () => resolve(undefined));
    });
    req.on('error', () => resolve(undefined));
    req.end();
  });
}

type Delay = { p50: number; p99: number; max: number };

/** One LIST of every Pod with GETs beside it; the server's loop delay over the LIST. */
async function listWithGets(
  server: Child,
  url: string,
  getPath: string,
): Promise<{ listMs: number; bytes: number; loop: Delay; gets: number[] }> {
  const listAgent = new Agent({ keepAlive: true, maxSockets: 1 });
  const getAgent = new Agent({ keepAlive: true, maxSockets: 1 });
  await timed(getAgent, `${url}${getPath}`);
  await server.request('loopDelay');
  const gets: number[] = [];
  let listing = true;
  const getter = (async () => {
    while (listing) {
      gets.push((await timed(getAgent, `${url}${getPath}`)).ms);
      await sleep(10);
    }
  })();
  const list = await timed(listAgent, `${url}/api/v1/pods`);
  listing = false;
  await getter;
  const loop = await server.request<Delay>('loopDelay', { read: true });
  listAgent.destroy();
  getAgent.destroy();
  return { listMs: list.ms, bytes: list.bytes, loop, gets };
}

export const scenario: Scenario = {
  name: 'list-stall',
  title: 'a cluster-wide LIST of every Pod against the event loop: loop delay and GETs beside it',
  processes: (ctx) =>
    `our apiserver (child, memory storage: the LIST is the watch cache's either way) holding ${pods(ctx.quick).toLocaleString('en-US')} ` +
    'Pods; the runner LISTs them all and GETs one Pod every 10 ms meanwhile',
  rounds: (ctx) => (ctx.quick ? 1 : 3),
  async open(ctx) {
    const n = pods(ctx.quick);
    const server = await forkChild(APISERVER, { execArgv: ['--expose-gc'] });
    try {
      const { url } = await server.request<{ url: string }>('start', {
        options: { storageBackend: 'memory' },
      });
      ctx.progress(`  writing ${n.toLocaleString('en-US')} Pods`);
      await server.request('fill', { count: n });
      // The watch cache has them all once a consistent page of one counts them.
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      let first: { name: string; namespace: string } | undefined;
      for (;;) {
        const page = JSON.parse((await getText(agent, `${url}/api/v1/pods?limit=1`)) ?? '{}') as {
          metadata?: { remainingItemCount?: number };
          items?: { metadata: { name: string; namespace: string } }[];
        };
        // The Pod the GETs read: the first in key order.
        first = page.items?.[0]?.metadata;
        if (first && (page.metadata?.remainingItemCount ?? 0) + 1 >= n) break;
        await sleep(500);
      }
      agent.destroy();
      const { name, namespace } = first;
      const getPath = `/api/v1/namespaces/${namespace}/pods/${name}`;
      let cold = true;
      return {
        async round() {
          const metrics: Record<string, number> = { pods: n };
          const runs = cold ? (['cold', 'warm'] as const) : (['warm'] as const);
          cold = false;
          for (const kind of runs) {
            const r = await listWithGets(server, url, getPath);
            Object.assign(metrics, {
              [`${kind}_list_ms`]: r.listMs,
              [`${kind}_list_mb`]: r.bytes / 2 ** 20,
              [`${kind}_event_loop_delay_p99_ms`]: r.loop.p99,
              [`${kind}_event_loop_delay_max_ms`]: r.loop.max,
              [`${kind}_gets_during_list`]: r.gets.length,
              [`${kind}_get_p99_ms`]: percentile(r.gets, 99),
              [`${kind}_get_max_ms`]: r.gets.reduce((a, b) => Math.max(a, b), 0),
            });
            ctx.progress(
              `  ${kind} LIST ${(r.bytes / 2 ** 20).toFixed(0)} MB in ${r.listMs.toFixed(0)} ms: ` +
                `loop delay p99 ${r.loop.p99.toFixed(0)} / max ${r.loop.max.toFixed(0)} ms, ` +
                `${r.gets.length} GETs, max ${metrics[`${kind}_get_max_ms`]!.toFixed(0)} ms`,
            );
          }
          return { metrics };
        },
        async close() {
          await server.request('stop').catch(() => undefined);
          await server.close();
        },
      };
    } catch (error) {
      await server.close();
      throw error;
    }
  },
};
