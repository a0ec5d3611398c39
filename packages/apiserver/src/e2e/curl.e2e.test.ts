import type { KubeObject } from '@listwatch/api';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApiServer } from '../server.js';
import {
  apiClient,
  curl,
  eventually,
  KubectlSession,
  parseCurlResponse,
  selfSignedCert,
  spawnCurl,
  startE2eServer,
  uniqueName,
  type ApiClient,
  type RunningProcess,
} from './e2e.test-helper.js';

// Three curl commands of the kind people type to watch the API by hand: a watch of every pod over
// HTTP/1.1 chunked transfer, over HTTP/2, and over a hand-written WebSocket upgrade with an
// Origin — against the apiserver serving TLS with a throwaway certificate, and through
// `kubectl proxy`. No client certificate: these servers do not authenticate. `-N` keeps
// curl from buffering its output in a pipe, so events can be seen as they arrive; --max-time is a
// safety net, each watch is stopped once its events are seen.

let server: RunningApiServer;
let plain: RunningApiServer;
let api: ApiClient;
let kubectl: KubectlSession;
let proxy: RunningProcess;
let proxyUrl: string;

beforeAll(async () => {
  const tls = await selfSignedCert();
  [server, plain] = await Promise.all([
    startE2eServer({ tlsCert: tls.cert, tlsKey: tls.key }),
    startE2eServer(),
  ]);
  kubectl = new KubectlSession(server.url);
  // kubectl proxy --port=0 picks a free port and says which.
  proxy = kubectl.spawn(['proxy', '--port=0']);
  const serving = await eventually(
    () => /Starting to serve on (127\.0\.0\.1:\d+)/.exec(proxy.stdout)?.[1],
    () => `kubectl proxy to start: ${proxy.stderr}`,
  );
  proxyUrl = `http://${serving}`;
  // Setup writes go through the proxy: fetch would refuse the self-signed certificate.
  api = apiClient(proxyUrl);
});

afterAll(async () => {
  await proxy?.stop();
  kubectl?.dispose();
  await Promise.all([server?.close(), plain?.close()]);
});

const pod = (name: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'main', image: 'nginx' }] },
});

/** A namespace with one pod in it already; returns the namespace and a way to add pods. */
async function podsToWatch(): Promise<{ existing: string; add: () => Promise<string> }> {
  const ns = await api.namespace('curl');
  const existing = uniqueName('before');
  expect((await api.post(`/api/v1/namespaces/${ns}/pods`, pod(existing))).status).toBe(201);
  return {
    existing,
    add: async () => {
      const name = uniqueName('during');
      expect((await api.post(`/api/v1/namespaces/${ns}/pods`, pod(name))).status).toBe(201);
      return name;
    },
  };
}

/** Watches until the pod listed before and one created during the watch have both arrived. */
async function watchSeesPods(watch: RunningProcess): Promise<string> {
  const { existing, add } = await podsToWatch();
  try {
    await watch.waitForOutput(`"name":"${existing}"`);
    const created = await add();
    await watch.waitForOutput(`"name":"${created}"`);
    const events = watch.stdout
      .split('\n')
      .map((line) =>
        /\{"type":"(\w+)","object":\{"apiVersion":"v1","kind":"(\w+)","metadata":\{"name":"([^"]+)"/.exec(
          line,
        ),
      )
      .filter((m) => m !== null)
      .map((m) => `${m[1]} ${m[2]} ${m[3]}`);
    expect(events).toContain(`ADDED Pod ${existing}`);
    expect(events).toContain(`ADDED Pod ${created}`);
    return watch.stdout;
  } finally {
    await watch.stop();
  }
}

const WATCH_PODS = '/api/v1/pods?watch=true';

/** Hand-typed WebSocket headers: `Sec-WebSocket-Key: xxx` and a trailing space in Host included. */
const WEBSOCKET_HEADERS = [
  '--header',
  'Connection:Upgrade',
  '--header',
  'Upgrade: websocket',
  '--header',
  'Sec-WebSocket-Key: xxx',
  '--header',
  'Sec-WebSocket-Version: 13',
  '--header',
  'Host: 127.0.0.1:8001 ',
  '--header',
  'Origin: http://127.0.0.1:8001',
];

