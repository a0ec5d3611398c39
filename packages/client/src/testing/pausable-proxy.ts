import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP proxy in front of a server, to cut a client off from it the way a network failure
 * does: `pause()` resets every connection and stops listening, so new ones are refused
 * (ECONNREFUSED — which a reflector treats differently from a reset: it re-watches instead of
 * relisting; the harness's TcpProxy accepts and resets instead); `resume()` listens again on
 * the same port. `dropConnections()` resets them and keeps listening.
 */
export class PausableProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly upstreams = new WeakSet<Socket>();
  private readonly pairs = new Set<[Socket, Socket]>();
  private stalled = false;
  port = 0;

  constructor(private readonly targetPort: number) {}

  static async start(targetPort: number): Promise<PausableProxy> {
    const proxy = new PausableProxy(targetPort);
    await proxy.resume();
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async resume(): Promise<void> {
    this.stalled = false; // a stall lasts until the next pause/resume
    if (this.server) return;
    const server = createServer((client) => {
      const upstream = connect(this.targetPort, '127.0.0.1');
      this.upstreams.add(upstream);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      const pair: [Socket, Socket] = [client, upstream];
      this.pairs.add(pair);
      client.on('close', () => this.pairs.delete(pair));
      if (this.stalled) return;
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Resets every open connection but keeps listening: clients reconnect at once. */
  dropConnections(): void {
    for (const s of this.sockets) {
      // The apiserver dies of a reset that arrives before a connection's first byte (an
      // uncaught ECONNRESET while it sniffs h2c vs HTTP/1.1): close those instead. The
      // client side is always reset.
      if (this.upstreams.has(s) && s.bytesWritten === 0) s.destroy();
      else s.resetAndDestroy();
    }
  }

  /**
   * Forwards nothing any more, in either direction, but keeps every connection open and accepts
   * new ones: requests hang, as behind a network that drops packets without a reset.
   */
  stall(): void {
    this.stalled = true;
    for (const [client, upstream] of this.pairs) {
      client.unpipe(upstream);
      upstream.unpipe(client);
      client.pause();
      upstream.pause();
    }
  }

  async pause(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.dropConnections();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  async close(): Promise<void> {
    await this.pause();
  }
}
