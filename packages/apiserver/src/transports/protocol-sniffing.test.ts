import { MemoryStorage } from '@listwatch/storage';
import fc from 'fast-check';
import { once } from 'node:events';
import { connect as h2Connect, constants } from 'node:http2';
import { connect as netConnect, type Socket } from 'node:net';
import { Duplex } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApiServer } from '../server.js';
import { testServer } from '../testing/test-server.js';
import { H2_PREFACE } from './protocol-sniffer.js';

// The plain port tells h2c (prior knowledge) from HTTP/1.1 by the first bytes, however the
// client's writes are cut into TCP segments: it waits until the bytes differ from the HTTP/2
// preface or the whole preface is in, within the header timeout.

/** A gap between segments so each reaches the server on its own (no delay on the socket). */
const gap = () => new Promise((resolve) => setTimeout(resolve, 5));

/** Splits `bytes` at the given offsets (sorted, deduplicated, inside the buffer). */
function segments(bytes: Buffer, cuts: readonly number[]): Buffer[] {
  const at = [...new Set(cuts.filter((c) => c > 0 && c < bytes.length))].sort((a, b) => a - b);
  return [0, ...at].map((from, i) => bytes.subarray(from, at[i] ?? bytes.length));
}

/** Writes each part on its own; stops once the server has closed (it may answer early). */
async function writeSegments(socket: Socket, parts: readonly Buffer[]): Promise<void> {
  for (const part of parts) {
    if (socket.destroyed || socket.readableEnded) return;
    await new Promise<void>((resolve) => socket.write(part, () => resolve()));
    await gap();
  }
}

/**
 * A connection to `port` for a real HTTP/2 client whose first bytes (the preface) go out in
 * segments cut at `cuts`; everything after as the client writes it.
 */
function prefaceSplitting(port: number, cuts: readonly number[]): Duplex {
  const socket = netConnect(port, '127.0.0.1').setNoDelay(true);
  const connected = once(socket, 'connect');
  let sent = 0;
  const duplex = new Duplex({
    read: () => void socket.resume(),
    write(chunk: Buffer, _encoding, done) {
      void (async () => {
        await connected;
        if (sent >= H2_PREFACE.length) return void socket.write(chunk, done);
        const inPreface = Math.min(chunk.length, H2_PREFACE.length - sent);
        const parts = segments(
          chunk.subarray(0, inPreface),
          cuts.map((c) => c - sent),
        );
        sent += chunk.length;
        await writeSegments(socket, parts);
        if (socket.destroyed) return void done();
        if (inPreface < chunk.length) socket.write(chunk.subarray(inPreface), done);
        else done();
      })().catch(done);
    },
    final: (done) => void socket.end(done),
    destroy: (err, done) => {
      socket.destroy();
      done(err);
    },
  });
  socket.on('data', (data: Buffer) => {
    if (!duplex.push(data)) socket.pause();
  });
  socket.on('end', () => duplex.push(null));
  socket.on('error', (err) => duplex.destroy(err));
  return duplex;
}

/** Where to cut a message of `length` bytes: anywhere, as a client's writes may be cut. */
const cutsWithin = (length: number) =>
  fc.uniqueArray(fc.integer({ min: 1, max: length - 1 }), { maxLength: 8 });

describe('the plain port tells h2c from HTTP/1.1', () => {
  let server: RunningApiServer;
  beforeAll(async () => {
    server = await testServer(new MemoryStorage({ compactionInterval: 0 }), {
      requestHeaderTimeout: 400,
    });
  });
  afterAll(() => server.close());

  it('an HTTP/2 preface split into segments anywhere is served as HTTP/2', async () => {
    await fc.assert(
      fc.asyncProperty(cutsWithin(H2_PREFACE.length), async (cuts) => {
        const session = h2Connect(server.url, {
          createConnection: () => prefaceSplitting(server.port, cuts),
        });
        session.on('error', () => undefined);
        try {
          const stream = session.request({ [constants.HTTP2_HEADER_PATH]: '/version' });
          const [headers] = (await once(stream, 'response')) as [Record<string, unknown>];
          let body = '';
          for await (const chunk of stream) body += String(chunk);
          expect(headers[':status']).toBe(200);
          expect(JSON.parse(body)).toHaveProperty('gitVersion');
        } finally {
          session.destroy();
        }
      }),
      { numRuns: 25 },
    );
  });

  it('an HTTP/1.1 request split into segments anywhere is served as HTTP/1.1', async () => {
    const body = JSON.stringify({ metadata: { generateName: 'split-' } });
    const requests = [
      ['GET /version HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n', /^HTTP\/1\.1 200 /],
      // Starting as the preface does ("P", "PRI * HTT"): the sniffer must read on to tell.
      [
        `POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
        /^HTTP\/1\.1 201 /,
      ],
      ['PRI * HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n', /^HTTP\/1\.1 4\d\d /],
    ] as const;
    const request = fc
      .constantFrom(...requests)
      .chain(([text, answer]) =>
        fc.tuple(fc.constant(Buffer.from(text)), fc.constant(answer), cutsWithin(text.length)),
      );
    await fc.assert(
      fc.asyncProperty(request, async ([bytes, answer, cuts]) => {
        const socket = netConnect(server.port, '127.0.0.1').setNoDelay(true);
        socket.on('error', () => undefined);
        let received = '';
        socket.setEncoding('latin1').on('data', (d: string) => (received += d));
        const closed = once(socket, 'close');
        await once(socket, 'connect');
        await writeSegments(socket, segments(bytes, cuts));
        await closed;
        expect(received).toMatch(answer);
      }),
      { numRuns: 25 },
    );
  });

  it('a connection that stops part way through the preface is closed by the header timeout', async () => {
    const socket = netConnect(server.port, '127.0.0.1');
    socket.on('error', () => undefined);
    let received = '';
    socket.setEncoding('latin1').on('data', (d: string) => (received += d));
    const closed = once(socket, 'close');
    await once(socket, 'connect');
    socket.write(H2_PREFACE.subarray(0, 20));
    await closed;
    expect(received).toBe('');
  });
});