/** RFC 6455's accept value for a key (what golang.org/x/net/websocket computes, any key). */
function acceptFor(key: string): string {
  return createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
}

describe('curl watch commands against the apiserver over TLS', () => {
  it('curl -ik --http1.1 …/api/v1/pods?watch=true streams events with chunked transfer encoding', async () => {
    const out = await watchSeesPods(
      spawnCurl(['-ik', '--http1.1', '-N', '--max-time', '30', `${server.url}${WATCH_PODS}`]),
    );
    const { statusLines, headers } = parseCurlResponse(out);
    expect(statusLines).toEqual(['HTTP/1.1 200 OK']);
    expect(headers.get('transfer-encoding')).toBe('chunked');
    expect(headers.get('content-type')).toBe('application/json');
    expect(headers.has('content-length')).toBe(false);
  });

  it('curl -ik --http2 …/api/v1/pods?watch=true streams events over an HTTP/2 stream (ALPN h2)', async () => {
    const out = await watchSeesPods(
      spawnCurl(['-ik', '--http2', '-N', '--max-time', '30', `${server.url}${WATCH_PODS}`]),
    );
    const { statusLines, headers } = parseCurlResponse(out);
    expect(statusLines).toEqual(['HTTP/2 200']);
    expect(headers.get('content-type')).toBe('application/json');
    // HTTP/2 frames the body itself: no chunked encoding, no length.
    expect(headers.has('transfer-encoding')).toBe(false);
    expect(headers.has('content-length')).toBe(false);
  });

  it('the WebSocket upgrade with an Origin answers 101 Switching Protocols and sends one text frame per event', async () => {
    const out = await watchSeesPods(
      spawnCurl([
        '-ik',
        '--http1.1',
        '-N',
        '--max-time',
        '30',
        ...WEBSOCKET_HEADERS,
        `${server.url}${WATCH_PODS}`,
      ]),
    );
    const { statusLines, headers, body } = parseCurlResponse(out);
    expect(statusLines).toEqual(['HTTP/1.1 101 Switching Protocols']);
    expect(headers.get('upgrade')).toBe('websocket');
    expect(headers.get('sec-websocket-accept')).toBe(acceptFor('xxx'));
    // A server frame: FIN + text opcode (0x81), unmasked, then the event JSON ending in a newline.
    expect(body.charCodeAt(0)).toBe(0x81);
    expect(body).toMatch(/\{"type":"ADDED","object":\{"apiVersion":"v1","kind":"Pod"/);
  });

  it('the WebSocket upgrade without an Origin is refused with 403, as kube refuses it', async () => {
    const headers = WEBSOCKET_HEADERS.filter((h) => !h.startsWith('Origin'));
    const { stdout } = await curl([
      '-ik',
      '--http1.1',
      '--max-time',
      '10',
      ...headers.slice(0, -1),
      `${server.url}${WATCH_PODS}`,
    ]);
    const res = parseCurlResponse(stdout);
    expect(res.statusLines).toEqual(['HTTP/1.1 403 Forbidden']);
    expect(JSON.parse(res.body)).toMatchObject({ kind: 'Status', code: 403, reason: 'Forbidden' });
  });

  it('curl --http2 to a plain-HTTP apiserver (an h2c upgrade request) is answered over HTTP/1.1, as Go servers answer it', async () => {
    const plainApi = apiClient(plain.url);
    const ns = await plainApi.namespace('h2c');
    await plainApi.post(`/api/v1/namespaces/${ns}/pods`, pod('plain'));
    const watch = spawnCurl([
      '-i',
      '--http2',
      '-N',
      '--max-time',
      '30',
      `${plain.url}${WATCH_PODS}`,
    ]);
    try {
      await watch.waitForOutput('"name":"plain"');
    } finally {
      await watch.stop();
    }
    const { statusLines, headers } = parseCurlResponse(watch.stdout);
    expect(statusLines).toEqual(['HTTP/1.1 200 OK']);
    expect(headers.get('transfer-encoding')).toBe('chunked');
    expect(headers.get('connection')).toBe('close');
  });
});

describe('plain HTTP to the TLS port', () => {
  it("curl http:// gets Go's 400 and its line, not an empty reply", async () => {
    const { stdout } = await curl(['-i', `${server.url.replace('https:', 'http:')}/version`]);
    const res = parseCurlResponse(stdout);
    expect(res.statusLines).toEqual(['HTTP/1.0 400 Bad Request']);
    expect(res.body).toBe('Client sent an HTTP request to an HTTPS server.\n');
  });

  it("kubectl --server http:// reports the server's 400 (as against kube-apiserver), not EOF", async () => {
    const wrong = new KubectlSession(server.url.replace('https:', 'http:'));
    try {
      const { code, stderr } = await wrong.run(['get', 'namespaces']);
      expect(code).not.toBe(0);
      expect(stderr).toContain('Error from server (BadRequest)');
      expect(stderr).not.toContain('EOF');
    } finally {
      wrong.dispose();
    }
  });
});

describe('curl --http2 against the plain-HTTP port', () => {
  it('a write sent with an h2c upgrade request is served over HTTP/1.1, its body read after the headers', async () => {
    const plainApi = apiClient(plain.url);
    const ns = await plainApi.namespace('h2c-post');
    const big = 'x'.repeat(200_000); // large enough for curl to send `Expect: 100-continue`
    const created = await curl([
      '-i',
      '--http2',
      '--max-time',
      '10',
      '-X',
      'POST',
      '-H',
      'Content-Type: application/json',
      '--data-binary',
      `@${kubectl.write('big.json', JSON.stringify({ metadata: { name: 'posted' }, data: { big } }))}`,
      `${plain.url}/api/v1/namespaces/${ns}/configmaps`,
    ]);
    const res = parseCurlResponse(created.stdout);
    expect(res.statusLines.at(-1)).toBe('HTTP/1.1 201 Created');
    expect((await plainApi.get(`/api/v1/namespaces/${ns}/configmaps/posted`)).body['data']).toEqual(
      {
        big,
      },
    );
  });
});

describe('curl watch commands through kubectl proxy', () => {
  it('curl -i --http1.1 …/api/v1/pods?watch=true streams events with chunked transfer encoding', async () => {
    const out = await watchSeesPods(
      spawnCurl(['-i', '--http1.1', '-N', '--max-time', '30', `${proxyUrl}${WATCH_PODS}`]),
    );
    const { statusLines, headers } = parseCurlResponse(out);
    expect(statusLines).toEqual(['HTTP/1.1 200 OK']);
    expect(headers.get('transfer-encoding')).toBe('chunked');
    expect(headers.get('content-type')).toBe('application/json');
  });

  it('the WebSocket upgrade with an Origin is passed through: 101 Switching Protocols, then events', async () => {
    const out = await watchSeesPods(
      spawnCurl([
        '-i',
        '--http1.1',
        '-N',
        '--max-time',
        '30',
        ...WEBSOCKET_HEADERS,
        `${proxyUrl}${WATCH_PODS}`,
      ]),
    );
    const { statusLines, headers } = parseCurlResponse(out);
    expect(statusLines).toEqual(['HTTP/1.1 101 Switching Protocols']);
    expect(headers.get('sec-websocket-accept')).toBe(acceptFor('xxx'));
  });

  it('curl --http2 through the proxy gets its HTTP/1.1 error: kubectl proxy speaks no HTTP/2 and takes h2c for a failed upgrade', async () => {
    // Same answer in front of kube-apiserver: apimachinery's UpgradeAwareHandler reports a
    // non-101 reply to an upgrade request as "invalid upgrade response".
    const { stdout } = await curl([
      '-i',
      '--http2',
      '--max-time',
      '10',
      `${proxyUrl}${WATCH_PODS}`,
    ]);
    const { statusLines, body } = parseCurlResponse(stdout);
    expect(statusLines).toEqual(['HTTP/1.1 500 Internal Server Error']);
    expect(body.trim()).toBe('invalid upgrade response: status code 200');
  });

  it('plain requests go through too: kubectl get --raw style reads of a list', async () => {
    const { stdout } = await curl([
      '--max-time',
      '10',
      `${proxyUrl}/api/v1/namespaces/default/configmaps`,
    ]);
    expect(JSON.parse(stdout)).toMatchObject({
      kind: 'ConfigMapList',
      apiVersion: 'v1',
      items: [],
    });
  });
});
