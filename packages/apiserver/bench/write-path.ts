// `write-path`: 64 concurrent writers creating then updating ~1 KB ConfigMaps, through our
// apiserver on etcd3 vs the same compare-and-swap transactions sent straight to the same etcd
// with the etcd3 package (the physical limit of any apiserver on that etcd), and through our
// Etcd3Storage alone (the storage layer's share); the apiserver on each embedded backend
// (memory, sqlite) too. etcd runs with --unsafe-no-fsync (the test harness's), so etcd's disk is
// not what is measured.
import { EtcdCluster, tempDir } from '@listwatch/testing';
import type { Scenario } from '../../../bench/lib.js';
import { forkChild, type Child } from '../../../bench/proc.js';

const RAW = new URL('../../storage/bench/procs/raw-etcd.ts', import.meta.url);
const APISERVER = new URL('./procs/apiserver.ts', import.meta.url);
const WRITERS_PROC = new URL('./procs/writers.ts', import.meta.url);
const WRITERS = 64;
const BACKENDS = ['etcd3', 'memory', 'sqlite'] as const;

const phaseMs = (quick: boolean) => (quick ? 2_000 : 10_000);

/** The unary requests etcd has answered (Range, Txn, Put, …), from its /metrics. */
async function etcdRequests(endpoint: string): Promise<number> {
  const text = await (await fetch(`${endpoint}/metrics`)).text();
  let n = 0;
  for (const line of text.split('\n'))
    if (line.startsWith('grpc_server_handled_total{') && line.includes('grpc_type="unary"'))
      n += Number(line.split(' ').at(-1));
  return n;
}

export const scenario: Scenario = {
  name: 'write-path',
  title: `${WRITERS} concurrent writers, create + update of ~1 KB ConfigMaps: apiserver vs raw etcd`,
  processes: () =>
    'etcd (1 member) + the apiserver under test (child, one per backend, one writing at a time) + ' +
    `${WRITERS} writers (one child) / the raw etcd3 and Etcd3Storage writers (one child); runner idle`,
  rounds: (ctx) => (ctx.quick ? 2 : 5),
  async open(ctx) {
    const etcd = await EtcdCluster.start();
    const dir = tempDir('listwatch-bench-write-');
    const servers = new Map<(typeof BACKENDS)[number], { child: Child; url: string }>();
    const children: Child[] = [];
    try {
      for (const backend of BACKENDS) {
        const child = await forkChild(APISERVER);
        children.push(child);
        const { url } = await child.request<{ url: string }>('start', {
          options: {
            storageBackend: backend,
            ...(backend === 'etcd3'
              ? { etcdServers: etcd.endpoints, etcdCompactionInterval: 0 }
              : {}),
            ...(backend === 'sqlite' ? { dataDir: dir.path } : {}),
          },
        });
        servers.set(backend, { child, url });
      }
      const raw = await forkChild(RAW);
      children.push(raw);
      await raw.request('start', { endpoints: etcd.endpoints });
      const writers = await forkChild(WRITERS_PROC);
      children.push(writers);
      const ms = phaseMs(ctx.quick);
      return {
        async round() {
          const rates: Record<string, number> = {};
          const perOp: Record<string, number> = {};
          const endpoint = etcd.endpoints[0]!;
          // CPU µs per operation of the process under test: on 2 shared cores the throughputs
          // move with the load, what each write costs the server much less.
          const cpuPerOp: Record<string, number> = {};
          let before = await etcdRequests(endpoint);
          let cpu = await raw.request<number>('cpu');
          const r = await raw.request<{ ops: number; seconds: number }>('run', {
            writers: WRITERS,
            ms,
            prefix: '/raw',
          });
          cpuPerOp['raw_etcd_client'] = ((await raw.request<number>('cpu')) - cpu) / r.ops;
          rates['raw_etcd'] = r.ops / r.seconds;
          perOp['raw_etcd'] = ((await etcdRequests(endpoint)) - before) / r.ops;
          // The same writes through our Etcd3Storage alone: the storage layer's share.
          before = await etcdRequests(endpoint);
          cpu = await raw.request<number>('cpu');
          const st = await raw.request<{ ops: number; seconds: number }>('runStorage', {
            writers: WRITERS,
            ms,
          });
          cpuPerOp['storage_etcd3'] = ((await raw.request<number>('cpu')) - cpu) / st.ops;
          rates['storage_etcd3'] = st.ops / st.seconds;
          perOp['storage_etcd3'] = ((await etcdRequests(endpoint)) - before) / st.ops;
          for (const [backend, { url, child }] of servers) {
            before = await etcdRequests(endpoint);
            cpu = await child.request<number>('cpu');
            const w = await writers.request<{ ops: number; seconds: number }>('run', {
              url,
              writers: WRITERS,
              ms,
            });
            cpuPerOp[`apiserver_${backend}`] = ((await child.request<number>('cpu')) - cpu) / w.ops;
            rates[`apiserver_${backend}`] = w.ops / w.seconds;
            // Where the time goes is first a matter of round trips: etcd requests per write.
            if (backend === 'etcd3')
              perOp['apiserver_etcd3'] = ((await etcdRequests(endpoint)) - before) / w.ops;
          }
          ctx.progress(
            `  ${Object.entries(rates)
              .map(([k, v]) => `${k} ${Math.round(v)}/s`)
              .join(', ')}`,
          );
          return {
            metrics: {
              ...Object.fromEntries(Object.entries(rates).map(([k, v]) => [`${k}_ops_per_s`, v])),
              ...Object.fromEntries(
                Object.entries(perOp).map(([k, v]) => [`${k}_etcd_requests_per_op`, v]),
              ),
              ...Object.fromEntries(
                Object.entries(cpuPerOp).map(([k, v]) => [`${k}_cpu_us_per_op`, v]),
              ),
            },
            ratios: {
              vs_raw_etcd: rates['apiserver_etcd3']! / rates['raw_etcd'],
              memory_vs_raw_etcd: rates['apiserver_memory']! / rates['raw_etcd'],
              sqlite_vs_raw_etcd: rates['apiserver_sqlite']! / rates['raw_etcd'],
              storage_vs_raw_etcd: rates['storage_etcd3'] / rates['raw_etcd'],
            },
          };
        },
        async close() {
          for (const { child } of servers.values()) await child.request('stop').catch(() => {});
          await raw.request('stop').catch(() => {});
          for (const c of children) await c.close();
          await etcd.destroy();
          dir.remove();
        },
      };
    } catch (error) {
      for (const c of children) await c.close();
      await etcd.destroy();
      dir.remove();
      throw error;
    }
  },
};
