import { ApiError, statusOf, toApiError, type Verb } from '@listwatch/api';
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { BEARER_PROTOCOL_PREFIX } from '../authentication/request-authenticator.js';
import { isAnonymous } from '../authentication/user.js';
import { AUDIT_ID_HEADER, auditStatus, nowMicros } from '../audit/audit-event.js';
import { RequestAudit } from '../audit/request-audit.js';
import { requestAttributes, type Attributes } from '../authorization/attributes.js';
import { forbidden } from '../authorization/request-authorizer.js';
import {
  annotateAuthorization,
  auditedRequest,
  auditIdOf,
  authMethods,
} from '../middleware/audit.js';
import { checkRoute } from '../handlers/routes.js';
import { openWatch, type OpenWatch } from '../handlers/watch.js';
import { parseRequestInfo } from '../request/request-info.js';
import type { ServerContext } from '../server-context.js';

/** What ws accepts as a Sec-WebSocket-Key: a base64 16-byte nonce. */
const RFC_KEY = /^[+/0-9A-Za-z]{22}==$/;
const PLACEHOLDER_KEY = 'AAAAAAAAAAAAAAAAAAAAAA==';

/** Sec-WebSocket-Accept for a key (RFC 6455 §4.2.2). */
function acceptKey(key: string): string {
  return createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
}

/** Key characters: base64 text. Its length is not checked, as golang.org/x/net/websocket does not. */
const KEY_CHARS = /^[+/0-9A-Za-z]+={0,2}$/;

/** RFC 6455 §4.2.1: version 13 and a key are required; anything else is 400. */
function checkHandshake(req: IncomingMessage): void {
  const version = req.headers['sec-websocket-version'];
  if (version?.trim() !== '13')
    throw ApiError.badRequest(
      `unsupported WebSocket version ${JSON.stringify(version ?? '')}: only 13 is`,
    );
  const key = req.headers['sec-websocket-key']?.trim();
  if (!key || !KEY_CHARS.test(key))
    throw ApiError.badRequest('Sec-WebSocket-Key must be a base64 nonce');
}

/** Answers a failed upgrade with a plain HTTP Status response (kube does the same). */
function reject(socket: Duplex, error: ApiError, auditID: string, audit?: RequestAudit): void {
  const body = `${JSON.stringify(statusOf(error.status))}\n`;
  const reason = error.status.reason || 'Error';
  audit?.respond(auditStatus(error.status));
  audit?.responseStarted(error.code);
  socket.end(
    `HTTP/1.1 ${error.code} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${AUDIT_ID_HEADER}: ${auditID}\r\nConnection: close\r\n\r\n${body}`,
  );
  audit?.complete(auditStatus(error.status), true);
}

/**
 * WATCH over WebSocket on the same URL (Upgrade: websocket): one message per event — JSON in text
 * frames with the trailing newline, CBOR in binary frames. An Origin header is required; what the
 * client sends is ignored. Browsers may carry a bearer token as a subprotocol.
 */
