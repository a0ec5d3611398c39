import type { KubeObject, Status, WatchEvent } from '@listwatch/api';
import { decodeWatchStream } from '@listwatch/codec';
import { Etcd3Storage, MemoryStorage, SqliteStorage, type Storage } from '@listwatch/storage';
import { silentLogger, storageBackends, type StorageBackend } from '@listwatch/testing';
import { afterAll, beforeAll, expect } from 'vitest';
import { startApiServer, type ApiServerOptions, type RunningApiServer } from '../server.js';

/** A storage backend the HTTP tests run against, and how to set it up and tear it down. */
export interface Backend extends StorageBackend<Storage> {
  /** A storage on fresh data of its own. */
  make(): Promise<Storage>;
}

/**
 * The storage-backend matrix of @listwatch/testing on the apiserver's storage: memory and sqlite
 * in the unit tier, etcd3 (a real etcd started by the harness) in the etcd tier.
 */
export function backends(): Backend[] {
  let n = 0;
  return storageBackends<Storage>({
    memory: () => new MemoryStorage({ compactionInterval: 0 }),
    sqlite: (file) => new SqliteStorage({ file, compactionInterval: 0 }),
    etcd3: (endpoints, prefix) => new Etcd3Storage({ endpoints, prefix, compactionInterval: 0 }),
  }).map((backend) => ({ ...backend, make: () => Promise.resolve(backend.open(`s${n++}`)) }));
}

/** A real apiserver on a random loopback port, silent logs. */
export async function testServer(
  storage: Storage,
  options: ApiServerOptions = {},
): Promise<RunningApiServer> {
  return startApiServer({ storage, port: 0, logger: silentLogger, ...options });
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

/** The causes of a 422 Invalid Status as [field, reason, message]; any other answer fails. */
export function invalidCauses(res: { status: number; body: unknown }): (string | undefined)[][] {
  const status = res.body as Status;
  expect(res.status, JSON.stringify(status)).toBe(422);
  return (status.details?.causes ?? []).map((c) => [c.field, c.reason, c.message]);
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

/**
 * One apiserver (memory storage) for the tests of a file: started before them, closed after,
 * with a client and fresh namespaces named `<prefix>-<n>`.
 */
export function serverForFile(prefix: string, options: ApiServerOptions = {}) {
  let server: RunningApiServer | undefined;
  let api: ReturnType<typeof client> | undefined;
  let n = 0;
  beforeAll(async () => {
    server = await testServer(new MemoryStorage({ compactionInterval: 0 }), options);
    api = client(server.url);
  });
  afterAll(async () => {
    await server?.close();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the server of the file starts in beforeAll');
    return value;
  };
  return {
    get server(): RunningApiServer {
      return started(server);
    },
    get api(): ReturnType<typeof client> {
      return started(api);
    },
    /** Creates a namespace no other test of the file uses; returns its name. */
    async namespace(): Promise<string> {
      const name = `${prefix}-${n++}`;
      const res = await started(api).post('/api/v1/namespaces', { metadata: { name } });
      if (res.status !== 201) throw new Error(`namespace ${name}: ${res.status}`);
      return name;
    },
  };
}
