import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

/** The page's files, served as they are: no build step. */
const dashboardDir = fileURLToPath(new URL('../dashboard/', import.meta.url));
const FILES: Readonly<Record<string, { file: string; type: string }>> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/index.html': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/dashboard.js': { file: 'dashboard.js', type: 'text/javascript; charset=utf-8' },
  '/watch.js': { file: 'watch.js', type: 'text/javascript; charset=utf-8' },
  '/dashboard.css': { file: 'dashboard.css', type: 'text/css; charset=utf-8' },
};

const LOOPBACK_NAMES = new Set(['127.0.0.1', 'localhost', '[::1]']);

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
 */
export class DashboardServer {
  private readonly server: Server;
  private last?: { at: number; events: number };
  url = '';

  constructor(private readonly apiserver: string) {
    this.server = createServer((req, res) => {
      // Only names of loopback: a page on a rebound domain name cannot read it (DNS rebinding).
      const hostname = /^(.*?)(?::\d+)?$/.exec(req.headers.host ?? '')![1]!.toLowerCase();
      if (!LOOPBACK_NAMES.has(hostname)) {
        res.writeHead(403, { 'Content-Type': 'text/plain' }).end('host not accepted\n');
        return;
      }
      void this.handle(req.method ?? 'GET', new URL(req.url ?? '/', 'http://x').pathname).then(
        ({ status, type, body }) => {
          res.writeHead(status, {
            'Content-Type': type,
            'Cache-Control': 'no-store',
            'X-Content-Type-Options': 'nosniff',
            // The page talks only to itself and the apiserver.
            'Content-Security-Policy': `default-src 'self'; connect-src 'self' ${apiserver.replace(/^http/, 'ws')}`,
          });
          res.end(body);
        },
      );
    });
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
    if (path === '/config.json') return json({ apiserver: this.apiserver });
    if (path === '/stats.json') return json(await this.stats());
    const entry = FILES[path];
    if (!entry) return { status: 404, type: 'text/plain', body: 'not found\n' };
    return { status: 200, type: entry.type, body: await readFile(dashboardDir + entry.file) };
  }

  async stats(): Promise<ApiServerStats> {
    let text: string;
    try {
      const res = await fetch(`${this.apiserver}/metrics`, { signal: AbortSignal.timeout(2000) });
      if (!res.ok) return {};
      text = await res.text();
    } catch {
      return {}; // the apiserver is down: the page shows it
    }
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

  /** Listens on host:port; port 0 or a taken port falls back to a free one when `fallback`. */
  async listen(host: string, port: number, fallback = true): Promise<string> {
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
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
