import type { KubeObject, WatchEvent } from '@listwatch/api';
import { decodeWatchStream } from '@listwatch/codec';
import { MemoryStorage } from '@listwatch/storage';
import { request as httpRequest, type IncomingMessage } from 'node:http';
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
