import { createServer, request, type Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * `kubectl proxy --www` in miniature: serves `files` (path → [content type, body]) and passes
 * every other request, WebSocket upgrades included, to `target`, so a page and the API it
 * calls share one origin.
 */
export async function startWwwProxy(
  target: string,
  files: Record<string, [string, string]>,
): Promise<{ url: string; close(): Promise<void> }> {
  const upstream = new URL(target);
  const server: Server = createServer((req, res) => {
    const file = files[new URL(req.url ?? '/', 'http://localhost').pathname];
    if (file) {
      res.writeHead(200, { 'content-type': file[0] });
      res.end(file[1]);
      return;
    }
    const forwarded = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: req.url,
        method: req.method,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forwarded.on('error', () => res.destroy());
    req.pipe(forwarded);
  });
  server.on('upgrade', (req, socket, head) => {
    const out = connect(Number(upstream.port), upstream.hostname, () => {
      const headers = Object.entries(req.headers).map(([k, v]) => `${k}: ${String(v)}`);
      out.write(`${req.method} ${req.url} HTTP/1.1\r\n${headers.join('\r\n')}\r\n\r\n`);
      out.write(head);
      out.pipe(socket).pipe(out);
    });
    out.on('error', () => socket.destroy());
    socket.on('error', () => out.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
