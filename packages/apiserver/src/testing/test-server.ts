import type { KubeObject, Status, WatchEvent } from '@listwatch/api';
import { decodeWatchStream } from '@listwatch/codec';
import { Etcd3Storage, MemoryStorage, SqliteStorage, type Storage } from '@listwatch/storage';
import { EtcdCluster, tempDir } from '@listwatch/testing';
import { startApiServer, type ApiServerOptions, type RunningApiServer } from '../server.js';

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

/** A storage backend the HTTP tests run against, and how to set it up and tear it down. */
export interface Backend {
  name: 'memory' | 'sqlite' | 'etcd3';
  make(): Promise<Storage>;
  setup(): Promise<void>;
  teardown(): Promise<void>;
}

/** memory, sqlite (temp file) and a real etcd started by the harness. */
export function backends(): Backend[] {
  let etcd: EtcdCluster | undefined;
  let dir: { path: string; remove(): void } | undefined;
  let n = 0;
  return [
    {
      name: 'memory',
      make: () => Promise.resolve(new MemoryStorage({ compactionInterval: 0 })),
      setup: async () => {},
      teardown: async () => {},
    },
    {
      name: 'sqlite',
      make: () =>
        Promise.resolve(
          new SqliteStorage({ file: `${dir!.path}/s${n++}.db`, compactionInterval: 0 }),
        ),
      setup: () => {
        dir = tempDir('listwatch-api-');
        return Promise.resolve();
      },
      teardown: () => Promise.resolve(dir?.remove()),
    },
    {
      name: 'etcd3',
      make: () =>
        Promise.resolve(
          new Etcd3Storage({
            endpoints: etcd!.endpoints,
            prefix: `/api-test-${n++}`,
            compactionInterval: 0,
          }),
        ),
      setup: async () => {
        etcd = await EtcdCluster.start();
      },
      teardown: async () => {
        await etcd?.destroy();
      },
    },
  ];
}

/** A real apiserver on a random loopback port, quiet logs. */
export async function testServer(
  storage: Storage,
  options: ApiServerOptions = {},
): Promise<RunningApiServer> {
  return startApiServer({ storage, port: 0, logger: quiet, ...options });
}

/** A thin JSON client over fetch, returning status and parsed body. */
export function client(url: string) {
  const call = async <T = KubeObject>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; body: T; headers: Headers }> => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { 'Content-Type': 'application/json', ...headers },
      ...(body !== undefined
        ? { body: typeof body === 'string' ? body : JSON.stringify(body) }
        : {}),
    });
    const text = await res.text();
    return {
      status: res.status,
      body: (text ? JSON.parse(text) : undefined) as T,
      headers: res.headers,
    };
  };
  return {
    call,
    get: <T = KubeObject>(path: string, headers?: Record<string, string>) =>
      call<T>('GET', path, undefined, headers),
    post: <T = KubeObject>(path: string, body: unknown) => call<T>('POST', path, body),
    put: <T = KubeObject>(path: string, body: unknown) => call<T>('PUT', path, body),
    patch: <T = KubeObject>(path: string, body: unknown, type = 'application/merge-patch+json') =>
      call<T>('PATCH', path, body, { 'Content-Type': type }),
    delete: <T = KubeObject>(path: string, body?: unknown) => call<T>('DELETE', path, body),
    status: (r: { body: unknown }) => r.body as Status,
  };
}

/** Opens a watch and collects events until `count` arrive, the stream ends, or `ms` pass. */
export async function watchEvents(
  url: string,
  path: string,
  count: number,
  ms = 5000,
): Promise<WatchEvent[]> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), ms);
  const events: WatchEvent[] = [];
  try {
    const res = await fetch(`${url}${path}`, { signal: abort.signal });
    if (!res.body) return events;
    for await (const event of decodeWatchStream(res.body as AsyncIterable<Uint8Array>, 'json')) {
      events.push(event);
      if (events.length >= count) break;
    }
  } catch (err) {
    if (!abort.signal.aborted) throw err;
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
  return events;
}

/** A watch that keeps reading in the background; `take(n)` waits for the next n events. */
export function openWatch(url: string, path: string) {
  const abort = new AbortController();
  const events: WatchEvent[] = [];
  let ended = false;
  const done = (async () => {
    try {
      const res = await fetch(`${url}${path}`, { signal: abort.signal });
      if (!res.body) return;
      for await (const event of decodeWatchStream(res.body as AsyncIterable<Uint8Array>, 'json'))
        events.push(event);
    } catch (err) {
      if (!abort.signal.aborted) throw err;
    } finally {
      ended = true;
    }
  })();
  let read = 0;
  return {
    events,
    get ended() {
      return ended;
    },
    async take(n: number, ms = 5000): Promise<WatchEvent[]> {
      const deadline = Date.now() + ms;
      while (events.length < read + n && !ended && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 10));
      const out = events.slice(read, read + n);
      read += out.length;
      return out;
    },
    async close() {
      abort.abort();
      await done;
    },
  };
}

export const cm = (
  name: string,
  extra: Partial<KubeObject> & { labels?: Record<string, string> } = {},
): KubeObject => {
  const { labels, ...rest } = extra;
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, ...(labels ? { labels } : {}) },
    data: { k: 'v' },
    ...rest,
  };
};
