// `storage-shield`: N watchers of all Pods on our apiserver (etcd3 storage) and N watchers
// straight on the same etcd (etcd3 package): how many watch streams and watchers etcd holds for
// each (etcd's own /metrics), and the write→receive p99 of both for the same Pod writes.
import { EtcdCluster } from '@listwatch/testing';
import { percentile, type Scenario } from '../../../bench/lib.js';
import { forkChild, sleep, type Child } from '../../../bench/proc.js';
import { openRig } from './watch-harness.js';

const RAW = new URL('../../storage/bench/procs/raw-watchers.ts', import.meta.url);
const count = (quick: boolean) => (quick ? 200 : 1000);
const events = (quick: boolean) => (quick ? 20 : 100);

/** etcd's gauges of watch streams and watchers. */
async function etcdWatches(endpoint: string): Promise<{ streams: number; watchers: number }> {
  const text = await (await fetch(`${endpoint}/metrics`)).text();
  const gauge = (name: string) =>
    Number(
      text
        .split('\n')
        .find((l) => l.startsWith(`${name} `))
        ?.split(' ')[1] ?? NaN,
    );
  return {
    streams: gauge('etcd_debugging_mvcc_watch_stream_total'),
    watchers: gauge('etcd_debugging_mvcc_watcher_total'),
  };
}

export const scenario: Scenario = {
  name: 'storage-shield',
  title: 'etcd watch load and write→receive p99: watchers on our apiserver vs straight on etcd',
  processes: (ctx) =>
    `etcd + our apiserver writing its own Pods (child) + ${count(ctx.quick)} API watchers (one child) + ` +
    `${count(ctx.quick)} etcd watchers (one child), all at once`,
  rounds: (ctx) => (ctx.quick ? 1 : 3),
  async open(ctx) {
    const n = count(ctx.quick);
    const etcd = await EtcdCluster.start();
    const endpoint = etcd.endpoints[0]!;
    const empty = await etcdWatches(endpoint);
    const rig = await openRig({
      mode: 'apiserver',
      count: n,
      sample: 20,
      serverOptions: { etcd: etcd.endpoints },
    });
    await sleep(500);
    const ours = await etcdWatches(endpoint);
    let raw: Child | undefined;
    try {
      raw = await forkChild(RAW);
      await raw.request('open', {
        endpoints: etcd.endpoints,
        prefix: '/registry/pods/',
        count: n,
        sample: 20,
      });
      await sleep(500);
      const both = await etcdWatches(endpoint);
      const rawChild = raw;
      return {
        async round() {
          const e = events(ctx.quick);
          await rig.watchers.request('arm', { events: e });
          await rawChild.request('arm', { events: e });
          const { startedAt } = await rig.server.request<{ startedAt: number }>('burst', {
            count: e,
          });
          const api = await rig.watchers.request<{ latencies: number[]; lastAt: number }>('wait', {
            timeoutMs: 120_000,
          });
          const direct = await rawChild.request<{ latencies: number[]; lastAt: number }>('wait');
          const apiP99 = percentile(api.latencies, 99);
          const rawP99 = percentile(direct.latencies, 99);
          ctx.progress(
            `  p99 via apiserver ${apiP99.toFixed(0)} ms, straight on etcd ${rawP99.toFixed(0)} ms`,
          );
          return {
            metrics: {
              watchers: n,
              ours_etcd_watch_streams: ours.streams - empty.streams,
              ours_etcd_watchers: ours.watchers - empty.watchers,
              raw_etcd_watch_streams: both.streams - ours.streams,
              raw_etcd_watchers: both.watchers - ours.watchers,
              ours_p99_ms: apiP99,
              raw_p99_ms: rawP99,
              ours_seconds: (api.lastAt - startedAt) / 1000,
              raw_seconds: (direct.lastAt - startedAt) / 1000,
            },
            ratios: {
              etcd_watchers_vs_raw:
                (ours.watchers - empty.watchers) / (both.watchers - ours.watchers),
              p99_vs_raw: apiP99 / rawP99,
            },
          };
        },
        async close() {
          await rawChild.request('close').catch(() => undefined);
          await rawChild.close();
          await rig.close();
          await etcd.destroy();
        },
      };
    } catch (error) {
      await raw?.close();
      await rig.close();
      await etcd.destroy();
      throw error;
    }
  },
};
