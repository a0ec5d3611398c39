// Watch fan-out over real HTTP/1.1 on loopback: our apiserver (watch cache, events encoded once,
// one write per burst) vs a naive watch server that serializes every event for every watcher,
// fed by the same storage watch — side by side in one run. `pnpm --filter @listwatch/apiserver bench`.
import type { KubeObject } from '@listwatch/api';
import { samplePod } from '@listwatch/codec';
import { MemoryStorage, type Storage } from '@listwatch/storage';
import { silentLogger } from '@listwatch/testing';
import { Agent, createServer, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startApiServer } from '../src/index.js';

const WATCHERS = Number(process.env['WATCHERS'] ?? 1000);
const EVENTS = Number(process.env['EVENTS'] ?? 100);

/** The naive server: one storage watch, JSON.stringify per event per watcher. */
async function naiveServer(storage: Storage): Promise<{ url: string; close(): Promise<void> }> {
  const clients = new Set<ServerResponse>();
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.flushHeaders();
    clients.add(res);
    res.on('close', () => clients.delete(res));
  });
  const watch = storage.watch(`${storage.prefix}/pods/`, {
    fromRevision: await storage.currentRevision(),
  });
  void (async () => {
    for await (const event of watch) {
      if (event.type === 'PROGRESS') continue;
      for (const res of clients)
        res.write(`${JSON.stringify({ type: event.type, object: event.object })}\n`);
    }
  })();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      watch.close();
      for (const res of clients) res.end();
      await new Promise((r) => server.close(r));
    },
  };
}

/** Opens `WATCHERS` watches; resolves once each has received `EVENTS` newline-framed events. */
function watchers(url: string, path: string): { ready: Promise<void>; done: Promise<number> } {
  const agent = new Agent({ keepAlive: true, maxSockets: WATCHERS + 10 });
  let bytes = 0;
  const opened: Promise<void>[] = [];
  const finished: Promise<void>[] = [];
  for (let i = 0; i < WATCHERS; i++) {
    let resolveOpen!: () => void;
    opened.push(new Promise((r) => (resolveOpen = r)));
    finished.push(
      new Promise((resolve, reject) => {
        const req = request(`${url}${path}`, { agent }, (res) => {
          resolveOpen();
          let lines = 0;
          res.on('data', (chunk: Buffer) => {
            bytes += chunk.length;
            for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines++;
            if (lines >= EVENTS) {
              res.destroy();
              resolve();
            }
          });
        });
        req.on('error', reject);
        req.end();
      }),
    );
  }
  return {
    ready: Promise.all(opened).then(() => undefined),
    done: Promise.all(finished).then(() => {
      agent.destroy();
      return bytes;
    }),
  };
}

async function measure(name: string, url: string, path: string, storage: Storage) {
  const w = watchers(url, path);
  await w.ready;
  await new Promise((r) => setTimeout(r, 200));
  const pods: KubeObject[] = Array.from({ length: EVENTS }, (_, i) => samplePod(i));
  const start = performance.now();
  for (const pod of pods) {
    delete pod.metadata.resourceVersion;
    pod.metadata.name = `${name.replace(/\W/g, '')}-${pod.metadata.name ?? ''}`;
    await storage.create(
      `${storage.prefix}/pods/${pod.metadata.namespace ?? 'default'}/${pod.metadata.name}`,
      pod,
    );
  }
  const bytes = await w.done;
  const seconds = (performance.now() - start) / 1000;
  return { name, seconds, deliveries: (WATCHERS * EVENTS) / seconds, mbps: bytes / 1e6 / seconds };
}

const results = [];
{
  const storage = new MemoryStorage({ compactionInterval: 0 });
  const naive = await naiveServer(storage);
  process.stderr.write(`naive server: ${WATCHERS} watchers × ${EVENTS} pods…\n`);
  results.push(await measure('naive (encode per watcher)', naive.url, '/', storage));
  await naive.close();
  await storage.close();
}
{
  const storage = new MemoryStorage({ compactionInterval: 0 });
  const server = await startApiServer({ storage, port: 0, logger: silentLogger });
  process.stderr.write(`listwatch apiserver: ${WATCHERS} watchers × ${EVENTS} pods…\n`);
  results.push(
    await measure(
      'listwatch (watch cache, encode once)',
      server.url,
      '/api/v1/pods?watch=1',
      storage,
    ),
  );
  await server.close();
}
console.log(
  `\nHTTP/1.1 watch fan-out on loopback: ${WATCHERS} watchers, ${EVENTS} Pod events of ~4.9 KB`,
);
console.table(
  results.map((r) => ({
    server: r.name,
    'deliveries/s': Math.round(r.deliveries).toLocaleString('en-US'),
    'MB/s': r.mbps.toFixed(0),
    seconds: r.seconds.toFixed(2),
  })),
);
console.log(`listwatch vs naive: ${(results[1]!.deliveries / results[0]!.deliveries).toFixed(1)}×`);
process.exit(0);
