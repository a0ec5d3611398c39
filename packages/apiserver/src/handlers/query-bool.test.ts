import type { KubeObject, WatchEvent } from '@listwatch/api';
import { MemoryStorage } from '@listwatch/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApiServer } from '../server.js';
import { client, cm, testServer } from '../testing/test-server.js';

// Query booleans as kube-apiserver decodes them (runtime.Convert_Slice_string_To_bool): only
// absent, `0` and `false` in any case are false, so a bare `?watch` watches.

const path = '/api/v1/namespaces/default/configmaps';

/** The status, content type and first `n` lines of a GET, then the connection is dropped. */
async function firstLines(
  url: string,
  n = 1,
): Promise<{ status: number; contentType: string | null; lines: string[] }> {
  const abort = new AbortController();
  try {
    const res = await fetch(url, { signal: abort.signal });
    const decoder = new TextDecoder();
    let text = '';
    for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
      text += decoder.decode(chunk, { stream: true });
      if (text.split('\n').length > n) break;
    }
    return {
      status: res.status,
      contentType: res.headers.get('content-type'),
      lines: text.split('\n').slice(0, n),
    };
  } finally {
    abort.abort();
  }
}

describe('query booleans over HTTP', () => {
  let server: RunningApiServer;
  beforeAll(async () => {
    server = await testServer(new MemoryStorage({ compactionInterval: 0 }));
    const created = await client(server.url).post(path, cm('one'));
    expect(created.status).toBe(201);
  });
  afterAll(() => server.close());

  it.each(['watch', 'watch=', 'watch=yes', 'watch=1', 'watch=True', 'watch=f'])(
    'GET configmaps?%s streams a watch whose first event is the ADDED object',
    async (query) => {
      const { status, contentType, lines } = await firstLines(`${server.url}${path}?${query}`);
      expect({ status, contentType, line: lines[0]!.slice(0, 100) }).toMatchObject({
        status: 200,
        contentType: expect.stringContaining('application/json') as unknown,
      });
      const event = JSON.parse(lines[0]!) as WatchEvent;
      expect(event.type).toBe('ADDED');
      expect((event.object as KubeObject).metadata.name).toBe('one');
    },
  );

  it('bare ?watch&sendInitialEvents&allowWatchBookmarks is a watch-list ending its initial events with a bookmark', async () => {
    const { status, lines } = await firstLines(
      `${server.url}${path}?watch&sendInitialEvents&allowWatchBookmarks&resourceVersionMatch=NotOlderThan`,
      2,
    );
    expect(status).toBe(200);
    const [added, bookmark] = lines.map((line) => JSON.parse(line) as WatchEvent);
    expect(added!.type).toBe('ADDED');
    expect(bookmark!.type).toBe('BOOKMARK');
    expect((bookmark!.object as KubeObject).metadata.annotations).toMatchObject({
      'k8s.io/initial-events-end': 'true',
    });
  });

  it.each(['watch=false', 'watch=FALSE', 'watch=fAlSe', 'watch=0', 'limit=10'])(
    'GET configmaps?%s lists',
    async (query) => {
      const res = await client(server.url).get<{ kind: string; items: KubeObject[] }>(
        `${path}?${query}`,
      );
      expect(res.status).toBe(200);
      expect(res.body.kind).toBe('ConfigMapList');
      expect(res.body.items.map((o) => o.metadata.name)).toEqual(['one']);
    },
  );
});
