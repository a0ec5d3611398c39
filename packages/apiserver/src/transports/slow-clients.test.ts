import type { WatchEvent } from '@listwatch/api';
import { decodeWatchStream } from '@listwatch/codec';
import { MemoryStorage } from '@listwatch/storage';
import { once } from 'node:events';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect, constants, type ClientHttp2Session } from 'node:http2';
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selfSignedCert } from '../e2e/e2e.test-helper.js';
import type { ApiServerOptions, RunningApiServer } from '../server.js';
import { client, cm, testServer } from '../testing/test-server.js';

// Hostile connections (slow headers, trickled bodies, silence) are closed by the header and
// request timeouts on every transport and never hold the capacity that real requests need;
// established watches are never cut by those timeouts.

const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
/** Short timeouts so the test sees them fire; the defaults are 32 s and 1 min. */
const TIMEOUTS: ApiServerOptions = { requestHeaderTimeout: 400, requestTimeout: 800 };

const nameOf = (e: WatchEvent): string | undefined =>
  (e.object.metadata as { name?: string } | undefined)?.name;

interface Raw {
  socket: Socket;
  /** Everything the server sent. */
  received: () => string;
  closed: Promise<void>;
}

function raw(socket: Socket, first: string): Raw {
  let received = '';
  socket.setEncoding('latin1').on('data', (d: string) => (received += d));
  socket.on('error', () => undefined);
  if (first) socket.write(first);
  return {
    socket,
    received: () => received,
    closed: once(socket, 'close').then(() => undefined),
  };
}

function plain(server: RunningApiServer, first: string): Promise<Raw> {
  const socket = netConnect(server.port, '127.0.0.1');
  return once(socket, 'connect').then(() => raw(socket, first));
}

const slowPost = (contentLength = 100) =>
  `POST ${CONFIGMAPS} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${contentLength}\r\n\r\n{`;

async function watchEvents(server: RunningApiServer, path: string): Promise<WatchEvent[]> {
  const events: WatchEvent[] = [];
  const res = await new Promise<IncomingMessage>((resolve, reject) =>
    httpRequest(`${server.url}${path}`, resolve).on('error', reject).end(),
  );
  void (async () => {
    try {
      for await (const e of decodeWatchStream(res as AsyncIterable<Uint8Array>, 'json'))
        events.push(e);
    } catch {
      // ended by the test
    }
  })();
  return events;
}

describe('HTTP/1.1 (plain port)', () => {
  let server: RunningApiServer;
  beforeAll(async () => {
    server = await testServer(new MemoryStorage({ compactionInterval: 0 }), TIMEOUTS);
  });
  afterAll(() => server.close());

  it('200 connections trickling a POST body hold no write slot: real writes succeed meanwhile, and each slow one is answered 408 and closed', async () => {
    const slow = await Promise.all(Array.from({ length: 200 }, () => plain(server, slowPost())));
    // Keep trickling one byte at a time, as a slow-loris client does.
    const trickle = setInterval(() => {
      for (const s of slow) if (!s.socket.destroyed) s.socket.write(' ');
    }, 100);
    try {
      const writes = await Promise.all(
        ['real-1', 'real-2', 'real-3'].map((name) => client(server.url).post(CONFIGMAPS, cm(name))),
      );
      expect(writes.map((w) => w.status)).toEqual([201, 201, 201]);
      // The writes were served while every slow connection was still open.
      expect(slow.some((s) => s.socket.destroyed)).toBe(false);
      await Promise.all(slow.map((s) => s.closed));
    } finally {
      clearInterval(trickle);
    }
    for (const s of slow) {
      expect(s.received()).toMatch(/^HTTP\/1\.1 408 /);
      expect(s.received()).toMatch(/"kind":"Status".*"code":408/s);
    }
    const list = await client(server.url).get<{ items: unknown[] }>(CONFIGMAPS);
    expect(list.body.items).toHaveLength(3);
  });

  it('connections that never finish their headers, or send nothing, are closed by the header timeout', async () => {
    const partial = await Promise.all(
      Array.from({ length: 50 }, () => plain(server, 'GET /api HTTP/1.1\r\nHost: 127.0.0.1\r\n')),
    );
    const silent = await Promise.all(Array.from({ length: 50 }, () => plain(server, '')));
    await Promise.all([...partial, ...silent].map((s) => s.closed));
    expect(partial.every((s) => s.received() === '' || /^HTTP\/1\.1 408/.test(s.received()))).toBe(
      true,
    );
  });

  it('a watch outlives the header and request timeouts and keeps receiving events', async () => {
    const events = await watchEvents(server, `${CONFIGMAPS}?watch=1&resourceVersion=0`);
    await new Promise((resolve) => setTimeout(resolve, 2 * 1200));
    await client(server.url).post(CONFIGMAPS, cm('after-timeouts'));
    await expect.poll(() => events.map(nameOf)).toContain('after-timeouts');
  });
});

describe('a client that goes away mid-upload', () => {
  it("is counted as code 499, the client's doing: no 500 in apiserver_request_total and no error logged", async () => {
    const errors: unknown[] = [];
    const logger = {
      debug() {},
      info() {},
      warn() {},
      error: (...args: unknown[]) => errors.push(args),
    };
    const server = await testServer(new MemoryStorage({ compactionInterval: 0 }), { logger });
    try {
      for (let i = 0; i < 5; i++) {
        const gone = await plain(server, slowPost());
        await new Promise((resolve) => setTimeout(resolve, 50));
        gone.socket.destroy();
        await gone.closed;
      }
      const metrics = async () => (await fetch(`${server.url}/metrics`)).text();
      await expect.poll(metrics).toMatch(/apiserver_request_total\{[^}]*code="499"[^}]*\} 5/);
      expect(await metrics()).not.toMatch(/apiserver_request_total\{[^}]*code="5\d\d"/);
      expect(errors).toEqual([]);
    } finally {
      await server.close();
    }
  });
});

