import { connect, type Server, type Socket } from 'node:net';

/**
 * What the test proxies share: the sockets they hold (all destroyed by close) and the splice of
 * a client to its target once the handshake of their protocol is done.
 */
export abstract class TunnelProxy {
  port = 0;
  protected server!: Server;
  private readonly sockets = new Set<Socket>();

  /** Holds `socket` until it closes; an error just closes it. */
  protected track(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  }

  /**
   * Connects to the target; once connected, answers the client with `reply`, forwards what the
   * client already sent past its handshake (`early()`), and pipes both ways until either closes.
   */
  protected splice(
    client: Socket,
    host: string,
    port: number,
    reply: string | Buffer,
    early: () => Buffer,
  ): void {
    const upstream = connect(port, host, () => {
      client.write(reply);
      const rest = early();
      if (rest.length) upstream.write(rest);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    this.track(upstream);
    upstream.on('close', () => client.destroy());
    client.on('close', () => upstream.destroy());
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
