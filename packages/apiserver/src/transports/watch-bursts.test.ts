import type { KubeObject, WatchEvent } from '@listwatch/api';
import { decodeWatchStream } from '@listwatch/codec';
import { MemoryStorage } from '@listwatch/storage';
import { once } from 'node:events';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { connect as netConnect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApiServer } from '../server.js';
import { client, cm, testServer } from '../testing/test-server.js';

// A burst of writes reaches HTTP/1.1 watchers gathered into few writes, each event encoded once
// for all of them (cacher's cachingObject); with watchEncodeOnce off (the fanout benchmark's
// baseline) every watcher encodes its own copy, and sees exactly the same stream.

const WATCH = '/api/v1/namespaces/default/configmaps?watch=true';

function watch(url: string): Promise<IncomingMessage> {
  return new Promise<IncomingMessage>((resolve, reject) =>
    httpRequest(`${url}${WATCH}`, resolve).on('error', reject).end(),
  );
}

async function events(res: IncomingMessage, count: number): Promise<WatchEvent[]> {
  const out: WatchEvent[] = [];
  for await (const e of decodeWatchStream(res as AsyncIterable<Uint8Array>, 'json')) {
    out.push(e);
    if (out.length >= count) break;
  }
  res.destroy();
  return out;
}

for (const watchEncodeOnce of [true, false]) {
  describe(`a burst of writes to 3 watchers, watchEncodeOnce ${watchEncodeOnce}`, () => {
    let server: RunningApiServer;
    beforeAll(async () => {
      server = await testServer(new MemoryStorage({ compactionInterval: 0 }), {
        watchEncodeOnce,
      });
    });
    afterAll(() => server.close());

    it('every watcher receives every event of the burst, in order, byte for byte the same', async () => {
      const watchers = await Promise.all([1, 2, 3].map(() => watch(server.url)));
      const api = client(server.url);
      const names = Array.from({ length: 30 }, (_, i) => `burst-${i}`);
      const received = Promise.all(watchers.map((res) => events(res, names.length)));
      await Promise.all(
        names.map((name) => api.post('/api/v1/namespaces/default/configmaps', cm(name))),
      );
      const streams = await received;
      const created = (
        await api.get<{ items: { metadata: { name: string } }[] }>(
          '/api/v1/namespaces/default/configmaps',
        )
      ).body.items;
      expect(created).toHaveLength(names.length);
      for (const stream of streams) {
        expect(stream.map((e) => e.type)).toEqual(names.map(() => 'ADDED'));
        expect(stream).toEqual(streams[0]);
        expect(new Set(stream.map((e) => (e.object as KubeObject).metadata.name))).toEqual(
          new Set(names),
        );
      }
    });
  });
}

/** The raw response of a watch over a plain socket: status line and headers, then the body bytes. */
async function rawWatch(
  server: RunningApiServer,
  path: string,
  version: '1.0' | '1.1',
): Promise<{ head: string; body: Buffer; closed: Promise<void> }> {
  const socket = netConnect(server.port, '127.0.0.1');
  await once(socket, 'connect');
  let received = Buffer.alloc(0);
  socket.on('data', (d: Buffer) => (received = Buffer.concat([received, d])));
  const closed = once(socket, 'close').then(() => undefined);
  socket.write(`GET ${path} HTTP/${version}\r\nHost: 127.0.0.1\r\n\r\n`);
  await expect.poll(() => received.includes('\r\n\r\n')).toBe(true);
  const at = received.indexOf('\r\n\r\n');
  const result = {
    head: received.subarray(0, at).toString('latin1'),
    get body() {
      return received.subarray(at + 4);
    },
    closed,
  };
  return result;
}

/** Splits an HTTP/1.1 chunked body into its chunks (the last, empty one included). */
function chunksOf(body: Buffer): Buffer[] {
  const chunks: Buffer[] = [];
  for (let at = 0; at < body.length;) {
    const eol = body.indexOf('\r\n', at);
    const size = parseInt(body.toString('latin1', at, eol), 16);
    chunks.push(body.subarray(eol + 2, eol + 2 + size));
    expect(body.toString('latin1', eol + 2 + size, eol + 4 + size)).toBe('\r\n');
    at = eol + 4 + size;
    if (size === 0) break;
  }
  return chunks;
}

describe('the bytes of a watch burst on the wire', () => {
  let server: RunningApiServer;
  let storage: MemoryStorage;
  beforeAll(async () => {
    storage = new MemoryStorage({ compactionInterval: 0 });
    server = await testServer(storage);
  });
  afterAll(() => server.close());

  const watchIn = (ns: string) => `/api/v1/namespaces/${ns}/configmaps?watch=true&timeoutSeconds=1`;
  const writeBurst = async (ns: string, names: string[]) => {
    // Stored together, as one etcd watch response would bring them: one turn of the event loop.
    await Promise.all(
      names.map((name) =>
        storage.create(`${storage.prefix}/configmaps/${ns}/${name}`, {
          ...cm(name),
          metadata: { name, namespace: ns },
        }),
      ),
    );
  };
  const lines = (bytes: Buffer) =>
    bytes
      .toString('utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as WatchEvent);

  it('HTTP/1.1: a burst stored in one turn arrives as one chunk with every event in order, and the watch ends with the last chunk', async () => {
    const w = await rawWatch(server, watchIn('chunked'), '1.1');
    expect(w.head).toMatch(/^HTTP\/1\.1 200/);
    expect(w.head).toMatch(/transfer-encoding: chunked/i);
    const names = Array.from({ length: 10 }, (_, i) => `one-chunk-${i}`);
    await writeBurst('chunked', names);
    // The watch times out after 1 s: the terminating chunk is written and the connection stays.
    await expect.poll(() => w.body.includes('\r\n0\r\n\r\n'), { timeout: 5000 }).toBe(true);
    const chunks = chunksOf(w.body);
    expect(chunks.at(-1)).toHaveLength(0);
    const data = chunks.slice(0, -1);
    expect(data).toHaveLength(1);
    const events = lines(data[0]!);
    expect(events.map((e) => (e.object as KubeObject).metadata.name)).toEqual(names);
    expect(events.every((e) => e.type === 'ADDED')).toBe(true);
  });

  it('HTTP/1.0 (no chunked encoding): the same events, raw, and the connection closes at the end', async () => {
    const w = await rawWatch(server, watchIn('http10'), '1.0');
    expect(w.head).toMatch(/^HTTP\/1\.1 200/);
    expect(w.head).not.toMatch(/transfer-encoding/i);
    const names = Array.from({ length: 5 }, (_, i) => `http10-${i}`);
    await writeBurst('http10', names);
    await w.closed;
    expect(lines(w.body).map((e) => (e.object as KubeObject).metadata.name)).toEqual(names);
  });
});
