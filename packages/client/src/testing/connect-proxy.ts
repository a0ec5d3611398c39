import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { TunnelProxy } from './tunnel-proxy.js';

export interface Tunnel {
  /** `host:port` the client asked for. */
  target: string;
  proxyAuthorization: string | undefined;
}

/**
 * An HTTP proxy that only tunnels (CONNECT), as corporate proxies in front of apiservers do;
 * it records every tunnel, and with `requireAuthorization` answers 407 to one without it.
 */
export class ConnectProxy extends TunnelProxy {
  readonly tunnels: Tunnel[] = [];

  private constructor(private readonly requireAuthorization: string | undefined) {
    super();
  }

  static async start(options: { requireAuthorization?: string } = {}): Promise<ConnectProxy> {
    const proxy = new ConnectProxy(options.requireAuthorization);
    proxy.server = createServer((_req, res) => {
      res.statusCode = 405; // no plain forwarding: every request must come through a tunnel
      res.end();
    });
    proxy.server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) =>
      proxy.tunnel(req, client, head),
    );
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    proxy.port = (proxy.server.address() as AddressInfo).port;
    return proxy;
  }

  url(userinfo = ''): string {
    return `http://${userinfo ? `${userinfo}@` : ''}127.0.0.1:${this.port}`;
  }

  private tunnel(req: IncomingMessage, client: Socket, head: Buffer): void {
    const proxyAuthorization = req.headers['proxy-authorization'];
    this.tunnels.push({ target: req.url ?? '', proxyAuthorization });
    this.track(client);
    if (this.requireAuthorization && proxyAuthorization !== this.requireAuthorization) {
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\ncontent-length: 0\r\n\r\n');
      return;
    }
    const [host, port] = splitHostPort(req.url ?? '');
    this.splice(
      client,
      host,
      Number(port),
      'HTTP/1.1 200 Connection Established\r\n\r\n',
      () => head,
    );
  }
}

function splitHostPort(target: string): [string, string] {
  const at = target.lastIndexOf(':');
  return [target.slice(0, at).replace(/^\[(.*)\]$/, '$1'), target.slice(at + 1)];
}
