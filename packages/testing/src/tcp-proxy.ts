import { createServer, connect, type Server, type Socket } from 'node:net';
import { freePort } from './ports.js';

/** A TCP relay in front of etcd that a test can cut and restore, leaving etcd itself running. */
export class TcpProxy {
  private readonly sockets = new Set<Socket>();
  private passing = true;

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(targetPort: number): Promise<TcpProxy> {
    const port = await freePort();
    const holder: { proxy?: TcpProxy } = {};
    const server = createServer((client) => {
      const proxy = holder.proxy;
      if (!proxy?.passing) {
        client.destroy();
        return;
      }
      const upstream = connect(targetPort, '127.0.0.1');
      for (const socket of [client, upstream]) {
        proxy.sockets.add(socket);
        socket.on('close', () => proxy.sockets.delete(socket));
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    holder.proxy = new TcpProxy(server, port);
    return holder.proxy;
  }

  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Drops every connection and refuses new ones. */
  cut(): void {
    this.passing = false;
    for (const socket of this.sockets) socket.destroy();
  }

  restore(): void {
    this.passing = true;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
