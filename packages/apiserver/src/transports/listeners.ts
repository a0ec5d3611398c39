import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server as HttpServer,
  type ServerResponse,
} from 'node:http';
import {
  createSecureServer,
  createServer as createH2cServer,
  type Http2SecureServer,
  type Http2Server,
  type Http2ServerRequest,
  type Http2ServerResponse,
  type ServerHttp2Session,
  type ServerHttp2Stream,
} from 'node:http2';
import {
  createServer as createNetServer,
  type AddressInfo,
  type Server as NetServer,
  type Socket,
} from 'node:net';
import type { Duplex } from 'node:stream';
import type { ApiServerOptions } from '../server-config.js';
import { tlsVersionAndCiphers } from '../tls-options.js';
import {
  HTTP_TO_HTTPS_ANSWER,
  plainPortProtocol,
  sniffProtocol,
  tlsPortProtocol,
} from './protocol-sniffer.js';

// The apiserver's one port (k8s.io/apiserver pkg/server/secure_serving.go): a TCP listener that
// sniffs what each connection speaks and hands it to HTTP/1.1, h2c (prior knowledge) or TLS
// (HTTP/2 by ALPN, and HTTP/1.1), with the header, handshake and idle timeouts that keep a
// stalled client from holding a socket.

/**
 * Request line and headers may take 1 MiB, as kube-apiserver's MaxHeaderBytes (secure_serving.go);
 * beyond it HTTP/1.1 is answered 431 (Node's default is 16 KiB, too little for long selectors).
 */
export const MAX_HEADER_BYTES = 1024 * 1024;

// Flow-control windows raised so HTTP/2 watches are not throttled (nodejs/node#50972).
const H2_SETTINGS = {
  initialWindowSize: 4 * 1024 * 1024,
  maxConcurrentStreams: 250,
  maxHeaderListSize: MAX_HEADER_BYTES,
};
const H2_SESSION_WINDOW = 16 * 1024 * 1024;

/**
 * Closes an HTTP/2 session that has had no stream open for `idleMs`: a connection that never asks
 * for anything (or floods frames and never reads) holds no socket for long, while one carrying a
 * quiet watch stays.
 */
function closeIdleSessions(server: Http2Server | Http2SecureServer, idleMs: number): void {
  server.on('session', (session: ServerHttp2Session) => {
    let open = 0;
    // One listener per session, added to each stream ('close' comes once): none per stream.
    const closed = () => open--;
    session.on('stream', (stream: ServerHttp2Stream) => {
      open++;
      stream.on('close', closed);
    });
    session.setTimeout(idleMs, () => {
      if (open !== 0) return;
      session.close();
      // A peer that reads nothing never takes the GOAWAY, and a graceful close waits for it to
      // be written: a session not gone after another idle period is destroyed.
      setTimeout(() => session.destroy(), idleMs).unref();
    });
  });
}

/** A connection's 'error' listener: one function for all of them, nothing kept per connection. */
function destroySocket(this: Socket): void {
  this.destroy();
}

/** A request handler every server of the port shares (koa's callback, counted). */
export type RequestHandler = (
  req: IncomingMessage | Http2ServerRequest,
  res: ServerResponse | Http2ServerResponse,
) => void;

/** An HTTP/1.1 upgrade (WebSocket, or one served while ignoring it). */
export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;

/** The port and what serves it; shutdown closes each. */
export interface Listeners {
  listener: NetServer;
  http1: HttpServer;
  secure: Http2SecureServer | undefined;
  h2c: Http2Server | undefined;
  /** Every open connection, so shutdown can close keep-alive ones too. */
  sockets: Set<Socket>;
  port: number;
  /** The bind address as a URL host (`[::1]`; `0.0.0.0` as `127.0.0.1`). */
  host: string;
  /** `http://127.0.0.1:PORT` (or https). */
  url: string;
}