function h2Session(server: RunningApiServer): ClientHttp2Session {
  const session = connect(server.url);
  session.on('error', () => undefined);
  return session;
}

describe('HTTP/2 (h2c on the plain port)', () => {
  let server: RunningApiServer;
  beforeAll(async () => {
    server = await testServer(new MemoryStorage({ compactionInterval: 0 }), TIMEOUTS);
  });
  afterAll(() => server.close());

  it('a stream trickling its body is answered 408 while other streams write, and a session with no stream is closed', async () => {
    const session = h2Session(server);
    const slow = session.request({
      [constants.HTTP2_HEADER_METHOD]: 'POST',
      [constants.HTTP2_HEADER_PATH]: CONFIGMAPS,
      'content-type': 'application/json',
    });
    slow.on('error', () => undefined);
    slow.write('{');
    const [headers] = (await once(slow, 'response')) as [Record<string, unknown>];
    expect(headers[':status']).toBe(408);
    const ok = await client(server.url).post(CONFIGMAPS, cm('h2-real'));
    expect(ok.status).toBe(201);
    session.close();

    const idle = h2Session(server);
    await once(idle, 'close');
  });

  it('a watch stream on a session outlives the idle-session timeout', async () => {
    const session = h2Session(server);
    const stream = session.request({
      [constants.HTTP2_HEADER_PATH]: `${CONFIGMAPS}?watch=1&resourceVersion=0`,
    });
    const events: WatchEvent[] = [];
    void (async () => {
      try {
        for await (const e of decodeWatchStream(stream as AsyncIterable<Uint8Array>, 'json'))
          events.push(e);
      } catch {
        // ended by the test
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 2 * 1200));
    await client(server.url).post(CONFIGMAPS, cm('h2-after'));
    await expect.poll(() => events.map(nameOf)).toContain('h2-after');
    expect(session.closed).toBe(false);
    session.close();
  });
});

describe('TLS (HTTP/1.1 and HTTP/2 by ALPN)', () => {
  let server: RunningApiServer;
  beforeAll(async () => {
    const { cert, key } = await selfSignedCert();
    server = await testServer(new MemoryStorage({ compactionInterval: 0 }), {
      ...TIMEOUTS,
      tlsCert: cert,
      tlsKey: key,
    });
  });
  afterAll(() => server.close());

  it('an HTTP/1.1 connection that never finishes its headers, or trickles a body, is closed', async () => {
    const open = async (first: string) => {
      const socket = tlsConnect({
        port: server.port,
        host: '127.0.0.1',
        rejectUnauthorized: false,
        ALPNProtocols: ['http/1.1'],
      });
      await once(socket, 'secureConnect');
      return raw(socket, first);
    };
    const headers = await open('GET /api HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    const body = await open(slowPost());
    await Promise.all([headers.closed, body.closed]);
    expect(body.received()).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('the TLS handshake is under the header timeout: a connection that sends nothing, or trickles its ClientHello, is closed (tlsHandshakeTimeout, server.go)', async () => {
    const silent = await plain(server, '');
    // A handshake record header announcing 512 bytes, then a byte at a time.
    const trickling = await plain(server, '');
    trickling.socket.write(Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00]));
    const trickle = setInterval(() => {
      if (!trickling.socket.destroyed) trickling.socket.write(Buffer.from([0x01]));
    }, 50);
    try {
      await Promise.all([silent.closed, trickling.closed]);
    } finally {
      clearInterval(trickle);
    }
    expect(silent.received()).toBe('');
  });

  it('a connection past its handshake is not bound by that deadline: a watch over TLS keeps receiving events', async () => {
    const res = await new Promise<IncomingMessage>((resolve, reject) =>
      httpsRequest(
        `${server.url}${CONFIGMAPS}?watch=1&resourceVersion=0`,
        { rejectUnauthorized: false },
        resolve,
      )
        .on('error', reject)
        .end(),
    );
    const events: WatchEvent[] = [];
    void (async () => {
      try {
        for await (const e of decodeWatchStream(res as AsyncIterable<Uint8Array>, 'json'))
          events.push(e);
      } catch {
        // ended by the test
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 2 * 1200));
    const created = await new Promise<number>((resolve, reject) =>
      httpsRequest(
        `${server.url}${CONFIGMAPS}`,
        {
          method: 'POST',
          rejectUnauthorized: false,
          headers: { 'Content-Type': 'application/json' },
        },
        (r) => resolve(r.resume().statusCode ?? 0),
      )
        .on('error', reject)
        .end(JSON.stringify(cm('tls-after'))),
    );
    expect(created).toBe(201);
    await expect.poll(() => events.map(nameOf)).toContain('tls-after');
    res.destroy();
  });

  it("plain HTTP sent to the TLS port is answered as Go's server answers it, then closed", async () => {
    // Go's net/http: `HTTP/1.0 400 Bad Request` and a line kubectl and curl print.
    const request = await plain(server, 'GET /version HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await request.closed;
    expect(request.received()).toBe(
      'HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n',
    );
    // Split after its first byte, the answer is the same.
    const split = await plain(server, 'P');
    split.socket.write('OST /api HTTP/1.1\r\n');
    await split.closed;
    expect(split.received()).toMatch(/^HTTP\/1\.0 400 Bad Request\r\n/);
  });
});
