import { MemoryStorage } from '@listwatch/storage';
import { tempDir } from '@listwatch/testing';
import Koa from 'koa';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect, type ClientHttp2Session, type ClientHttp2Stream } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEvent } from '../audit/audit-event.js';
import { jsonLogger } from '../logger.js';
import { atEnd, streamResponse } from '../middleware/request-end.js';
import type { RunningApiServer } from '../server.js';
import { testServer } from '../testing/test-server.js';

// A watch's middleware chain returns once it streams; what kube-apiserver's filters do when the
// watch handler returns (httplog.go's log line, audit.go's ResponseComplete, the long-running
// request gauge, the watch's place under --max-watches-per-user) happens when the stream ends:
// exactly once, whether the client leaves, the watch times out or the server shuts down.

interface Fixture {
  server: RunningApiServer;
  lines: string[];
  auditPath: string;
  dir: { path: string; remove(): void };
}

async function start(): Promise<Fixture> {
  const dir = tempDir('listwatch-watch-end-');
  const lines: string[] = [];
  const auditPath = join(dir.path, 'audit.log');
  const server = await testServer(new MemoryStorage({ compactionInterval: 0 }), {
    logger: jsonLogger('debug', (line) => lines.push(line)),
    auditLogPath: auditPath,
  });
  return { server, lines, auditPath, dir };
}

function auditEvents(f: Fixture, auditID: string): AuditEvent[] {
  return readFileSync(f.auditPath, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as AuditEvent)
    .filter((e) => e.auditID === auditID);
}

/** The access-log lines of requests to `path`. */
function accessLines(f: Fixture, path: string): Record<string, unknown>[] {
  return f.lines
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((r) => r['msg'] === 'request' && r['path'] === path);
}

async function metrics(f: Fixture): Promise<string> {
  return (await fetch(`${f.server.url}/metrics`)).text();
}

