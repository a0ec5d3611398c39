import { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { verbOf } from '../handlers/verb.js';
import { parseRequestInfo, type RequestInfo } from '../request/request-info.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Whether an upgrade request is answered as a WebSocket: only a watch upgrades (its verb as
 * requestinfo.go gives it, so a named path with `watch=true` does not). Any other request asking
 * for WebSocket (pods/exec, a named GET, a list) is served as plain HTTP, as kube's handlers that
 * do not upgrade answer it: its Status or object, never a stream of watch events.
 */
export function isWebSocketUpgrade(req: IncomingMessage): boolean {
  if ((req.headers.upgrade ?? '').trim().toLowerCase() !== 'websocket') return false;
  const url = new URL(req.url ?? '/', 'http://localhost');
  let info: RequestInfo | undefined;
  try {
    info = parseRequestInfo(url.pathname);
  } catch {
    // A malformed path: the plain HTTP chain answers its 400.
    return false;
  }
  return info !== undefined && verbOf(req.method ?? 'GET', info, url.searchParams) === 'watch';
}

/**
 * Serves a request that asks to upgrade to anything but WebSocket as plain HTTP/1.1, ignoring the
 * `Upgrade` header as Go's net/http does: `curl --http2 http://...` sends `Upgrade: h2c` and gets
 * its answer over HTTP/1.1. Node hands such a request over with the bare socket and an already
 * ended body, so the request is rebuilt with the body read from the socket (Content-Length bytes:
 * `head`, then what follows), and the connection closes after the response.
 */
export function serveIgnoringUpgrade(
  upgrade: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  handler: Handler,
): void {
  const req = new IncomingMessage(socket as Socket);
  req.method = upgrade.method ?? 'GET';
  req.url = upgrade.url ?? '/';
  req.headers = upgrade.headers;
  req.rawHeaders = upgrade.rawHeaders;
  req.httpVersion = upgrade.httpVersion;
  req.httpVersionMajor = upgrade.httpVersionMajor;
  req.httpVersionMinor = upgrade.httpVersionMinor;
  let remaining = Number(upgrade.headers['content-length'] ?? 0) || 0;
  const end = (): void => {
    // `complete`, or the request counts as aborted once read, and takes the socket with it.
    req.complete = true;
    req.push(null);
  };
  const take = (chunk: Buffer): void => {
    if (remaining <= 0) return;
    const part = chunk.subarray(0, remaining);
    remaining -= part.length;
    req.push(part);
    if (remaining <= 0) {
      socket.off('data', take);
      end();
    }
  };
  if (remaining <= 0) end();
  else {
    // Node answers `Expect: 100-continue` itself, but not for requests it hands over.
    if (/100-continue/i.test(upgrade.headers.expect ?? '') && head.length === 0)
      socket.write('HTTP/1.1 100 Continue\r\n\r\n');
    take(head);
    if (remaining > 0) socket.on('data', take);
  }
  const res = new ServerResponse(req);
  res.shouldKeepAlive = false;
  res.assignSocket(socket as Socket);
  // The socket's close then closes the response (assignSocket's listener), as for any request.
  res.once('finish', () => {
    socket.off('data', take);
    socket.end();
  });
  handler(req, res);
}
