import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { fileURLToPath } from 'node:url';
import type { BreakIt } from './break-it.js';
import { dashboardClientBundle } from './dashboard-client-bundle.js';

/** The dashboard's own identity on a secure apiserver: the demo CA and its client certificate. */
export interface DashboardTls {
  ca: string;
  cert: string;
  key: string;
}

/**
 * WebSocket handshake headers passed on to the apiserver (Origin only once checked to be the
 * dashboard's own: the apiserver wants one on WebSocket watches); cookies never are.
 */
const FORWARDED_HEADERS = [
  'origin',
  'upgrade',
  'connection',
  'sec-websocket-key',
  'sec-websocket-version',
  'sec-websocket-protocol',
  'sec-websocket-extensions',
];

/** The page's own files, served as they are (client.js, @listwatch/client, is bundled). */
const dashboardDir = fileURLToPath(new URL('../dashboard/', import.meta.url));
const FILES: Readonly<Record<string, { file: string; type: string }>> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/index.html': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/dashboard.js': { file: 'dashboard.js', type: 'text/javascript; charset=utf-8' },
  '/informers.js': { file: 'informers.js', type: 'text/javascript; charset=utf-8' },
  '/dashboard.css': { file: 'dashboard.css', type: 'text/css; charset=utf-8' },
  '/favicon.svg': { file: 'favicon.svg', type: 'image/svg+xml' },
  // Asked for by browsers whatever the page links: the same icon (browsers sniff SVG).
  '/favicon.ico': { file: 'favicon.svg', type: 'image/svg+xml' },
};

const LOOPBACK_NAMES = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Only names of loopback: a page on a rebound domain name cannot read it (DNS rebinding). */
function isLoopbackHost(req: IncomingMessage): boolean {
  const hostname = /^(.*?)(?::\d+)?$/.exec(req.headers.host ?? '')![1]!.toLowerCase();
  return LOOPBACK_NAMES.has(hostname);
}

/** Sums a metric's samples over all label sets in Prometheus text format. */
export function sumMetric(text: string, name: string): number | undefined {
  let sum: number | undefined;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name) || (line[name.length] !== '{' && line[name.length] !== ' '))
      continue;
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (Number.isFinite(value)) sum = (sum ?? 0) + value;
  }
  return sum;
}

export interface ApiServerStats {
  /** Watches open on the apiserver (all clients, all transports). */
  openWatches?: number | undefined;
  /** Events the apiserver's watch caches delivered to watchers per second, since the last poll. */
  watchEventsPerSecond?: number | undefined;
}

/**
 * The demo's dashboard: static files, `config.json` (the apiserver's URL, which the page watches
 * over WebSocket itself) and `stats.json` (open watches and events/s from the apiserver's
 * /metrics, read here because a page on another origin cannot read them without CORS).
 *
 * The page's origin is loopback when `host` is, which the apiserver's host filter accepts for
 * anonymous WebSocket watches (packages/apiserver/src/middleware/host-filter.ts); served on
 * another host, the page needs that host in the apiserver's `--accept-hosts`.
 *
 * With `tls` (`pnpm demo --secure`) the page watches through this server instead: its
 * WebSocket watches under /api and /apis are passed to the apiserver over TLS as the dashboard's
 * own client certificate (a read-only role), so the browser needs neither the demo CA nor a
 * credential. Only pages of this very origin may open them (Origin checked), so no other site
 * can borrow the dashboard's identity.
 */
export class DashboardServer {
  private readonly server: Server;
  private last?: { at: number; events: number };
  /** Proxied watches' sockets, which the server no longer tracks once upgraded. */
  private readonly proxied = new Set<Socket>();
  url = '';