/** Listens on the options' address and port; resolves once listening. */
export async function listen(
  options: ApiServerOptions,
  requestTimeoutMs: number,
  handler: RequestHandler,
  upgrade: UpgradeHandler,
): Promise<Listeners> {
  // Timeouts for clients that connect and then stall. Node checks them every
  // connectionsCheckingInterval (default 30 s); a second keeps them close to what they say.
  const headersTimeout = options.requestHeaderTimeout ?? 32_000;
  const timeouts = {
    maxHeaderSize: MAX_HEADER_BYTES,
    headersTimeout,
    // A backstop for bodies no handler reads; the request-body middleware answers 408 first.
    requestTimeout: requestTimeoutMs + headersTimeout,
    connectionsCheckingInterval: Math.min(1000, Math.max(50, headersTimeout / 4)),
  };
  // Watches are long-running: Node's request timeout only covers receiving the request.
  const http1: HttpServer = createHttpServer({ ...timeouts, keepAliveTimeout: 65_000 }, handler);
  http1.on('upgrade', upgrade);
  const raiseWindow = (server: Http2Server | Http2SecureServer) =>
    server.on('session', (session) => session.setLocalWindowSize(H2_SESSION_WINDOW));
  // A connection must have said what it speaks (and on TLS, finished its handshake) within the
  // header timeout, as Go's server bounds the handshake by ReadHeaderTimeout
  // (tlsHandshakeTimeout, server.go); a client sending nothing, or a byte at a time, is closed.
  const deadline = (socket: Socket, settled?: () => void): (() => void) => {
    const timer = setTimeout(() => socket.destroy(), headersTimeout);
    const clear = () => {
      clearTimeout(timer);
      socket.off('close', clear);
      settled?.();
    };
    socket.on('close', clear);
    return clear;
  };
  let h2c: Http2Server | undefined;
  let secure: Http2SecureServer | undefined;
  let accept: (socket: Socket) => void;
  if (options.tlsCert && options.tlsKey) {
    const tlsServer = createSecureServer(
      {
        cert: options.tlsCert,
        key: options.tlsKey,
        allowHTTP1: true,
        settings: H2_SETTINGS,
        ...tlsVersionAndCiphers(options.tlsMinVersion, options.tlsCiphers),
        // Asked for, not required: verified by the authenticator, which answers 401 (x509.go).
        ...(options.clientCA !== undefined
          ? { ca: options.clientCA, requestCert: true, rejectUnauthorized: false }
          : {}),
      },
      handler,
    );
    secure = tlsServer;
    // Its HTTP/1.1 connections are checked by Node as http1's are (set before 'listening').
    Object.assign(tlsServer, timeouts);
    tlsServer.on('upgrade', upgrade);
    raiseWindow(tlsServer);
    closeIdleSessions(tlsServer, headersTimeout);
    // Connections in their handshake, by remote address (the TLS socket has the raw one's).
    const handshaking = new Map<string, () => void>();
    tlsServer.on('secureConnection', (socket: Socket) =>
      handshaking.get(`${socket.remoteAddress}:${socket.remotePort}`)?.(),
    );
    accept = (socket) => {
      const key = `${socket.remoteAddress}:${socket.remotePort}`;
      // Cleared by the handshake's end or the connection's; nothing stays on it after.
      handshaking.set(
        key,
        deadline(socket, () => handshaking.delete(key)),
      );
      sniffProtocol(socket, tlsPortProtocol, (protocol) => {
        if (protocol !== 'http') return void tlsServer.emit('connection', socket);
        // Plain HTTP on the TLS port: Go's 400 rather than a bare close (kubectl's `EOF`).
        socket.resume(); // what else it sends is dropped; the deadline still closes it
        socket.end(HTTP_TO_HTTPS_ANSWER);
      });
    };
  } else {
    const h2cServer = createH2cServer({ settings: H2_SETTINGS }, handler);
    h2c = h2cServer;
    raiseWindow(h2cServer);
    closeIdleSessions(h2cServer, headersTimeout);
    accept = (socket) => {
      const clear = deadline(socket);
      // h2c with prior knowledge, or HTTP/1.1 (which may upgrade to WebSocket).
      sniffProtocol(socket, plainPortProtocol, (protocol) => {
        clear(); // from here HTTP/1.1's header timeout and HTTP/2's idle timeout apply
        (protocol === 'h2c' ? h2cServer : http1).emit('connection', socket);
      });
    };
  }
  const listener: NetServer = createNetServer((socket: Socket) => {
    // A client may reset before sending anything: that ends its connection, never the server.
    socket.on('error', destroySocket);
    accept(socket);
  });
  // Neither http1 nor the TLS server listens itself (the sniffer hands them sockets), so start
  // the connection checks that Node starts on 'listening': without them no header or request
  // timeout ever fires.
  listener.once('listening', () => (secure ?? http1).emit('listening'));
  // Every connection, so shutdown can close keep-alive ones too (no request may reach a closed storage).
  const sockets = new Set<Socket>();
  // One listener for every connection ('close' comes once): no closure per open watch.
  function forgetSocket(this: Socket): void {
    sockets.delete(this);
  }
  listener.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', forgetSocket);
  });
  const bindAddress = options.bindAddress ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    listener.once('error', reject);
    listener.listen(options.port ?? 8080, bindAddress, () => resolve());
  });
  const port = (listener.address() as AddressInfo).port;
  const scheme = options.tlsCert ? 'https' : 'http';
  const host = bindAddress.includes(':')
    ? `[${bindAddress}]`
    : bindAddress === '0.0.0.0'
      ? '127.0.0.1'
      : bindAddress;
  const url = `${scheme}://${host}:${port}`;
  return { listener, http1, secure, h2c, sockets, port, host, url };
}
