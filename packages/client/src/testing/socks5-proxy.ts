import { createServer, type AddressInfo, type Socket } from 'node:net';
import { TunnelProxy } from './tunnel-proxy.js';

/**
 * A SOCKS5 proxy (RFC 1928, CONNECT only) with optional username/password authentication
 * (RFC 1929); it records the targets it connected to and the user each came as.
 */
export class Socks5Proxy extends TunnelProxy {
  readonly connections: { target: string; user: string | undefined }[] = [];

  private constructor(
    private readonly credentials: { user: string; password: string } | undefined,
  ) {
    super();
  }

  static async start(credentials?: { user: string; password: string }): Promise<Socks5Proxy> {
    const proxy = new Socks5Proxy(credentials);
    proxy.server = createServer((socket) => void proxy.serve(socket));
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    proxy.port = (proxy.server.address() as AddressInfo).port;
    return proxy;
  }

  url(userinfo = ''): string {
    return `socks5://${userinfo ? `${userinfo}@` : ''}127.0.0.1:${this.port}`;
  }

  private async serve(client: Socket): Promise<void> {
    this.track(client);
    const read = reader(client);
    try {
      const [version, methods] = await read(2);
      if (version !== 5) throw new Error('not SOCKS5');
      const offered = await read(methods!);
      const wanted = this.credentials ? 2 : 0;
      if (!offered.includes(wanted)) {
        client.end(Buffer.from([5, 0xff]));
        return;
      }
      client.write(Buffer.from([5, wanted]));
      let user: string | undefined;
      if (this.credentials) {
        const [, userLength] = await read(2);
        user = (await read(userLength!)).toString();
        const [passwordLength] = await read(1);
        const password = (await read(passwordLength!)).toString();
        const ok = user === this.credentials.user && password === this.credentials.password;
        client.write(Buffer.from([1, ok ? 0 : 1]));
        if (!ok) {
          client.end();
          return;
        }
      }
      const [, command, , type] = await read(4);
      let host: string;
      if (type === 1) host = [...(await read(4))].join('.');
      else if (type === 3) host = (await read((await read(1))[0]!)).toString();
      else throw new Error('address type not supported here');
      const port = (await read(2)).readUInt16BE(0);
      if (command !== 1) throw new Error('only CONNECT');
      this.connections.push({ target: `${host}:${port}`, user });
      this.splice(client, host, port, Buffer.from([5, 0, 0, 1, 0, 0, 0, 0, 0, 0]), () =>
        read.rest(),
      );
    } catch {
      client.destroy();
    }
  }
}

/** Reads exact byte counts off a socket during the handshake; `rest()` hands over the excess. */
function reader(socket: Socket): ((n: number) => Promise<Buffer>) & { rest(): Buffer } {
  let buffered = Buffer.alloc(0);
  let waiting: (() => void) | undefined;
  const onData = (chunk: Buffer): void => {
    buffered = Buffer.concat([buffered, chunk]);
    waiting?.();
  };
  socket.on('data', onData);
  // A client gone mid-handshake must not leave a read waiting forever.
  socket.once('close', () => waiting?.());
  const read = async (n: number): Promise<Buffer> => {
    while (buffered.length < n) {
      if (socket.destroyed) throw new Error('closed');
      await new Promise<void>((resolve) => (waiting = resolve));
    }
    const out = buffered.subarray(0, n);
    buffered = buffered.subarray(n);
    return out;
  };
  return Object.assign(read, {
    rest: (): Buffer => {
      socket.off('data', onData);
      const out = buffered;
      buffered = Buffer.alloc(0);
      return out;
    },
  });
}
