import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createSecureServer, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import { createHash } from 'node:crypto';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';

export interface RecordedRequest {
  method: string;
  /** Path and query, as sent. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** `h2` or `http/1.1`. */
  protocol: string;
  /** The CN of the client certificate, if one was presented. */
  clientCN?: string;
  /** The client's port: requests on one connection share it. */
  clientPort: number;
}

/** Handles an HTTP Upgrade (a WebSocket handshake). */
export type UpgradeHandler = (req: IncomingMessage, socket: Duplex) => void;

/** Http2ServerResponse is used through the same API, so handlers see one type. */
export type Handler = (req: RecordedRequest, res: ServerResponse) => void | Promise<void>;

export interface TestServerOptions {
  tls?: { cert: string; key: string; ca?: string; requestCert?: boolean };
  /** With TLS: offer HTTP/2 (ALPN) next to HTTP/1.1. */
  http2?: boolean;
  port?: number;
}

/**
 * A scriptable HTTP(S) server standing in for an apiserver's misbehaviours — 429s, stalls,
 * non-Status errors, dropped connections — that a real one does not produce on demand. Every
 * request is recorded; `handle` sets what the next ones get.
 */
export class TestServer {
  readonly requests: RecordedRequest[] = [];
  private handler: Handler = (_req, res) => {
    res.statusCode = 404;
    res.end();
  };
  private readonly sockets = new Set<Socket>();
  private upgradeHandler: UpgradeHandler | undefined;
  private server!: Server | ReturnType<typeof createSecureServer>;
  port = 0;

  private constructor(private readonly options: TestServerOptions) {}

  static async start(options: TestServerOptions = {}): Promise<TestServer> {
    const s = new TestServer(options);
    await s.listen(options.port ?? 0);
    return s;
  }

  get url(): string {
    return `${this.options.tls ? 'https' : 'http'}://127.0.0.1:${this.port}`;
  }

  handle(handler: Handler): void {
    this.handler = handler;
  }

  onUpgrade(handler: UpgradeHandler): void {
    this.upgradeHandler = handler;
  }

  /** Listens again on the same port after `close` (a restarted apiserver). */
  async listen(port = this.port): Promise<void> {
    const onRequest = (
      req: IncomingMessage | Http2ServerRequest,
      res: ServerResponse | Http2ServerResponse,
    ): void => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const socket = req.socket as TLSSocket;
        const peer =
          typeof socket.getPeerCertificate === 'function' ? socket.getPeerCertificate() : undefined;
        const recorded: RecordedRequest = {
          method: req.method ?? '',
          url: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          protocol: req.httpVersion === '2.0' ? 'h2' : 'http/1.1',
          ...(peer?.subject?.CN ? { clientCN: String(peer.subject.CN) } : {}),
          clientPort: socket.remotePort ?? 0,
        };
        this.requests.push(recorded);
        void Promise.resolve(this.handler(recorded, res as ServerResponse)).catch(() =>
          res.destroy(),
        );
      });
    };
    const tls = this.options.tls;
    if (tls && this.options.http2) {
      this.server = createSecureServer(
        {
          cert: tls.cert,
          key: tls.key,
          allowHTTP1: true,
          ...(tls.ca ? { ca: tls.ca } : {}),
          requestCert: tls.requestCert ?? false,
          rejectUnauthorized: false,
        },
        onRequest,
      );
    } else if (tls) {
      this.server = createHttpsServer(
        {
          cert: tls.cert,
          key: tls.key,
          ...(tls.ca ? { ca: tls.ca } : {}),
          requestCert: tls.requestCert ?? false,
          rejectUnauthorized: false,
        },
        onRequest,
      );
    } else {
      this.server = createHttpServer(onRequest);
    }
    const track = (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    };
    this.server.on('upgrade', (req: IncomingMessage, socket: Duplex) => {
      if (this.upgradeHandler) this.upgradeHandler(req, socket);
      else socket.destroy();
    });
    this.server.on('connection', track);
    this.server.on('secureConnection', track);
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => resolve());
    });
    this.port = (this.server.address() as AddressInfo).port;
  }

  /** Cuts every open connection (a crashed server), leaving the port listening. */
  dropConnections(): void {
    for (const socket of this.sockets) socket.destroy();
  }

  async close(): Promise<void> {
    this.dropConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Replies with a JSON body. */
export function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** A Status body for `code`. */
export function statusBody(
  code: number,
  reason: string,
  message: string,
  details?: Record<string, unknown>,
): unknown {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    code,
    reason,
    message,
    ...(details ? { details } : {}),
  };
}

/** Completes a WebSocket handshake (RFC 6455 §4.2.2), selecting `protocol` if given. */
export function acceptWebSocket(req: IncomingMessage, socket: Duplex, protocol?: string): void {
  const key = String(req.headers['sec-websocket-key'] ?? '');
  const accept = createHash('sha1')
    .update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`)
    .digest('base64');
  socket.write(
    `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n${protocol ? `Sec-WebSocket-Protocol: ${protocol}\r\n` : ''}\r\n`,
  );
}

/** One unmasked server frame: text (0x1), binary (0x2) or close (0x8). */
export function webSocketFrame(opcode: 1 | 2 | 8, payload: Uint8Array): Buffer {
  const len = payload.length;
  const head =
    len < 126
      ? Buffer.from([0x80 | opcode, len])
      : len < 65536
        ? Buffer.from([0x80 | opcode, 126, len >> 8, len & 255])
        : (() => {
            const b = Buffer.alloc(10);
            b[0] = 0x80 | opcode;
            b[1] = 127;
            b.writeBigUInt64BE(BigInt(len), 2);
            return b;
          })();
  return Buffer.concat([head, payload]);
}

/** A close frame with a status code. */
export function webSocketClose(code: number): Buffer {
  const payload = Buffer.alloc(2);
  payload.writeUInt16BE(code);
  return webSocketFrame(8, payload);
}

/** Starts a streamed response and sends its headers at once (a watch's first flush). */
export function startStream(res: ServerResponse, contentType = 'application/json'): void {
  res.writeHead(200, { 'content-type': contentType });
  res.flushHeaders();
}

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'proxy-connection',
  'te',
  'trailer',
]);

/**
 * A Handler forwarding to `target` (a real apiserver), streaming the response: lets a test put
 * scripted faults in front of a real server for some requests and pass the others through.
 */
export function proxyTo(target: string): Handler {
  return async (req, res) => {
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(
        ([k, v]) => v !== undefined && !HOP_BY_HOP.has(k) && k !== 'host' && !k.startsWith(':'),
      ),
    ) as Record<string, string>;
    const { request } = await import('undici');
    const upstream = await request(new URL(req.url, target), {
      method: req.method as 'GET',
      headers,
      ...(req.body ? { body: req.body } : {}),
      bodyTimeout: 0,
    });
    const out = Object.fromEntries(
      Object.entries(upstream.headers).filter(([k]) => !HOP_BY_HOP.has(k)),
    );
    res.writeHead(upstream.statusCode, out);
    res.flushHeaders();
    res.on('close', () => upstream.body.destroy());
    try {
      for await (const chunk of upstream.body) res.write(chunk as Buffer);
      res.end();
    } catch {
      res.destroy();
    }
  };
}
