// Child process: one watch server under test, fed by writes it makes itself on request (so the
// writer is not another process competing for the cores). Modes:
// - `apiserver`: our apiserver (watch cache, each event encoded once, one write per burst);
// - `per-watcher`: our apiserver with `watchEncodeOnce: false`, every event encoded again for
//   every watcher (what a server without kube's cachingObject does) — all else the same;
// - `ceiling`: a minimal node:http server writing pre-encoded bytes, one write per burst per
//   connection — the most any server in Node can deliver.
import { encodeWatchEvent } from '@listwatch/codec';
import { Etcd3Storage, MemoryStorage, type Storage } from '@listwatch/storage';
import { silentLogger } from '@listwatch/testing';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeHeapSnapshot } from 'node:v8';
import { cpuMicros, memoryMB, serveParent, wallMs } from '../../../../bench/proc.js';
import { startApiServer, type RunningApiServer } from '../../src/index.js';
import { podKey, stampedPod } from './pods.js';

type Mode = 'apiserver' | 'per-watcher' | 'ceiling';

let mode: Mode;
let storage: Storage | undefined;
let api: RunningApiServer | undefined;
let plain: Server | undefined;
const clients = new Set<ServerResponse>();
let seq = 0;

async function listen(server: Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function plainServer(): Server {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.flushHeaders();
    clients.add(res);
    res.on('close', () => clients.delete(res));
  });
  server.keepAliveTimeout = 0;
  return server;
}

serveParent({
  async start(args) {
    const opts = args as {
      mode: Mode;
      /** The storage: memory (default), or etcd3 at these endpoints. */
      etcd?: string[];
      apiOptions?: Record<string, unknown>;
    };
    mode = opts.mode;
    if (mode === 'apiserver' || mode === 'per-watcher') {
      storage = opts.etcd
        ? new Etcd3Storage({ endpoints: opts.etcd, compactionInterval: 0 })
        : new MemoryStorage({ compactionInterval: 0 });
      api = await startApiServer({
        storage,
        port: 0,
        logger: silentLogger,
        // Every watcher here is anonymous: no per-user cap (--max-watches-per-user) on 10k of them.
        maxWatchesPerUser: 0,
        ...opts.apiOptions,
        ...(mode === 'per-watcher' ? { watchEncodeOnce: false } : {}),
      });
      return { url: api.url, path: '/api/v1/pods?watch=1' };
    }
    plain = plainServer();
    return { url: await listen(plain), path: '/' };
  },
  /**
   * Writes `count` Pods, as fast as the storage takes them or at `rate` per second; returns when
   * the first was sent.
   */
  async burst(args) {
    const { count, rate } = args as { count: number; rate?: number };
    const startedAt = wallMs();
    if (mode === 'ceiling') {
      const frames: Uint8Array[] = [];
      for (let i = 0; i < count; i++)
        frames.push(encodeWatchEvent({ type: 'ADDED', object: stampedPod(seq++) }, 'json'));
      const burst = Buffer.concat(frames);
      for (const res of clients) res.write(burst);
    } else {
      for (let i = 0; i < count; i++) {
        if (rate) {
          const due = startedAt + (i * 1000) / rate;
          const wait = due - wallMs();
          if (wait > 1) await new Promise((r) => setTimeout(r, wait));
        }
        // Writes arrive from the network: the event loop turns between two of them (a loop of
        // resolved promises alone would starve the sockets the events go out on).
        await new Promise((r) => setImmediate(r));
        const pod = stampedPod(seq++);
        await storage!.create(podKey(storage!.prefix, pod), pod);
      }
    }
    return { startedAt };
  },
  memory: (args) => memoryMB((args as { gc?: boolean }).gc !== false),
  cpu: () => cpuMicros(),
  /** Writes a heap snapshot (after a GC) to `file`: what each idle watch holds. */
  heapSnapshot(args) {
    (globalThis as { gc?: () => void }).gc?.();
    return writeHeapSnapshot((args as { file: string }).file);
  },
  async stop() {
    for (const res of clients) res.destroy();
    clients.clear();
    if (plain) await new Promise((r) => plain!.close(r));
    if (api) await api.close();
    else await storage?.close();
  },
});
