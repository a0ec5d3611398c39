// What the watch scenarios share: a watch server and its watchers, each in a child process
// (procs/watch-server.ts, procs/watchers.ts), and one burst measured end to end.
import { forkChild, type Child } from '../../../bench/proc.js';
import { percentile } from '../../../bench/lib.js';

export const SERVER = new URL('./procs/watch-server.ts', import.meta.url);
export const WATCHERS = new URL('./procs/watchers.ts', import.meta.url);

export interface WatchRig {
  server: Child;
  watchers: Child;
  url: string;
  path: string;
  close(): Promise<void>;
}

export interface OpenOptions {
  mode: 'apiserver' | 'per-watcher' | 'ceiling';
  count: number;
  /** How many watchers read the send times (latency); the rest only count. */
  sample?: number;
  transport?: 'http1' | 'h2' | 'ws';
  /** HTTP/2: connections the streams are spread over. */
  connections?: number;
  /** Appended to the watch path, e.g. '&timeoutSeconds=600'. */
  query?: string;
  /** Watch CBOR (application/cbor-seq) rather than JSON. */
  cbor?: boolean;
  /** HTTP/2: whether the client raises its receive windows (default true). */
  h2Window?: boolean;
  /** Passed to the server's start: { etcd: endpoints } and/or { apiOptions }. */
  serverOptions?: Record<string, unknown>;
  serverEnv?: Record<string, string>;
}

export async function openRig(options: OpenOptions): Promise<WatchRig> {
  const server = await forkChild(SERVER, {
    execArgv: ['--expose-gc'],
    ...(options.serverEnv ? { env: options.serverEnv } : {}),
  });
  const { url, path } = await server.request<{ url: string; path: string }>('start', {
    mode: options.mode,
    ...options.serverOptions,
  });
  const watchers = await forkChild(WATCHERS);
  const fullPath = `${path}${options.query ?? ''}`;
  await watchers.request('open', {
    url,
    path: fullPath,
    count: options.count,
    sample: options.sample ?? 10,
    transport: options.transport ?? 'http1',
    connections: options.connections ?? 1,
    cbor: options.cbor ?? false,
    h2Window: options.h2Window ?? true,
  });
  return {
    server,
    watchers,
    url,
    path: fullPath,
    async close() {
      await watchers.request('close').catch(() => undefined);
      await watchers.close();
      await server.request('stop').catch(() => undefined);
      await server.close();
    },
  };
}

export interface BurstFigures {
  /** Events delivered per second, all watchers together, first write to last receive. */
  eventsPerSecond: number;
  p50: number;
  p99: number;
  seconds: number;
  mbPerSecond: number;
}

/** Writes `events` Pods in the server and waits until every watcher has them all. */
export async function burst(rig: WatchRig, events: number, rate?: number): Promise<BurstFigures> {
  await rig.watchers.request('arm', { events });
  const { startedAt } = await rig.server.request<{ startedAt: number }>('burst', {
    count: events,
    ...(rate ? { rate } : {}),
  });
  const got = await rig.watchers.request<{
    lastAt: number;
    latencies: number[];
    bytes: number;
    delivered: number;
  }>('wait', { timeoutMs: 120_000 });
  const seconds = (got.lastAt - startedAt) / 1000;
  return {
    eventsPerSecond: got.delivered / seconds,
    p50: percentile(got.latencies, 50),
    p99: percentile(got.latencies, 99),
    seconds,
    mbPerSecond: got.bytes / 1e6 / seconds,
  };
}
