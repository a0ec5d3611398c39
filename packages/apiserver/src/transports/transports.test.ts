import type { KubeObject, WatchEvent } from '@listwatch/api';
import { decodeCbor, decodeWatchStream } from '@listwatch/codec';
import { MemoryStorage } from '@listwatch/storage';
import { tempDir } from '@listwatch/testing';
import { execFileSync } from 'node:child_process';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { connect, constants, type ClientHttp2Session } from 'node:http2';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { RunningApiServer } from '../server.js';
import { client, cm, testServer } from '../testing/test-server.js';

// Watch transports of kube-apiserver (k8s.io/apiserver pkg/endpoints/handlers/watch.go): HTTP/1.1
// chunked, HTTP/2 (TLS ALPN and h2c prior knowledge), WebSocket (Origin required; JSON text
// frames, CBOR binary frames).

const WATCH = '/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=0';

async function collect(source: AsyncIterable<Uint8Array>, count: number): Promise<WatchEvent[]> {
  const out: WatchEvent[] = [];
  for await (const e of decodeWatchStream(source, 'json')) {
    out.push(e);
    if (out.length >= count) break;
  }
  return out;
}

function h2Watch(
  session: ClientHttp2Session,
  path: string,
  count: number,
): Promise<{ headers: Record<string, unknown>; events: WatchEvent[] }> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ [constants.HTTP2_HEADER_PATH]: path });
    stream.on('response', (headers) => {
      collect(stream as AsyncIterable<Uint8Array>, count)
        .then((events) => {
          stream.close();
          resolve({ headers, events });
        })
        .catch(reject);
    });
    stream.on('error', reject);
  });
}

describe('watch transports on the plain port', () => {
  let server: RunningApiServer;
  beforeAll(async () => {
    server = await testServer(new MemoryStorage({ compactionInterval: 0 }));
    await client(server.url).post('/api/v1/namespaces/default/configmaps', cm('a'));
  });
  afterAll(() => server.close());

  it('HTTP/1.1: status and headers arrive at once, then chunked newline-delimited events', async () => {
    const res = await new Promise<IncomingMessage>((resolve, reject) =>
      httpRequest(`${server.url}${WATCH}`, resolve).on('error', reject).end(),
    );
    expect(res.statusCode).toBe(200);
    expect(res.headers['transfer-encoding']).toBe('chunked');
    expect(res.headers['content-type']).toBe('application/json');
    const events = await collect(res, 1);
    expect(events.map((e) => (e.object as KubeObject).metadata.name)).toEqual(['a']);
    res.destroy();
  });

  it('h2c with prior knowledge multiplexes many watches over one connection', async () => {
    const session = connect(server.url);
    try {
      const results = await Promise.all(
        Array.from({ length: 20 }, () => h2Watch(session, WATCH, 1)),
      );
      for (const { headers, events } of results) {
        expect(headers[':status']).toBe(200);
        expect((events[0]!.object as KubeObject).metadata.name).toBe('a');
      }
    } finally {
      session.close();
    }
  });

  it('WebSocket: one text message per JSON event, with the trailing newline', async () => {
    const ws = new WebSocket(`${server.url.replace('http', 'ws')}${WATCH}`, {
      origin: 'http://localhost',
    });
    const message = await new Promise<{ data: string; binary: boolean }>((resolve, reject) => {
      ws.once('message', (data, binary) => resolve({ data: (data as Buffer).toString(), binary }));
      ws.once('error', reject);
    });
    ws.close();
    expect(message.binary).toBe(false);
    expect(message.data.endsWith('\n')).toBe(true);
    expect((JSON.parse(message.data) as WatchEvent).type).toBe('ADDED');
  });

  it('WebSocket: CBOR events travel as binary frames without a length prefix', async () => {
    const ws = new WebSocket(`${server.url.replace('http', 'ws')}${WATCH}`, {
      origin: 'http://localhost',
      headers: { Accept: 'application/cbor' },
    });
    const message = await new Promise<{ data: Buffer; binary: boolean }>((resolve, reject) => {
      ws.once('message', (data, binary) => resolve({ data: data as Buffer, binary }));
      ws.once('error', reject);
    });
    ws.close();
    expect(message.binary).toBe(true);
    expect([...message.data.subarray(0, 3)]).toEqual([0xd9, 0xd9, 0xf7]);
    expect((decodeCbor(message.data) as WatchEvent).type).toBe('ADDED');
  });

  it('WebSocket without an Origin header is refused with 403', async () => {
    const ws = new WebSocket(`${server.url.replace('http', 'ws')}${WATCH}`);
    const status = await new Promise<number>((resolve) =>
      ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)),
    );
    expect(status).toBe(403);
  });

  it('WebSocket accepts the bearer-token subprotocol of browsers', async () => {
    const ws = new WebSocket(
      `${server.url.replace('http', 'ws')}${WATCH}`,
      ['base64url.bearer.authorization.k8s.io.dG9rZW4', 'base64.binary.k8s.io'],
      { origin: 'http://localhost' },
    );
    await new Promise((resolve, reject) => {
      ws.once('message', resolve);
      ws.once('error', reject);
    });
    expect(ws.protocol).toBe('base64.binary.k8s.io');
    ws.close();
  });
});

