// `idle-watchers`: N idle watches of Pods held by our apiserver, over HTTP/1.1 (one connection
// each) and over HTTP/2 (connections of 100 streams): the server's memory per watch (RSS after
// a GC, before and after). etcd's own cost is ~18 KB per watch stream.
import type { Scenario } from '../../../bench/lib.js';
import { sleep } from '../../../bench/proc.js';
import { openRig, type OpenOptions } from './watch-harness.js';

const count = (quick: boolean) => (quick ? 1_000 : 10_000);
const STREAMS_PER_CONNECTION = 100;

async function perWatch(n: number, variant: Partial<OpenOptions>) {
  // The rig opens the watchers; the server's memory is read before (a rig of 0) and after.
  const rig = await openRig({ mode: 'apiserver', count: 0, ...variant });
  try {
    await sleep(500);
    const before = await rig.server.request<{ rss: number; heap: number }>('memory');
    await rig.watchers.request('open', {
      url: rig.url,
      path: rig.path,
      count: n,
      sample: 0,
      transport: variant.transport ?? 'http1',
      connections: variant.connections ?? 1,
    });
    await sleep(1000);
    const after = await rig.server.request<{ rss: number; heap: number }>('memory');
    return {
      rssKb: ((after.rss - before.rss) * 1024) / n,
      heapKb: ((after.heap - before.heap) * 1024) / n,
    };
  } finally {
    await rig.close();
  }
}

export const scenario: Scenario = {
  name: 'idle-watchers',
  title: 'idle watches: server memory per watch over HTTP/1.1 and HTTP/2',
  processes: (ctx) =>
    `runner + our apiserver (child, --expose-gc) + ${count(ctx.quick).toLocaleString('en-US')} watchers (one child)`,
  rounds: (ctx) => (ctx.quick ? 1 : 3),
  open(ctx) {
    const n = count(ctx.quick);
    return Promise.resolve({
      async round() {
        const h1 = await perWatch(n, { transport: 'http1' });
        ctx.progress(`  HTTP/1.1: ${h1.rssKb.toFixed(1)} KB per watch`);
        const h2 = await perWatch(n, {
          transport: 'h2',
          connections: Math.ceil(n / STREAMS_PER_CONNECTION),
        });
        ctx.progress(`  HTTP/2: ${h2.rssKb.toFixed(1)} KB per watch`);
        return {
          metrics: {
            watches: n,
            kb_per_watch_http1: h1.rssKb,
            kb_per_watch_http2: h2.rssKb,
            heap_kb_per_watch_http1: h1.heapKb,
            heap_kb_per_watch_http2: h2.heapKb,
          },
        };
      },
      close: () => Promise.resolve(),
    });
  },
};
