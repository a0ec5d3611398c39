import { MemoryStorage } from '@listwatch/storage';
import { once } from 'node:events';
import { connect, constants } from 'node:http2';
import { connect as netConnect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApiServer } from '../server.js';
import { client, testServer } from '../testing/test-server.js';

// The HTTP/2 floods that took servers down: rapid reset (CVE-2023-44487), CONTINUATION flood
// (CVE-2024-27983 and VU#421644), PING and SETTINGS floods (CVE-2019-9512, -9515). Each comes
// from one connection; the server ends that connection (or shrugs it off) and keeps serving
// everyone else.

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');

/** One HTTP/2 frame: 9-byte header (length, type, flags, stream id) and payload. */
function frame(type: number, flags: number, stream: number, payload: Buffer = Buffer.alloc(0)) {
  const header = Buffer.alloc(9);
  header.writeUIntBE(payload.length, 0, 3);
  header.writeUInt8(type, 3);
  header.writeUInt8(flags, 4);
  header.writeUInt32BE(stream, 5);
  return Buffer.concat([header, payload]);
}
const SETTINGS = 0x4;
const HEADERS = 0x1;
const CONTINUATION = 0x9;
const PING = 0x6;

/** An h2c connection that writes raw frames and never reads: what a flooder does. */
async function rawH2(
  url: string,
): Promise<{ socket: Socket; closedByServer: () => Promise<unknown> }> {
  const { hostname, port } = new URL(url);
  const socket = netConnect({ host: hostname, port: Number(port) });
  await once(socket, 'connect');
  socket.on('error', () => undefined);
  socket.pause();
  const closed = new Promise((resolve) => socket.once('close', resolve));
  socket.write(Buffer.concat([PREFACE, frame(SETTINGS, 0, 0)]));
  return {
    socket,
    // A paused socket notices neither the server's FIN nor its RST: once the flood is over, what
    // is left is read and dropped, so that the server's close (never the client's) is seen.
    closedByServer: () => {
      socket.resume();
      return closed;
    },
  };
}

/**
 * Writes up to `count` frames made by `make` for at most 3 s, stopping once the server has closed
 * the connection (or stopped reading it).
 */
async function flood(socket: Socket, count: number, make: (i: number) => Buffer): Promise<number> {
  let sent = 0;
  const until = Date.now() + 3_000;
  for (; sent < count && !socket.destroyed && socket.writable && Date.now() < until; sent++) {
    if (!socket.write(make(sent))) {
      const drained = await Promise.race([
        new Promise((resolve) => socket.once('drain', () => resolve(true))),
        new Promise((resolve) => socket.once('close', () => resolve(false))),
        new Promise((r) => setTimeout(() => r(false), 2_000)),
      ]);
      if (!drained) break;
    }
  }
  return sent;
}

describe('HTTP/2 floods from one connection', { timeout: 60_000 }, () => {
  let server: RunningApiServer;
  beforeAll(async () => {
    // Short header timeouts, so a connection that stops being read is closed soon (32 s by default).
    server = await testServer(new MemoryStorage({ compactionInterval: 0 }), {
      requestHeaderTimeout: 400,
      requestTimeout: 800,
    });
  });
  afterAll(() => server.close());

  /** Others are served: an HTTP/1.1 request and an HTTP/2 request on a fresh connection. */
  async function othersServed(): Promise<void> {
    expect((await client(server.url).call('GET', '/api/v1/namespaces')).status).toBe(200);
    const session = connect(server.url);
    try {
      const stream = session.request({ ':path': '/api/v1/namespaces' });
      const [headers] = (await once(stream, 'response')) as [Record<string, unknown>];
      stream.resume();
      expect(headers[':status']).toBe(200);
    } finally {
      session.close();
    }
  }

  it('rapid reset: thousands of streams opened and cancelled at once leave the server serving', async () => {
    const session = connect(server.url);
    session.on('error', () => undefined);
    let opened = 0;
    for (let i = 0; i < 3_000 && !session.destroyed && !session.closed; i++) {
      try {
        const stream = session.request({ ':path': '/api/v1/namespaces' });
        stream.on('error', () => undefined);
        stream.close(constants.NGHTTP2_CANCEL);
        opened++;
      } catch {
        break;
      }
      if (i % 1_000 === 0) await othersServed();
    }
    expect(opened).toBeGreaterThan(0);
    await othersServed();
    session.destroy();
  });

  it('CONTINUATION flood: headers that never end close that connection, not the server', async () => {
    const { socket, closedByServer } = await rawH2(server.url);
    // HEADERS for stream 1 without END_HEADERS, then CONTINUATION frames that never end it.
    socket.write(frame(HEADERS, 0x1, 1, Buffer.from([0x82])), () => undefined);
    const filler = Buffer.alloc(16_000, 0x41);
    await flood(socket, 20_000, () => frame(CONTINUATION, 0, 1, filler));
    await othersServed();
    // The server ends the connection (a client never closes it here).
    await closedByServer();
  });

  it('PING flood from a client that never reads the answers: not read further, then closed', async () => {
    const { socket, closedByServer } = await rawH2(server.url);
    const payload = Buffer.alloc(8);
    await flood(socket, 200_000, (i) => {
      payload.writeUInt32BE(i, 4);
      return frame(PING, 0, 0, payload);
    });
    await othersServed();
    await closedByServer();
  });

  it('SETTINGS flood from a client that never reads the acknowledgements: not read further, then closed', async () => {
    const { socket, closedByServer } = await rawH2(server.url);
    await flood(socket, 200_000, () => frame(SETTINGS, 0, 0));
    await othersServed();
    await closedByServer();
  });
});
