// `density`: the whole server under the load a cluster puts on it, as SIG-Scalability's
// clusterloader2 density test measures it with simulated (kwok / hollow) nodes, against
// Kubernetes' published SLOs (kubernetes/community sig-scalability/slos/slos.md). Every part of
// the load is a process of its own beside the apiserver's:
//   nodes      N simulated nodes (src/simulated-nodes.ts): Node, Lease renewed every 10 s, a
//              watch of its own pods (spec.nodeName=<node>), each pod reported Running;
//   informers  K cluster-wide pod informers (LIST limit=500, then WATCH);
//   load       pods created at a fixed rate, unbound, and a scheduler-like binder (pods/binding);
//   probe      a cluster-scoped LIST of all pods every 30 s and single-object GETs.
// One round per backend (the embedded default, sqlite, and etcd3 with etcd started here).
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { EtcdCluster, tempDir } from '@listwatch/testing';
import { percentile, type BenchContext, type Scenario } from '../../../bench/lib.js';
import { forkChild, REPO_ROOT, sleep, wallMs, type Child } from '../../../bench/proc.js';

const proc = (name: string) => new URL(`./procs/${name}.ts`, import.meta.url);

/** Forks one of the scenario's children (procs/<name>.ts), kept in `children` to stop at the end. */
export function childForker(children: Child[]) {
  return async (name: string, execArgv: string[] = []): Promise<Child> => {
    const child = await forkChild(proc(name), { execArgv });
    children.push(child);
    return child;
  };
}

/** The apiserver child, started with the scenario's flags, and its URL. */
export async function startDensityApiserver(
  fork: ReturnType<typeof childForker>,
  backend: string,
  storage: { etcdServers?: readonly string[]; dataDir: string },
): Promise<{ server: Child; url: string }> {
  const server = await fork('apiserver', ['--expose-gc']);
  const { url } = await server.request<{ url: string }>('start', {
    flags: [
      '--port=0',
      `--storage-backend=${backend}`,
      ...(storage.etcdServers
        ? [`--etcd-servers=${storage.etcdServers.join(',')}`]
        : [`--data-dir=${storage.dataDir}`]),
      // A watch per node and the informers, all anonymous: past the per-user cap, if any.
      '--max-watches-per-user=0',
    ],
  });
  return { server, url };
}

/** Pods per node, as the density test runs (30 pods/node). */
const PODS_PER_NODE = 30;
/** Cluster-wide pod informers (controllers: replicaset, endpoints, garbage collector…). */
const INFORMERS = 3;
const BACKENDS = ['sqlite', 'etcd3'] as const;
type Backend = (typeof BACKENDS)[number];

/** Kubernetes' SLO thresholds, in ms (slos.md: api_call_latency.md, pod_startup_latency.md). */
const SLO = {
  /** Mutating API calls, p99 per (resource, verb) over the run. */
  mutating: 1_000,
  /** Non-streaming reads, scope=resource (a single object), p99. */
  readResource: 1_000,
  /** Non-streaming reads, scope=cluster (a LIST of every namespace's objects), p99. */
  readCluster: 30_000,
  /** Schedulable stateless pods: creation to Running observed via watch, p99. */
  podStartup: 5_000,
};

interface Size {
  nodes: number;
  pods: number;
  /** Pod creations per second. */
  rate: number;
  listEveryMs: number;
  getsPerSecond: number;
}

function size(ctx: BenchContext): Size {
  const nodes = ctx.size ?? (ctx.quick ? 100 : 1_000);
  return {
    nodes,
    pods: nodes * PODS_PER_NODE,
    rate: 100,
    listEveryMs: ctx.quick && ctx.size === undefined ? 10_000 : 30_000,
    getsPerSecond: 5,
  };
}

const backends = (ctx: BenchContext): Backend[] =>
  BACKENDS.filter((b) => !ctx.backends || ctx.backends.includes(b));

/**
 * A server's /metrics. Asked again on a failed fetch: a server starved of CPU on a shared
 * machine can miss undici's timeouts, and one lost sample must not lose the whole run.
 */
async function metricsText(base: string): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await (await fetch(`${base}/metrics`)).text();
    } catch (error) {
      if (attempt >= 5) throw error;
      await sleep(1_000);
    }
  }
}