function metric(text: string, name: string, labels: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

/** An HTTP/1.1 watch (fetch), open once its headers are in. */
async function h1Watch(f: Fixture, path: string, auditID: string, query = 'watch=1') {
  const abort = new AbortController();
  const res = await fetch(`${f.server.url}${path}?${query}`, {
    headers: { 'audit-id': auditID },
    signal: abort.signal,
  });
  expect(res.status).toBe(200);
  const body = res.body!.getReader();
  const drained = (async () => {
    try {
      while (!(await body.read()).done);
    } catch {
      // aborted by the test
    }
  })();
  return {
    close: () => abort.abort(),
    ended: drained,
  };
}

/** An HTTP/2 watch (prior-knowledge h2c), open once its headers are in. */
async function h2Watch(session: ClientHttp2Session, path: string, auditID: string) {
  const stream: ClientHttp2Stream = session.request({
    ':path': `${path}?watch=1`,
    'audit-id': auditID,
  });
  const [headers] = (await once(stream, 'response')) as [Record<string, unknown>];
  expect(headers[':status']).toBe(200);
  stream.resume();
  stream.on('error', () => undefined);
  return {
    close: () => stream.close(),
    ended: once(stream, 'close').then(() => undefined),
  };
}

let barriers = 0;
/**
 * A request sent after a watch has ended, answered and logged: whatever the end of the watch
 * still had to run (a second end would come from the same close) has run by then.
 */
async function requestAfter(f: Fixture): Promise<void> {
  const path = `/api/v1/namespaces/barrier-${barriers++}/configmaps`;
  expect((await fetch(`${f.server.url}${path}`)).status).toBe(200);
  await expect.poll(() => accessLines(f, path).length).toBe(1);
}

describe("a watch's end of request", () => {
  let f: Fixture;
  let session: ClientHttp2Session;
  beforeAll(async () => {
    f = await start();
    session = connect(f.server.url);
    session.on('error', () => undefined);
  });
  afterAll(async () => {
    session.close();
    await f.server.close();
    f.dir.remove();
  });

  for (const transport of ['http1', 'http2'] as const) {
    it(`over ${transport}: its access-log line, request metrics and audit ResponseComplete are written once when the client disconnects, none while it streams`, async () => {
      const path = `/api/v1/namespaces/end-${transport}/configmaps`;
      const auditID = `watch-end-${transport}`;
      const gauge = `resource="configmaps",transport="${transport}"`;
      const done = `verb="watch",resource="configmaps",code="200"`;
      const before = metric(await metrics(f), 'apiserver_request_total', done);
      const watch =
        transport === 'http1'
          ? await h1Watch(f, path, auditID)
          : await h2Watch(session, path, auditID);
      await expect
        .poll(() => auditEvents(f, auditID).map((e) => e.stage))
        .toEqual(['RequestReceived', 'ResponseStarted']);
      const open = await metrics(f);
      expect(metric(open, 'apiserver_longrunning_requests', gauge)).toBe(1);
      expect(metric(open, 'apiserver_request_total', done)).toBe(before);
      expect(accessLines(f, path)).toEqual([]);
      expect(f.server.context.watchLimiter.count('system:anonymous')).toBe(1);

      watch.close();
      await watch.ended;
      await expect.poll(() => accessLines(f, path).length).toBe(1);
      await requestAfter(f);
      expect(accessLines(f, path)).toMatchObject([{ verb: 'watch', code: 200 }]);
      expect(auditEvents(f, auditID).map((e) => e.stage)).toEqual([
        'RequestReceived',
        'ResponseStarted',
        'ResponseComplete',
      ]);
      const closed = await metrics(f);
      expect(metric(closed, 'apiserver_longrunning_requests', gauge)).toBe(0);
      expect(metric(closed, 'apiserver_request_total', done)).toBe(before + 1);
      expect(f.server.context.watchLimiter.count('system:anonymous')).toBe(0);
    });
  }

  it('a watch that times out (timeoutSeconds) ends its request once: one log line, one ResponseComplete with its 200', async () => {
    const path = '/api/v1/namespaces/end-timeout/configmaps';
    const auditID = 'watch-end-timeout';
    const watch = await h1Watch(f, path, auditID, 'watch=1&timeoutSeconds=1');
    await watch.ended;
    await expect.poll(() => auditEvents(f, auditID).length).toBe(3);
    await requestAfter(f);
    expect(accessLines(f, path)).toMatchObject([{ verb: 'watch', code: 200 }]);
    expect(auditEvents(f, auditID).at(-1)).toMatchObject({
      stage: 'ResponseComplete',
      responseStatus: { code: 200 },
    });
    expect(f.server.context.watchLimiter.count('system:anonymous')).toBe(0);
  });

  it('a watch refused before it streams (bad resourceVersion) is answered and logged as any request', async () => {
    const path = '/api/v1/namespaces/end-refused/configmaps';
    const res = await fetch(`${f.server.url}${path}?watch=1&resourceVersion=x`, {
      headers: { 'audit-id': 'watch-end-refused' },
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ kind: 'Status', code: 400 });
    await expect
      .poll(() => auditEvents(f, 'watch-end-refused').at(-1)?.stage)
      .toBe('ResponseComplete');
    expect(auditEvents(f, 'watch-end-refused').at(-1)).toMatchObject({
      responseStatus: { code: 400 },
    });
    expect(accessLines(f, path)).toMatchObject([{ verb: 'watch', code: 400 }]);
    expect(f.server.context.watchLimiter.count('system:anonymous')).toBe(0);
  });
});

describe('at shutdown', () => {
  it('every open watch, HTTP/1.1 and HTTP/2, ends its request once: one log line and one ResponseComplete each', async () => {
    const f = await start();
    const session = connect(f.server.url);
    session.on('error', () => undefined);
    try {
      const h1 = await h1Watch(f, '/api/v1/namespaces/down-h1/configmaps', 'down-h1');
      const h2 = await h2Watch(session, '/api/v1/namespaces/down-h2/configmaps', 'down-h2');
      await expect.poll(() => auditEvents(f, 'down-h2').length).toBe(2);
      await f.server.close();
      await Promise.all([h1.ended, h2.ended]);
      for (const transport of ['h1', 'h2']) {
        expect(accessLines(f, `/api/v1/namespaces/down-${transport}/configmaps`)).toMatchObject([
          { verb: 'watch', code: 200 },
        ]);
        expect(auditEvents(f, `down-${transport}`).map((e) => e.stage)).toEqual([
          'RequestReceived',
          'ResponseStarted',
          'ResponseComplete',
        ]);
      }
      expect(f.server.context.watchLimiter.total).toBe(0);
    } finally {
      session.destroy();
      f.dir.remove();
    }
  });
});

describe('request-end.ts with koa', () => {
  /** A koa app of three middlewares recording their ends around a handler. */
  async function app(handler: Koa.Middleware, throwing?: string) {
    const ends: string[] = [];
    const koa = new Koa();
    koa.silent = true;
    for (const name of ['outer', 'middle', 'inner'])
      koa.use((ctx, next) =>
        atEnd(ctx, next, (failure) => {
          ends.push(`${name}:${failure ? String(failure.error) : 'ok'}`);
          if (name === throwing) throw new Error(`from ${name}`);
          if (failure) throw failure.error;
        }),
      );
    koa.use(handler);
    const callback = koa.callback();
    const server: Server = createServer((req, res) => void callback(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return { ends, url, close: () => new Promise((resolve) => server.close(resolve)) };
  }

  it('the ends of a streamed response run once, innermost first, after the stream ends — also when it ends before the chain has unwound', async () => {
    let finish!: () => void;
    const slow = await app((ctx) => {
      ctx.res.writeHead(200).flushHeaders();
      streamResponse(
        ctx,
        new Promise<void>((resolve) => (finish = resolve)).then(() => void ctx.res.end('done')),
      );
    });
    const quick = await app((ctx) => {
      ctx.res.writeHead(200).end('at once');
      streamResponse(ctx, Promise.resolve());
    });
    try {
      const res = await fetch(slow.url);
      expect(res.status).toBe(200);
      // The quick request, answered and its ends run while the slow one streams, is the slow
      // chain long unwound; then the slow one ending is the quick one long over.
      expect(await (await fetch(quick.url)).text()).toBe('at once');
      await expect.poll(() => quick.ends).toEqual(['inner:ok', 'middle:ok', 'outer:ok']);
      expect(slow.ends).toEqual([]);
      finish();
      expect(await res.text()).toBe('done');
      await expect.poll(() => slow.ends).toEqual(['inner:ok', 'middle:ok', 'outer:ok']);
      expect(quick.ends).toHaveLength(3);
    } finally {
      await Promise.all([slow.close(), quick.close()]);
    }
  });

  it("a stream's failure, or an end's own, goes outward as unwinding would carry it", async () => {
    const failing = await app((ctx) => {
      ctx.res.writeHead(200).end();
      streamResponse(ctx, Promise.reject(new Error('stream broke')));
    }, 'middle');
    try {
      await (await fetch(failing.url)).text();
      await expect
        .poll(() => failing.ends)
        .toEqual([
          'inner:Error: stream broke',
          'middle:Error: stream broke',
          'outer:Error: from middle',
        ]);
    } finally {
      await failing.close();
    }
  });
});