  constructor(
    private readonly apiserver: string,
    private readonly tls?: DashboardTls,
    private readonly breakIt?: BreakIt,
  ) {
    this.server = createServer((req, res) => {
      if (!isLoopbackHost(req)) {
        res.writeHead(403, { 'Content-Type': 'text/plain' }).end('host not accepted\n');
        return;
      }
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const answer =
        req.method === 'POST' ? this.handlePost(req, path) : this.handle(req.method ?? 'GET', path);
      void answer.then(({ status, type, body }) => {
        res.writeHead(status, {
          'Content-Type': type,
          'Cache-Control': 'no-store',
          'X-Content-Type-Options': 'nosniff',
          // The page talks only to itself and the apiserver.
          'Content-Security-Policy': `default-src 'self'; connect-src 'self' ${this.watchOrigin()}`,
        });
        res.end(body);
      });
    });
    if (tls)
      this.server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) =>
        this.proxyWatch(req, socket, head, tls),
      );
  }

  /** Where the page opens its watches: the apiserver, or with `tls` this server. */
  private watchBase(): string {
    return this.tls ? this.url.replace(/\/$/, '') : this.apiserver;
  }

  private watchOrigin(): string {
    return this.watchBase().replace(/^http/, 'ws');
  }

  /** Passes a page's WebSocket watch to the apiserver as the dashboard (see the class comment). */
  private proxyWatch(req: IncomingMessage, socket: Socket, head: Buffer, tls: DashboardTls): void {
    const refuse = (status: string) => {
      socket.end(`HTTP/1.1 ${status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
    };
    const path = req.url ?? '/';
    const own = new URL(this.url);
    const origin = req.headers.origin;
    const sameOrigin =
      origin !== undefined &&
      [`http://127.0.0.1:${own.port}`, `http://localhost:${own.port}`].includes(origin);
    if (!isLoopbackHost(req) || !sameOrigin) return refuse('403 Forbidden');
    if (req.method !== 'GET' || !/^\/apis?\//.test(path)) return refuse('404 Not Found');
    const target = new URL(this.apiserver);
    const upstream = tlsConnect({
      host: target.hostname.replace(/^\[|\]$/g, ''),
      port: Number(target.port || 443),
      ca: tls.ca,
      cert: tls.cert,
      key: tls.key,
      ALPNProtocols: ['http/1.1'],
      servername: /^[\d.:[\]]+$/.test(target.hostname) ? '' : target.hostname,
    });
    const lines = [`GET ${path} HTTP/1.1`, `Host: ${target.host}`];
    for (const name of FORWARDED_HEADERS) {
      const value = req.headers[name];
      if (value !== undefined)
        lines.push(`${name}: ${Array.isArray(value) ? value.join(', ') : value}`);
    }
    upstream.once('secureConnect', () => {
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length > 0) upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => {
      if (upstream.bytesRead === 0) refuse('502 Bad Gateway');
      else socket.destroy();
    });
    this.proxied.add(socket);
    socket.on('error', () => upstream.destroy());
    socket.on('close', () => {
      this.proxied.delete(socket);
      upstream.destroy();
    });
    upstream.on('close', () => socket.destroy());
  }

  /**
   * The break-it panel's actions: POST /break-it/<action>, from a page of this very origin only
   * (a browser sends Origin on every POST: another site cannot make the demo break itself).
   */
  private async handlePost(
    req: IncomingMessage,
    path: string,
  ): Promise<{ status: number; type: string; body: string }> {
    const own = new URL(this.url);
    const origins = [`http://127.0.0.1:${own.port}`, `http://localhost:${own.port}`];
    const json = (status: number, value: unknown) => ({
      status,
      type: 'application/json',
      body: JSON.stringify(value),
    });
    if (!origins.includes(req.headers.origin ?? ''))
      return json(403, { message: 'only the dashboard page may act' });
    const action = /^\/break-it\/([a-z-]+)$/.exec(path)?.[1];
    const breakIt = this.breakIt;
    if (!breakIt || !action || !breakIt.actions().some((a) => a.id === action))
      return json(404, { message: 'not found' });
    try {
      return json(200, await breakIt.run(action));
    } catch (err) {
      return json(500, {
        message: `${action} failed: ${err instanceof Error ? err.message : String(err)}`,
      });
    }
  }

  private async handle(
    method: string,
    path: string,
  ): Promise<{ status: number; type: string; body: string | Buffer }> {
    if (method !== 'GET' && method !== 'HEAD')
      return { status: 405, type: 'text/plain', body: 'method not allowed\n' };
    const json = (value: unknown) => ({
      status: 200,
      type: 'application/json',
      body: JSON.stringify(value),
    });
    if (path === '/config.json') return json({ apiserver: this.watchBase() });
    if (path === '/stats.json') return json(await this.stats());
    if (path === '/break-it.json') return json({ actions: this.breakIt?.actions() ?? [] });
    if (path === '/client.js') {
      try {
        const body = await dashboardClientBundle();
        return { status: 200, type: 'text/javascript; charset=utf-8', body };
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        return {
          status: 500,
          type: 'text/plain',
          body: `bundling @listwatch/client: ${message}\n`,
        };
      }
    }
    const entry = FILES[path];
    if (!entry) return { status: 404, type: 'text/plain', body: 'not found\n' };
    return { status: 200, type: entry.type, body: await readFile(dashboardDir + entry.file) };
  }

  async stats(): Promise<ApiServerStats> {
    let text: string | undefined;
    try {
      text = await this.metrics();
    } catch {
      return {}; // the apiserver is down: the page shows it
    }
    if (text === undefined) return {};
    const openWatches = sumMetric(text, 'apiserver_longrunning_requests');
    const events = sumMetric(text, 'apiserver_watch_cache_events_dispatched_total') ?? 0;
    const now = Date.now();
    const last = this.last;
    this.last = { at: now, events };
    const watchEventsPerSecond =
      last && now > last.at && events >= last.events
        ? ((events - last.events) * 1000) / (now - last.at)
        : undefined;
    return { openWatches, watchEventsPerSecond };
  }

  /** The apiserver's /metrics, as the dashboard's identity when it has one; undefined unless 200. */
  private async metrics(): Promise<string | undefined> {
    const url = `${this.apiserver}/metrics`;
    const tls = this.tls;
    if (!tls) {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      return res.ok ? res.text() : undefined;
    }
    return new Promise((resolve, reject) => {
      const req = httpsRequest(url, { ...tls, timeout: 2000 }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve(res.statusCode === 200 ? body : undefined));
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', reject);
      req.end();
    });
  }

  /** Listens on host:port; port 0 or a taken port falls back to a free one when `fallback`. */
  async listen(host: string, port: number, fallback = true): Promise<string> {
    // Bundled while the page is not asked for yet: its first load need not wait for it.
    dashboardClientBundle().catch(() => undefined);
    const tryListen = (p: number) =>
      new Promise<void>((resolve, reject) => {
        const onError = (err: Error) => reject(err);
        this.server.once('error', onError);
        this.server.listen(p, host, () => {
          this.server.off('error', onError);
          resolve();
        });
      });
    try {
      await tryListen(port);
    } catch (err) {
      if (!fallback || (err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
      await tryListen(0);
    }
    const { port: bound } = this.server.address() as AddressInfo;
    const shown = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
    this.url = `http://${shown}:${bound}/`;
    return this.url;
  }

  close(): Promise<void> {
    for (const socket of this.proxied) socket.destroy();
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
