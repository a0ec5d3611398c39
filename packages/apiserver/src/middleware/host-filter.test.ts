import { MemoryStorage } from '@listwatch/storage';
import fc from 'fast-check';
import { once } from 'node:events';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseArgs } from '../cli.js';
import type { RunningApiServer } from '../server.js';
import { testServer } from '../testing/test-server.js';
import { HostFilter } from './host-filter.js';

// Without authentication the apiserver answers only requests a page cannot forge across sites:
// Host an IP literal, localhost or an accepted name (no DNS rebinding), Origin loopback, the
// server itself or an accepted name (no cross-site WebSocket hijacking).

describe('HostFilter', () => {
  const filter = HostFilter.parse(['^api\\.example\\.com$']);

  it('accepts any IP literal, localhost and accepted names as Host, and no other name', () => {
    for (const host of ['127.0.0.1:8080', '10.1.2.3', '[::1]:6443', 'localhost', 'a.localhost:1'])
      expect(filter.hostAllowed(host), host).toBe(true);
    expect(filter.hostAllowed('api.example.com:443')).toBe(true);
    for (const host of ['evil.example', 'api.example.com.evil.example', '', 'a b', 'x@127.0.0.1'])
      expect(filter.hostAllowed(host), host).toBe(false);
    expect(filter.hostAllowed(undefined)).toBe(false);
  });

  it('refuses every domain name that no pattern accepts (property)', () => {
    fc.assert(
      fc.property(fc.domain(), (domain) => {
        fc.pre(!/(^|\.)localhost$/.test(domain) && domain !== 'api.example.com');
        return !filter.hostAllowed(domain) && !filter.hostAllowed(`${domain}:8080`);
      }),
    );
  });

  it('asked again about a Host, answers as the first time, past the hosts it remembers (property)', () => {
    const fresh = HostFilter.parse(['^api\\.example\\.com$']);
    const hosts = fc.oneof(fc.domain(), fc.ipV4(), fc.constantFrom('localhost', 'api.example.com'));
    fc.assert(
      fc.property(fc.array(hosts, { minLength: 1, maxLength: 400 }), (list) => {
        const first = list.map((h) => fresh.hostAllowed(h));
        expect(list.map((h) => fresh.hostAllowed(h))).toEqual(first);
        expect(list.map((h) => filter.hostAllowed(h))).toEqual(first);
      }),
      { numRuns: 20 },
    );
  });

  it('accepts loopback origins, the same origin and accepted names; refuses foreign and null origins', () => {
    expect(filter.originAllowed('http://localhost:3000', '127.0.0.1:8080')).toBe(true);
    expect(filter.originAllowed('http://127.0.0.1:8001', '127.0.0.1:8080')).toBe(true);
    expect(filter.originAllowed('https://[::1]', '127.0.0.1:8080')).toBe(true);
    expect(filter.originAllowed('http://10.0.0.5:8080', '10.0.0.5:8080')).toBe(true);
    expect(filter.originAllowed('https://api.example.com', '10.0.0.5:8080')).toBe(true);
    for (const origin of ['http://evil.example', 'http://10.0.0.6:8080', 'null', 'file://', 'x'])
      expect(filter.originAllowed(origin, '10.0.0.5:8080'), origin).toBe(false);
  });

  it('--accept-hosts takes comma-separated regular expressions and refuses a bad one', () => {
    expect(parseArgs(['--accept-hosts=^a$,^b\\.c$']).options.acceptHosts).toEqual([
      '^a$',
      '^b\\.c$',
    ]);
    expect(() => parseArgs(['--accept-hosts=(']).options).toThrow(/not a regular expression/);
  });
});

/** Sends one raw HTTP/1.1 request head and returns the response head and body. */
async function rawRequest(server: RunningApiServer, head: string[]): Promise<string> {
  const socket = connect(server.port, '127.0.0.1');
  await once(socket, 'connect');
  let out = '';
  socket.setEncoding('latin1').on('data', (d: string) => {
    out += d;
    // A 101 stays open: what the handshake answered is all this needs.
    if (out.startsWith('HTTP/1.1 101')) socket.destroy();
  });
  socket.write(`${head.join('\r\n')}\r\n\r\n`);
  await once(socket, 'close');
  return out;
}

