import { MemoryStorage } from '@listwatch/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseArgs, usage } from '../cli.js';
import { startApiServer, type RunningApiServer } from '../server.js';
import { testServer } from '../testing/test-server.js';
import { validateCorsAllowedOrigins } from './cors.js';

// kube-apiserver's --cors-allowed-origins (k8s.io/apiserver pkg/server/filters/cors.go and
// options/server_run_options.go), against a real server and real requests carrying Origin.

const ALLOWED = 'https://dashboard.example.com';
const PODS = '/api/v1/namespaces/default/pods';
const CORS_HEADERS = [
  'access-control-allow-origin',
  'access-control-allow-methods',
  'access-control-allow-headers',
  'access-control-expose-headers',
  'access-control-allow-credentials',
];

function corsHeadersOf(res: Response): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of CORS_HEADERS) {
    const value = res.headers.get(name);
    if (value !== null) out[name] = value;
  }
  return out;
}

describe('--cors-allowed-origins', () => {
  let server: RunningApiServer;
  let plain: RunningApiServer;

  beforeAll(async () => {
    server = await testServer(new MemoryStorage(), {
      corsAllowedOrigins: ['^https://dashboard\\.example\\.com$', '//[a-z]+\\.internal(:|$)'],
    });
    plain = await testServer(new MemoryStorage());
  });
  afterAll(async () => {
    await server?.close();
    await plain?.close();
  });

  it("an allowed Origin's answer carries the Access-Control-* headers of cors.go, the origin echoed", async () => {
    const res = await fetch(`${server.url}${PODS}`, { headers: { origin: ALLOWED } });
    expect(res.status).toBe(200);
    expect(corsHeadersOf(res)).toEqual({
      'access-control-allow-origin': ALLOWED,
      'access-control-allow-methods': 'POST, GET, OPTIONS, PUT, DELETE, PATCH',
      'access-control-allow-headers':
        'Content-Type, Content-Length, Accept-Encoding, X-CSRF-Token, Authorization, X-Requested-With, If-Modified-Since',
      'access-control-expose-headers': 'Date',
      'access-control-allow-credentials': 'true',
    });
    expect(((await res.json()) as { kind: string }).kind).toBe('PodList');
  });

  it('an error answer to an allowed Origin carries them too, so the page can read the Status', async () => {
    const res = await fetch(`${server.url}${PODS}/missing`, {
      headers: { origin: 'http://ops.internal:8080' },
    });
    expect(res.status).toBe(404);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://ops.internal:8080');
    expect(((await res.json()) as { reason: string }).reason).toBe('NotFound');
  });

  it('a preflight OPTIONS from an allowed Origin is answered 204 with the headers and no body, before authentication', async () => {
    const res = await fetch(`${server.url}${PODS}`, {
      method: 'OPTIONS',
      headers: {
        origin: ALLOWED,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });
    expect(res.status).toBe(204);
    expect(corsHeadersOf(res)['access-control-allow-origin']).toBe(ALLOWED);
    expect(await res.text()).toBe('');
  });

  it('an Origin no pattern matches gets no CORS header, and its preflight is no 204', async () => {
    for (const origin of [
      'https://dashboard.example.com.evil.org',
      'https://evil.org',
      'http://127.0.0.1:9999',
    ]) {
      const get = await fetch(`${server.url}${PODS}`, { headers: { origin } });
      expect(corsHeadersOf(get), origin).toEqual({});
      await get.body?.cancel();
      const preflight = await fetch(`${server.url}${PODS}`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'GET' },
      });
      expect(preflight.status, origin).not.toBe(204);
      expect(corsHeadersOf(preflight), origin).toEqual({});
      await preflight.body?.cancel();
    }
  });

  it('by default (no patterns) CORS is off: no origin gets the headers or a 204 preflight', async () => {
    const get = await fetch(`${plain.url}${PODS}`, { headers: { origin: 'http://127.0.0.1:1' } });
    expect(get.status).toBe(200);
    expect(corsHeadersOf(get)).toEqual({});
    await get.body?.cancel();
    const preflight = await fetch(`${plain.url}${PODS}`, {
      method: 'OPTIONS',
      headers: { origin: 'http://127.0.0.1:1', 'access-control-request-method': 'GET' },
    });
    expect(preflight.status).not.toBe(204);
    await preflight.body?.cancel();
  });

  it('a request without Origin gets no CORS header', async () => {
    const res = await fetch(`${server.url}${PODS}`);
    expect(corsHeadersOf(res)).toEqual({});
    await res.body?.cancel();
  });
});

describe('--cors-allowed-origins on the command line', () => {
  it('takes comma-separated regular expressions, and --help lists it', () => {
    const { options } = parseArgs([
      '--cors-allowed-origins=^https://a\\.example$,//b\\.example(:|$)',
    ]);
    expect(options.corsAllowedOrigins).toEqual(['^https://a\\.example$', '//b\\.example(:|$)']);
    expect(usage()).toMatch(/--cors-allowed-origins\n\s+List of allowed origins for CORS/);
  });

  it('refuses an invalid regular expression with an error naming the flag and the pattern', () => {
    expect(() => parseArgs(['--cors-allowed-origins', '^https://(a$'])).toThrow(
      /--cors-allowed-origins has an invalid regular expression "\^https:\/\/\(a\$"/,
    );
  });

  it('refuses a pattern not pinned to the start and end of the host, and an empty one (CVE-2022-1996)', () => {
    expect(validateCorsAllowedOrigins(['example\\.com'])).toEqual([
      expect.stringMatching(/does not pin to the start and end of the host/),
    ]);
    expect(validateCorsAllowedOrigins(['//example\\.com'])).toHaveLength(1);
    expect(validateCorsAllowedOrigins([''])).toEqual(['empty value in --cors-allowed-origins']);
    expect(validateCorsAllowedOrigins(['//example\\.com(:|$)', '^https://x\\.y$'])).toEqual([]);
  });

  it('an embedding program passing an invalid pattern gets the same error from startApiServer, before anything starts', async () => {
    await expect(
      startApiServer({
        port: 0,
        storage: new MemoryStorage({ compactionInterval: 0 }),
        corsAllowedOrigins: ['^(x$'],
      }),
    ).rejects.toThrow(/--cors-allowed-origins has an invalid regular expression/);
  });
});
