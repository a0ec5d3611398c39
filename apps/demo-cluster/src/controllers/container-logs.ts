import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Pod } from './objects.js';

// The kubelet's container log endpoint, for the demo's simulated kubelets: GET
// /containerLogs/{namespace}/{pod}/{container} with the PodLogOptions query (pkg/kubelet/server/
// server.go getContainerLogs), which kube-apiserver proxies pods/log to. No container runs here,
// so each running container "prints" one line per interval since it started: simulated output,
// the same on every read, which tailLines, sinceSeconds, timestamps, limitBytes and follow cut
// and stream as the kubelet does.

/** Reads the pod a kubelet runs (its informer's lister), or undefined. */
export type PodLookup = (namespace: string, name: string) => Pod | undefined;

export interface ContainerLogOptions {
  /** One simulated line per this many ms (default 2 s). */
  intervalMs?: number;
  /** The address to serve on (default 127.0.0.1, port 0: any free port). */
  host?: string;
  port?: number;
}

/** The line a container prints at `index`, as its simulated output. */
export function logLine(pod: Pod, container: string, index: number): string {
  const image = pod.spec?.containers?.find((c) => c.name === container)?.image ?? 'unknown';
  if (index === 0)
    return `starting ${container} (image ${image}) in pod ${pod.metadata.name ?? ''}`;
  return `${container}: served request ${index}`;
}

/** time.RFC3339Nano as the kubelet writes timestamps: nine fraction digits, Z. */
function rfc3339Nano(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000000Z');
}

function fail(res: ServerResponse, code: number, message: string): void {
  res.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(`${message}\n`);
}

function int(query: URLSearchParams, name: string): number | undefined {
  const value = query.get(name);
  if (value === null || !/^\d+$/.test(value)) return undefined;
  return Number(value);
}

/** One kubelet's log server; `listen()` before reporting its port, `close()` when it stops. */
export class ContainerLogServer {
  private readonly server: Server;
  private readonly intervalMs: number;
  private readonly open = new Set<ServerResponse>();

  constructor(
    private readonly lookup: PodLookup,
    private readonly options: ContainerLogOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? 2000;
    this.server = createServer((req, res) => this.serve(req, res));
  }

  /** Listens; resolves with the address and port it serves on. */
  async listen(): Promise<{ address: string; port: number }> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.options.port ?? 0, this.options.host ?? '127.0.0.1', () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    const { address, port } = this.server.address() as AddressInfo;
    return { address, port };
  }

  async close(): Promise<void> {
    for (const res of this.open) res.end();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private serve(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://kubelet');
    const parts = url.pathname.split('/').slice(1).map(decodeURIComponent);
    if (req.method !== 'GET' || parts.length !== 4 || parts[0] !== 'containerLogs')
      return fail(res, 404, '404 page not found');
    const [, namespace = '', name = '', container = ''] = parts;
    const pod = this.lookup(namespace, name);
    if (!pod) return fail(res, 404, `pod "${name}" in namespace "${namespace}" not found`);
    if (!pod.spec?.containers?.some((c) => c.name === container))
      return fail(res, 404, `container "${container}" not found in pod "${name}"`);
    const query = url.searchParams;
    if (query.get('previous') === 'true')
      return fail(
        res,
        400,
        `previous terminated container "${container}" in pod "${name}" not found`,
      );
    const status = pod.status?.containerStatuses?.find((s) => s.name === container);
    const startedAt = Date.parse(status?.state?.running?.startedAt ?? '');
    if (Number.isNaN(startedAt)) {
      const reason = status?.state?.waiting?.reason ?? 'ContainerCreating';
      return fail(
        res,
        400,
        `container "${container}" in pod "${name}" is waiting to start: ${reason}`,
      );
    }
    this.stream(req, res, pod, container, startedAt, query);
  }

  private stream(
    req: IncomingMessage,
    res: ServerResponse,
    pod: Pod,
    container: string,
    startedAt: number,
    query: URLSearchParams,
  ): void {
    const timestamps = query.get('timestamps') === 'true';
    const follow = query.get('follow') === 'true';
    const tail = int(query, 'tailLines');
    const sinceSeconds = int(query, 'sinceSeconds');
    const sinceTime = query.get('sinceTime');
    const since =
      sinceSeconds !== undefined
        ? Date.now() - sinceSeconds * 1000
        : sinceTime
          ? Date.parse(sinceTime)
          : undefined;
    let budget = int(query, 'limitBytes') ?? Infinity;
    const at = (index: number) => startedAt + index * this.intervalMs;
    const text = (index: number) =>
      `${timestamps ? `${rfc3339Nano(at(index))} ` : ''}${logLine(pod, container, index)}\n`;
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Cache-Control': 'no-cache' });
    /** Writes within limitBytes; false once the limit is reached (the stream then ends). */
    const write = (line: string): boolean => {
      const bytes = Buffer.from(line);
      if (bytes.length >= budget) {
        res.write(bytes.subarray(0, budget));
        budget = 0;
        return false;
      }
      budget -= bytes.length;
      res.write(bytes);
      return true;
    };
    // The lines printed so far, cut by sinceSeconds/sinceTime and tailLines.
    let next = Math.floor((Date.now() - startedAt) / this.intervalMs) + 1;
    let first = 0;
    if (since !== undefined) first = Math.max(0, Math.ceil((since - startedAt) / this.intervalMs));
    if (tail !== undefined) first = Math.max(first, next - tail);
    for (let i = first; i < next; i++) if (!write(text(i))) return void res.end();
    if (!follow) return void res.end();
    // follow: a line each interval, until the client leaves or the pod is gone.
    this.open.add(res);
    const timer = setInterval(
      () => {
        const current = this.lookup(pod.metadata.namespace ?? '', pod.metadata.name ?? '');
        if (
          !current ||
          current.metadata.uid !== pod.metadata.uid ||
          current.metadata.deletionTimestamp
        ) {
          stop();
          return;
        }
        while (at(next) <= Date.now()) if (!write(text(next++))) return stop();
      },
      Math.min(this.intervalMs, 500),
    );
    const stop = () => {
      clearInterval(timer);
      this.open.delete(res);
      res.end();
    };
    req.once('close', stop);
  }
}