/** etcd's unary requests answered so far, by gRPC method (Range, Txn, …), from its /metrics. */
async function etcdCalls(endpoint: string): Promise<Record<string, number>> {
  const text = await metricsText(endpoint);
  const out: Record<string, number> = {};
  for (const line of text.split('\n')) {
    if (!line.startsWith('grpc_server_handled_total{') || !line.includes('grpc_type="unary"'))
      continue;
    const method = /grpc_method="([^"]+)"/.exec(line)?.[1];
    if (method) out[method] = (out[method] ?? 0) + Number(line.split(' ').at(-1));
  }
  return out;
}

/** Cumulative bucket counts of apiserver_request_duration_seconds by `verb resource`. */
type Histograms = Map<string, Map<number, number>>;

/** The apiserver's request latency histograms, as clusterloader2's APIResponsiveness reads them. */
async function requestHistograms(url: string): Promise<Histograms> {
  const text = await metricsText(url);
  const out: Histograms = new Map();
  for (const line of text.split('\n')) {
    if (!line.startsWith('apiserver_request_duration_seconds_bucket{')) continue;
    const labels = Object.fromEntries(
      [...line.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]),
    );
    const pair = `${labels['verb']} ${labels['resource']}`;
    const le = labels['le'] === '+Inf' ? Infinity : Number(labels['le']);
    let buckets = out.get(pair);
    if (!buckets) out.set(pair, (buckets = new Map()));
    buckets.set(le, Number(line.split(' ').at(-1)));
  }
  return out;
}

/** after − before, pair by pair. */
function histogramDelta(before: Histograms, after: Histograms): Histograms {
  const out: Histograms = new Map();
  for (const [pair, buckets] of after) {
    const earlier = before.get(pair);
    out.set(pair, new Map([...buckets].map(([le, n]) => [le, n - (earlier?.get(le) ?? 0)])));
  }
  return out;
}

/** Prometheus' histogram_quantile in ms: linear within the bucket; past the last bound, the bound. */
function histogramQuantile(q: number, buckets: Map<number, number>): number {
  const sorted = [...buckets].sort((a, b) => a[0] - b[0]);
  const total = sorted.at(-1)?.[1] ?? 0;
  if (total === 0) return NaN;
  const rank = q * total;
  let [lower, below] = [0, 0];
  for (const [le, count] of sorted) {
    if (count >= rank) {
      if (le === Infinity) return lower * 1000;
      return (lower + ((le - lower) * (rank - below)) / Math.max(1, count - below)) * 1000;
    }
    [lower, below] = [le, count];
  }
  return lower * 1000;
}

/** The buckets of every pair `pick` accepts, summed. */
function sumHistograms(h: Histograms, pick: (verb: string, resource: string) => boolean) {
  const out = new Map<number, number>();
  for (const [pair, buckets] of h) {
    const [verb = '', resource = ''] = pair.split(' ');
    if (!pick(verb, resource)) continue;
    for (const [le, n] of buckets) out.set(le, (out.get(le) ?? 0) + n);
  }
  return out;
}

/** Requests the apiserver answered with `code` so far (apiserver_request_total). */
async function answeredWith(url: string, code: string): Promise<number> {
  const text = await metricsText(url);
  let n = 0;
  for (const line of text.split('\n'))
    if (line.startsWith('apiserver_request_total{') && line.includes(`code="${code}"`))
      n += Number(line.split(' ').at(-1));
  return n;
}

const MUTATING = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

type Times = (number | null)[];
const at = (times: Times, i: number): number => times[i] ?? NaN;
const finite = (values: number[]) => values.filter((v) => Number.isFinite(v));