export function webSocketWatch(
  server: ServerContext,
): (req: IncomingMessage, socket: Duplex, head: Buffer) => void {
  const wss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    handleProtocols: (protocols) => {
      const plain = [...protocols].find((p) => !p.startsWith(BEARER_PROTOCOL_PREFIX));
      return plain ?? [...protocols][0] ?? false;
    },
  });
  // Keys that are not RFC 6455 nonces (a curl upgrade typed by hand sends `Sec-WebSocket-Key: xxx`,
  // e2e/curl.e2e.test.ts): kube's golang.org/x/net/websocket only requires a non-empty key, while
  // ws refuses them. Such a key is swapped for a valid one for ws, and the accept header is
  // computed from the original.
  const originalKeys = new WeakMap<IncomingMessage, string>();
  // The Audit-Id of each upgrade, echoed in its 101 (audit_init.go), and its audit event.
  const audits = new WeakMap<IncomingMessage, { id: string; audit?: RequestAudit }>();
  wss.on('headers', (headers: string[], req: IncomingMessage) => {
    const audited = audits.get(req);
    if (audited) {
      headers.push(`${AUDIT_ID_HEADER}: ${audited.id}`);
      audited.audit?.responseStarted(101);
    }
    const key = originalKeys.get(req);
    if (key === undefined) return;
    const i = headers.findIndex((h) => h.toLowerCase().startsWith('sec-websocket-accept:'));
    if (i >= 0) headers[i] = `Sec-WebSocket-Accept: ${acceptKey(key)}`;
  });
  return (req, socket, head) => {
    const auditID = auditIdOf(req);
    const receivedAt = nowMicros();
    try {
      checkHandshake(req);
    } catch (err) {
      reject(socket, toApiError(err), auditID);
      return;
    }
    const key = req.headers['sec-websocket-key'];
    if (typeof key === 'string' && key.trim() !== '' && !RFC_KEY.test(key.trim())) {
      originalKeys.set(req, key.trim());
      req.headers['sec-websocket-key'] = PLACEHOLDER_KEY;
    }
    void (async () => {
      let watch: OpenWatch;
      let resource: string;
      let attributes: Attributes;
      let release: (() => void) | undefined;
      let audit: RequestAudit | undefined;
      try {
        if (!req.headers.origin)
          throw ApiError.forbidden(
            { resource: 'watch' },
            '',
            'an Origin header is required for WebSocket watches',
          );
        const user = await server.authenticator.authenticate(req);
        if (server.audit) {
          audit = new RequestAudit(
            server.audit,
            auditedRequest(req, auditID, receivedAt, user),
            server.auditPolicy,
          );
          if (!audit.received())
            throw new ApiError({
              code: 500,
              reason: 'InternalError',
              message: 'failed to store audit event',
            });
        }
        if (isAnonymous(user)) server.hostFilter.check(req.headers);
        // Only watches reach here (isWebSocketUpgrade): their attributes are a watch's.
        const url = new URL(req.url ?? '/', 'http://localhost');
        attributes = requestAttributes(user, 'GET', url.pathname, url.searchParams);
        const decision = server.authorizer.decide(attributes);
        if (audit) annotateAuthorization({ audit }, decision);
        if (decision.decision !== 'allow') throw forbidden(attributes, decision.reason);
        const info = parseRequestInfo(url.pathname);
        const entry = info && server.registry.lookup(info.group, info.version, info.resource);
        if (!info || !entry) throw ApiError.pathNotFound();
        checkRoute(entry.store, info, attributes.verb as Verb);
        resource = entry.definition.plural;
        if (server.shuttingDown)
          throw ApiError.tooManyRequests(
            'The apiserver is shutting down, please try again later.',
            1,
          );
        const query = url.searchParams;
        release = server.watchLimiter.acquire(user.name);
        watch = await openWatch(server, info, entry, query, req.headers.accept, attributes);
      } catch (err) {
        release?.();
        const error = toApiError(err);
        if (server.audit && !audit && error.code === 401)
          new RequestAudit(
            server.audit,
            auditedRequest(req, auditID, receivedAt, undefined),
            server.auditPolicy,
          ).failedAuthentication(authMethods(req), error.code);
        reject(socket, error, auditID, audit);
        return;
      }
      audits.set(req, { id: auditID, ...(audit ? { audit } : {}) });
      socket.once('close', () => {
        release?.();
        audit?.complete(auditStatus({ code: 101 }), true);
      });
      wss.handleUpgrade(req, socket, head, (ws) => {
        server.metrics.watches.inc({ resource, transport: 'websocket' });
        const untrack = server.authorizer.track(attributes, () => watch.watcher.end('closed'));
        void pump(ws, watch).finally(() => {
          untrack();
          server.metrics.watches.dec({ resource, transport: 'websocket' });
        });
      });
    })();
  };
}

async function pump(ws: WebSocket, watch: OpenWatch): Promise<void> {
  const { watcher, codec } = watch;
  ws.on('close', () => watcher.end('closed'));
  ws.on('message', () => undefined);
  let first = true;
  for (;;) {
    const batch = await watcher.nextBatch();
    if (batch === null || ws.readyState !== ws.OPEN) break;
    await new Promise<void>((resolve) => {
      let pending = batch.length;
      for (const event of batch) {
        const message = watch.encodedOf(event).webSocketMessage(codec.encoding, watch.view(first));
        first = false;
        ws.send(message.data, { binary: message.binary }, () => {
          if (--pending === 0) resolve();
        });
      }
    });
  }
  watcher.end('closed');
  if (ws.readyState === ws.OPEN) ws.close(1000);
}