const WATCH = '/api/v1/secrets?watch=1';
const upgrade = (headers: string[]) => [
  `GET ${WATCH} HTTP/1.1`,
  'Connection: Upgrade',
  'Upgrade: websocket',
  ...headers,
];
const GOOD_KEY = 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==';

describe('the apiserver without authentication', () => {
  let server: RunningApiServer;
  let accepting: RunningApiServer;
  beforeAll(async () => {
    server = await testServer(new MemoryStorage({ compactionInterval: 0 }));
    accepting = await testServer(new MemoryStorage({ compactionInterval: 0 }), {
      acceptHosts: ['^cluster\\.internal$'],
    });
  });
  afterAll(async () => {
    await server.close();
    await accepting.close();
  });

  it('answers a Host naming another domain (DNS rebinding) with 403 Forbidden, an accepted one with 200', async () => {
    const evil = await rawRequest(server, [
      'GET /api/v1/secrets HTTP/1.1',
      'Host: evil.example',
      'Connection: close',
    ]);
    expect(evil).toMatch(/^HTTP\/1\.1 403 /);
    expect(evil).toMatch(/"reason":"Forbidden"/);
    const local = await rawRequest(server, [
      'GET /api/v1/secrets HTTP/1.1',
      'Host: localhost',
      'Connection: close',
    ]);
    expect(local).toMatch(/^HTTP\/1\.1 200 /);
    const named = await rawRequest(accepting, [
      'GET /api/v1/secrets HTTP/1.1',
      'Host: cluster.internal:6443',
      'Connection: close',
    ]);
    expect(named).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('answers a request from a foreign Origin with 403, a loopback one with 200', async () => {
    const res = await fetch(`${server.url}/api/v1/secrets`, {
      headers: { origin: 'http://evil.example' },
    });
    expect(res.status).toBe(403);
    const ok = await fetch(`${server.url}/api/v1/secrets`, {
      headers: { origin: 'http://localhost:3000' },
    });
    expect(ok.status).toBe(200);
  });

  it('refuses a WebSocket watch from a foreign page (403) and accepts one from loopback or the same origin (101)', async () => {
    const host = `Host: 127.0.0.1:${server.port}`;
    const version = 'Sec-WebSocket-Version: 13';
    const evil = await rawRequest(
      server,
      upgrade([host, version, GOOD_KEY, 'Origin: http://evil.example']),
    );
    expect(evil).toMatch(/^HTTP\/1\.1 403 /);
    const rebound = await rawRequest(
      server,
      upgrade(['Host: evil.example', version, GOOD_KEY, 'Origin: http://evil.example']),
    );
    expect(rebound).toMatch(/^HTTP\/1\.1 403 /);
    const loopback = await rawRequest(
      server,
      upgrade([host, version, GOOD_KEY, 'Origin: http://localhost:3000']),
    );
    expect(loopback).toMatch(/^HTTP\/1\.1 101 /);
    const same = await rawRequest(
      server,
      upgrade([host, version, GOOD_KEY, `Origin: http://127.0.0.1:${server.port}`]),
    );
    expect(same).toMatch(/^HTTP\/1\.1 101 /);
  });

  it.each([
    ['a version other than 13', ['Sec-WebSocket-Version: 8', GOOD_KEY]],
    ['no version', [GOOD_KEY]],
    ['no key', ['Sec-WebSocket-Version: 13']],
    [
      'a key that is not base64',
      ['Sec-WebSocket-Version: 13', 'Sec-WebSocket-Key: !!not base64!!'],
    ],
  ])('answers a WebSocket handshake with %s with 400 Bad Request', async (_what, headers) => {
    const res = await rawRequest(
      server,
      upgrade([`Host: 127.0.0.1:${server.port}`, 'Origin: http://localhost', ...headers]),
    );
    expect(res).toMatch(/^HTTP\/1\.1 400 /);
    expect(res).toMatch(/"code":400/);
  });
});