describe('TLS: HTTP/2 by ALPN and HTTP/1.1 on the same port', () => {
  let server: RunningApiServer;
  let dir: { path: string; remove(): void };
  beforeAll(async () => {
    dir = tempDir('listwatch-tls-');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        `${dir.path}/key.pem`,
        '-out',
        `${dir.path}/cert.pem`,
      ],
      { stdio: 'ignore' },
    );
    server = await testServer(new MemoryStorage({ compactionInterval: 0 }), {
      tlsCert: readFileSync(`${dir.path}/cert.pem`, 'utf8'),
      tlsKey: readFileSync(`${dir.path}/key.pem`, 'utf8'),
    });
    const res = await fetchInsecure(
      server.url,
      '/api/v1/namespaces/default/configmaps',
      'POST',
      JSON.stringify(cm('a')),
    );
    expect(res).toBe(201);
  });
  afterAll(async () => {
    await server.close();
    dir.remove();
  });

  async function fetchInsecure(
    url: string,
    path: string,
    method: string,
    body?: string,
  ): Promise<number> {
    const { request } = await import('node:https');
    return new Promise((resolve, reject) => {
      const req = request(
        `${url}${path}`,
        { method, rejectUnauthorized: false, headers: { 'Content-Type': 'application/json' } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  it('negotiates h2 with ALPN and streams a watch', async () => {
    expect(server.url).toMatch(/^https:/);
    const session = connect(server.url, { rejectUnauthorized: false });
    try {
      const { headers, events } = await h2Watch(session, WATCH, 1);
      expect(session.alpnProtocol).toBe('h2');
      expect(headers[':status']).toBe(200);
      expect((events[0]!.object as KubeObject).metadata.name).toBe('a');
    } finally {
      session.close();
    }
  });

  it('still serves HTTP/1.1 clients on the same port', async () => {
    expect(await fetchInsecure(server.url, '/api/v1/namespaces/default/configmaps/a', 'GET')).toBe(
      200,
    );
  });

  it('serves WebSocket watches over TLS', async () => {
    const ws = new WebSocket(`${server.url.replace('https', 'wss')}${WATCH}`, {
      origin: 'https://localhost',
      rejectUnauthorized: false,
    });
    const message = await new Promise<string>((resolve, reject) => {
      ws.once('message', (data) => resolve((data as Buffer).toString()));
      ws.once('error', reject);
    });
    ws.close();
    expect((JSON.parse(message) as WatchEvent).type).toBe('ADDED');
  });
});