/** One backend's run: set up, load, measure, tear down. Figures named `<backend>_<figure>`. */
async function runBackend(
  ctx: BenchContext,
  backend: Backend,
  s: Size,
): Promise<{ metrics: Record<string, number>; ratios: Record<string, number> }> {
  const children: Child[] = [];
  const etcd = backend === 'etcd3' ? await EtcdCluster.start() : undefined;
  const dir = tempDir('listwatch-bench-density-');
  const say = (m: string) => ctx.progress(`  ${backend}: ${m}`);
  try {
    const fork = childForker(children);
    const { server, url } = await startDensityApiserver(fork, backend, {
      ...(etcd ? { etcdServers: etcd.endpoints } : {}),
      dataDir: dir.path,
    });
    const [nodes, informers, load, probe] = await Promise.all([
      fork('nodes'),
      fork('informers'),
      fork('load'),
      fork('probe'),
    ]);
    const setup = await nodes.request<{ names: string[]; seconds: number }>('start', {
      url,
      count: s.nodes,
    });
    say(`${s.nodes} nodes registered and watching in ${setup.seconds.toFixed(1)} s`);
    await informers.request('start', { url, count: INFORMERS });
    await load.request('start', { url, nodeNames: setup.names });
    // Baseline: nodes, leases, namespaces and watches, no pods yet.
    const memBefore = await server.request<{ rss: number; heap: number }>('memory');
    const cpuBefore = await server.request<number>('cpu');
    const histBefore = await requestHistograms(url);
    const throttledBefore = await answeredWith(url, '429');
    const etcdBefore = etcd ? await etcdCalls(etcd.endpoints[0]!) : {};
    await nodes.request('arm');
    await server.request('loopDelay');
    const t0 = wallMs();
    await probe.request('start', {
      url,
      nodeNames: setup.names,
      listEveryMs: s.listEveryMs,
      getsPerSecond: s.getsPerSecond,
      created: [Date.now(), s.rate],
    });
    let peakRss = memBefore.rss;
    let sampling = true;
    const sampler = (async () => {
      let n = 0;
      while (sampling) {
        const m = await server.request<{ rss: number }>('memory', { gc: false });
        peakRss = Math.max(peakRss, m.rss);
        if (++n % 10 === 0)
          say(
            `${await informers.request<number>('progress')} / ${s.pods} pods Running in every ` +
              `informer, server RSS ${m.rss.toFixed(0)} MB`,
          );
        await sleep(1_000);
      }
    })();
    const created = await load.request<{ failed: number; seconds: number }>('create', {
      from: 0,
      to: s.pods,
      rate: s.rate,
    });
    say(`${s.pods} pods created in ${created.seconds.toFixed(1)} s (${created.failed} failed)`);
    // A pod whose create failed never runs: waiting for it would only spend the timeout.
    const { counts } = await informers.request<{ counts: number[] }>('waitRunning', {
      count: s.pods - created.failed,
      timeoutMs: 120_000,
    });
    const seconds = (wallMs() - t0) / 1000;
    const probed = await probe.request<{
      lists: { ms: number; bytes: number }[];
      gets: number[];
      podBytes: number[];
      errors: number;
      notFound: number;
    }>('stop');
    sampling = false;
    await sampler;
    const loop = await server.request<{ p50: number; p99: number; max: number }>('loopDelay', {
      read: true,
    });
    const cpu = ((await server.request<number>('cpu')) - cpuBefore) / 1e6;
    const etcdAfter = etcd ? await etcdCalls(etcd.endpoints[0]!) : {};
    const hist = histogramDelta(histBefore, await requestHistograms(url));
    const throttled = (await answeredWith(url, '429')) - throttledBefore;
    const memAfter = await server.request<{ rss: number; heap: number }>('memory');
    // BENCH_HEAP_SNAPSHOT=1: the apiserver's heap as measured, for bench/heap-summary.ts.
    if (process.env['BENCH_HEAP_SNAPSHOT']) {
      const path = `${REPO_ROOT}bench/results/profiles/density-${backend}-${s.pods}.heapsnapshot`;
      mkdirSync(dirname(path), { recursive: true });
      say(`heap snapshot: ${await server.request<string>('heapSnapshot', { path })}`);
    }
    const fleet = await nodes.request<{
      latencies: Record<string, number[]>;
      errors: number;
      failures: Record<string, number>;
      delivered: Times;
      statusAcked: Times;
    }>('collect');
    const loadLog = await load.request<{
      latencies: Record<string, number[]>;
      errors: number;
      failures: Record<string, number>;
      createSent: Times;
      bindAcked: Times;
    }>('collect');
    const { running } = await informers.request<{ running: Times[] }>('collect');

    // Mutating calls: the SLO holds per (resource, verb) pair; the worst pair's p99 is the figure.
    const pairs: Record<string, number[]> = { ...fleet.latencies };
    for (const [k, v] of Object.entries(loadLog.latencies)) (pairs[k] ??= []).push(...v);
    const mutating = Object.values(pairs).flat();
    let worstPair = '';
    let worstP99 = 0;
    for (const [pair, values] of Object.entries(pairs)) {
      const p = percentile(values, 99);
      if (p > worstP99) [worstPair, worstP99] = [pair, p];
    }
    // Pod startup: creation sent → Running seen by every informer (the last of them).
    const startup: number[] = [];
    const createToSchedule: number[] = [];
    const scheduleToWatch: number[] = [];
    const runToWatch: number[] = [];
    for (let i = 0; i < s.pods; i++) {
      const sent = at(loadLog.createSent, i);
      const seen = running.map((r) => at(r, i));
      const last = Math.max(...seen);
      if (Number.isFinite(sent) && Number.isFinite(last)) startup.push(last - sent);
      const bound = at(loadLog.bindAcked, i);
      createToSchedule.push(bound - sent);
      // Watch latency: a write answered → its event delivered (0 when the event came first).
      scheduleToWatch.push(Math.max(0, at(fleet.delivered, i) - bound));
      const acked = at(fleet.statusAcked, i);
      for (const t of seen) runToWatch.push(Math.max(0, t - acked));
    }
    const watchLatency = finite([...scheduleToWatch, ...runToWatch]);
    const listMs = probed.lists.map((l) => l.ms);
    const podJson =
      probed.podBytes.reduce((a, b) => a + b, 0) / Math.max(1, probed.podBytes.length);
    const bytesPerPod = ((memAfter.heap - memBefore.heap) * 2 ** 20) / s.pods;
    const rssPerPod = ((memAfter.rss - memBefore.rss) * 2 ** 20) / s.pods;
    const notRunning = s.pods - Math.min(...counts);

    // Server-side, as clusterloader2 reads them: the apiserver's histograms (its handler's start
    // → last byte sent), worst (resource, verb) pair.
    const serverMutating = sumHistograms(hist, (verb) => MUTATING.has(verb));
    let serverWorstPair = '';
    let serverWorstP99 = NaN;
    for (const [pair, buckets] of hist) {
      if (!MUTATING.has(pair.split(' ')[0]!)) continue;
      const p = histogramQuantile(0.99, buckets);
      if (!(p <= serverWorstP99)) [serverWorstPair, serverWorstP99] = [pair, p];
    }
    const serverGet = histogramQuantile(
      0.99,
      sumHistograms(hist, (verb) => verb === 'get'),
    );
    const serverList = histogramQuantile(
      0.99,
      sumHistograms(hist, (verb, resource) => verb === 'list' && resource === 'pods'),
    );

    const m: Record<string, number> = {
      nodes: s.nodes,
      pods: s.pods,
      pods_per_s: s.rate,
      informers: INFORMERS,
      seconds,
      pods_not_running: notRunning,
      failed_calls: fleet.errors + loadLog.errors + probed.errors,
      // Answered 429 by the max-in-flight limits (the clients retry them).
      server_throttled_429: throttled,
      server_mutating_p50_ms: histogramQuantile(0.5, serverMutating),
      server_mutating_p99_ms: histogramQuantile(0.99, serverMutating),
      server_mutating_worst_pair_p99_ms: serverWorstP99,
      server_get_p99_ms: serverGet,
      server_list_pods_p99_ms: serverList,
      mutating_calls: mutating.length,
      mutating_p50_ms: percentile(mutating, 50),
      mutating_p99_ms: percentile(mutating, 99),
      // Not Math.max(...mutating): a million arguments overflow the stack (5,000 nodes).
      mutating_max_ms: mutating.reduce((a, b) => Math.max(a, b), 0),
      mutating_worst_pair_p99_ms: worstP99,
      get_p99_ms: percentile(probed.gets, 99),
      get_not_found: probed.notFound,
      list_cluster_p99_ms: percentile(listMs, 99),
      list_cluster_count: listMs.length,
      list_cluster_mb: Math.max(0, ...probed.lists.map((l) => l.bytes)) / 2 ** 20,
      pod_startup_p50_ms: percentile(startup, 50),
      pod_startup_p99_ms: percentile(startup, 99),
      create_to_schedule_p99_ms: percentile(finite(createToSchedule), 99),
      schedule_to_watch_p99_ms: percentile(finite(scheduleToWatch), 99),
      run_to_watch_p99_ms: percentile(finite(runToWatch), 99),
      watch_latency_p99_ms: percentile(watchLatency, 99),
      // perf_hooks monitorEventLoopDelay over the run: what every request waits before it is read.
      apiserver_event_loop_delay_p50_ms: loop.p50,
      apiserver_event_loop_delay_p99_ms: loop.p99,
      apiserver_event_loop_delay_max_ms: loop.max,
      server_rss_mb: memAfter.rss,
      server_peak_rss_mb: peakRss,
      server_heap_mb: memAfter.heap,
      server_cpu_s: cpu,
      heap_bytes_per_pod: bytesPerPod,
      rss_bytes_per_pod: rssPerPod,
      pod_json_bytes: podJson,
    };
    for (const [pair, values] of Object.entries(pairs))
      m[`p99_ms_${pair.toLowerCase().replace(/[ /]/g, '_')}`] = percentile(values, 99);
    if (etcd)
      for (const method of ['Range', 'Txn'])
        m[`etcd_${method.toLowerCase()}_calls`] =
          (etcdAfter[method] ?? 0) - (etcdBefore[method] ?? 0);
    say(
      `mutating p99 server-side ${serverWorstP99.toFixed(0)} ms (worst pair ${serverWorstPair}), ` +
        `client-side ${m['mutating_p99_ms']!.toFixed(0)} ms (worst pair ${worstPair} ` +
        `${worstP99.toFixed(0)} ms), pod startup p99 ${m['pod_startup_p99_ms']!.toFixed(0)} ms, ` +
        `LIST p99 ${m['list_cluster_p99_ms']!.toFixed(0)} ms, event loop delay p99 ` +
        `${loop.p99.toFixed(0)} ms / max ${loop.max.toFixed(0)} ms, ${notRunning} pods not Running`,
    );
    const failures = Object.entries({ ...fleet.failures, ...loadLog.failures });
    if (failures.length) say(`failed calls: ${failures.map(([k, n]) => `${k} ×${n}`).join(', ')}`);
    const r: Record<string, number> = {
      // Client-side (call → last byte): a request waiting unread while the event loop is busy
      // (a large LIST being encoded) counts, as it does for the client; the server's histograms
      // start at its handler and miss that wait, so they are beside these, not instead.
      slo_mutating_p99: worstP99 / SLO.mutating,
      slo_read_resource_p99: m['get_p99_ms']! / SLO.readResource,
      slo_read_cluster_p99: m['list_cluster_p99_ms']! / SLO.readCluster,
      server_mutating_p99_vs_slo: serverWorstP99 / SLO.mutating,
      server_read_resource_p99_vs_slo: serverGet / SLO.readResource,
      server_read_cluster_p99_vs_slo: serverList / SLO.readCluster,
      slo_pod_startup_p99: m['pod_startup_p99_ms']! / SLO.podStartup,
      heap_per_pod_vs_json: bytesPerPod / podJson,
    };
    const prefixed = (o: Record<string, number>, suffix = false) =>
      Object.fromEntries(
        Object.entries(o).map(([k, v]) => [suffix ? `${k}_${backend}` : `${backend}_${k}`, v]),
      );
    return { metrics: prefixed(m), ratios: prefixed(r, true) };
  } finally {
    for (const c of children) {
      await c.request('stop').catch(() => undefined);
      await c.close();
    }
    await etcd?.destroy();
    dir.remove();
  }
}

export const scenario: Scenario = {
  name: 'density',
  title:
    'clusterloader2-style density against the SLOs: simulated nodes, informers, pods to Running',
  processes: (ctx) => {
    const s = size(ctx);
    return (
      `the apiserver (child) + ${s.nodes} simulated nodes (one child) + ${INFORMERS} pod ` +
      `informers (one child) + creator and binder (one child) + read probe (one child)` +
      `${backends(ctx).includes('etcd3') ? ' + etcd (etcd3 run)' : ''}; one backend at a time`
    );
  },
  rounds: () => 1,
  open(ctx) {
    const s = size(ctx);
    return Promise.resolve({
      async round() {
        const metrics: Record<string, number> = {};
        const ratios: Record<string, number> = {};
        for (const backend of backends(ctx)) {
          ctx.progress(
            `${backend}: ${s.nodes} nodes, ${s.pods} pods at ${s.rate}/s, LIST every ` +
              `${s.listEveryMs / 1000} s`,
          );
          const r = await runBackend(ctx, backend, s);
          Object.assign(metrics, r.metrics);
          Object.assign(ratios, r.ratios);
        }
        return { metrics, ratios };
      },
      close: () => Promise.resolve(),
    });
  },
};
