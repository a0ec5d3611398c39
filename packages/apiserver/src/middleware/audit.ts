import { ApiError, toApiError } from '@listwatch/api';
import type Koa from 'koa';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import type { TLSSocket } from 'node:tls';
import {
  AUDIT_ID_HEADER,
  auditStatus,
  DECISION_ANNOTATION,
  nowMicros,
  REASON_ANNOTATION,
} from '../audit/audit-event.js';
import type { AuditSink } from '../audit/audit-log.js';
import { RequestAudit } from '../audit/request-audit.js';
import type { UserInfo } from '../authentication/user.js';
import type { Authorization } from '../authorization/authorizer.js';
import { bodyIfRead, ClientClosedRequest } from '../handlers/body.js';
import type { ServerContext } from '../server-context.js';
import { isLongRunning } from './limits.js';
import { atEnd } from './request-end.js';

// Audit logging as k8s.io/apiserver's filters do it: audit_init.go (the Audit-Id header),
// authn_audit.go (failed credentials), audit.go (the stages) and authorization.go (annotations).

type Request = IncomingMessage | Http2ServerRequest;
type Response = ServerResponse | Http2ServerResponse;

/** The audit of the current request, when audit logging is on. */
export function auditOf(state: Record<string, unknown>): RequestAudit | undefined {
  const audit = state['audit'];
  return audit instanceof RequestAudit ? audit : undefined;
}

/** authorization.go's annotations: allow or forbid, and the authorizer's reason. */
export function annotateAuthorization(state: Record<string, unknown>, result: Authorization): void {
  const audit = auditOf(state);
  audit?.annotate(DECISION_ANNOTATION, result.decision === 'allow' ? 'allow' : 'forbid');
  audit?.annotate(REASON_ANNOTATION, result.reason);
}

/** The request's Audit-ID: the one the client sent, as is, or a new UUID (audit_init.go). */
export function auditIdOf(req: Request): string {
  const given = req.headers['audit-id'];
  const id = Array.isArray(given) ? given[0] : given;
  return id || randomUUID();
}

/** What a failed request tried to authenticate with (authn_audit.go getAuthMethods). */
export function authMethods(req: Request): string {
  const methods: string[] = [];
  const authorization = (req.headers.authorization ?? '').trim();
  if (/^basic\s/i.test(authorization)) methods.push('basic');
  const parts = authorization.split(' ');
  if (parts.length > 1 && parts[0]!.toLowerCase() === 'bearer') methods.push('bearer');
  const query = new URL(req.url ?? '/', 'http://localhost').searchParams;
  if ((query.get('access_token') ?? '').trim()) methods.push('access_token');
  const socket = req.socket as Partial<TLSSocket>;
  const cert = typeof socket.getPeerCertificate === 'function' ? socket.getPeerCertificate() : {};
  if (cert && Object.keys(cert).length > 0) methods.push('x509');
  return methods.length
    ? `Authentication failed, attempted: ${methods.join(', ')}`
    : 'Authentication failed, no credentials provided';
}

export function auditedRequest(
  req: Request,
  auditID: string,
  receivedAt: number,
  user: UserInfo | undefined,
) {
  return {
    auditID,
    receivedAt,
    method: req.method ?? 'GET',
    url: req.url ?? '/',
    headers: req.headers,
    remoteAddress: req.socket.remoteAddress,
    user,
  };
}

/**
 * First in the chain, before authentication: the Audit-Id response header on every answer, and
 * the audit event of a request whose credential failed (401).
 */
export function auditInit(server: ServerContext): Koa.Middleware {
  return (ctx, next) => {
    const auditID = auditIdOf(ctx.req);
    const receivedAt = nowMicros();
    ctx.set(AUDIT_ID_HEADER, auditID);
    ctx.state['auditID'] = auditID;
    ctx.state['receivedAt'] = receivedAt;
    return atEnd(ctx, next, (failure) => {
      if (!failure) return;
      const err = failure.error;
      const sink = server.audit;
      if (sink && !auditOf(ctx.state) && err instanceof ApiError && err.code === 401) {
        const request = auditedRequest(ctx.req, auditID, receivedAt, undefined);
        new RequestAudit(sink, request, server.auditPolicy).failedAuthentication(
          authMethods(ctx.req),
          err.code,
        );
      }
      throw err;
    });
  };
}

/** Calls `listener` with the status code when the response's headers are written. */
function onResponseStarted(res: Response, listener: (code: number) => void): void {
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => unknown;
  const wrapped = (...args: unknown[]): unknown => {
    listener(typeof args[0] === 'number' ? args[0] : res.statusCode);
    return writeHead(...args);
  };
  res.writeHead = wrapped as typeof res.writeHead;
}

/** A JSON value, or undefined for anything else (YAML, CBOR, protobuf, a stream). */
function parsedJson(contentType: string, body: unknown): unknown {
  if (!/json/i.test(contentType)) return undefined;
  const text = Buffer.isBuffer(body)
    ? body.toString('utf8')
    : typeof body === 'string'
      ? body
      : undefined;
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The request's object as it was sent (LogRequestObject), when the body was JSON. */
function requestObject(ctx: Koa.Context): unknown {
  const body = bodyIfRead(ctx.req);
  return body && parsedJson(ctx.get('content-type'), body);
}

/** The response's object (LogResponseObject): a JSON object answered whole, not a stream. */
function responseObject(ctx: Koa.Context): unknown {
  return parsedJson(String(ctx.response.get('content-type')), ctx.body);
}

function syncImpersonation(audit: RequestAudit, state: Record<string, unknown>): void {
  if (typeof state['impersonatedBy'] === 'string') audit.impersonate(state['user'] as UserInfo);
}

/**
 * After authentication: RequestReceived, ResponseStarted for watches, then ResponseComplete
 * once the response is sent, or Panic for a failure that is a bug. A RequestReceived that
 * cannot be stored fails the request: nothing is served unaudited.
 */
export function audit(server: ServerContext): Koa.Middleware {
  return async (ctx, next) => {
    const sink: AuditSink | undefined = server.audit;
    if (!sink) {
      await next();
      return;
    }
    const request = auditedRequest(
      ctx.req,
      ctx.state['auditID'] as string,
      ctx.state['receivedAt'] as number,
      ctx.state['user'] as UserInfo,
    );
    const record = new RequestAudit(sink, request, server.auditPolicy);
    ctx.state['audit'] = record;
    if (!record.received())
      throw new ApiError({
        code: 500,
        reason: 'InternalError',
        message: 'failed to store audit event',
      });
    const longRunning = isLongRunning(ctx);
    if (longRunning)
      onResponseStarted(ctx.res, (code) => {
        syncImpersonation(record, ctx.state);
        record.responseStarted(code);
      });
    return atEnd(ctx, next, (failed) => {
      const failure = failed?.error;
      if (failure instanceof ApiError) record.respond(auditStatus(failure.status));
      const finish = () => {
        syncImpersonation(record, ctx.state);
        if (record.logsRequestObject) record.objects(requestObject(ctx), responseObject(ctx));
        if (failed && !(failure instanceof ApiError)) {
          if (failure instanceof ClientClosedRequest) record.complete(undefined, longRunning);
          else record.panic(failure);
          return;
        }
        const status = failed
          ? auditStatus(toApiError(failure).status)
          : auditStatus({ code: ctx.res.statusCode });
        record.complete(status, longRunning);
      };
      if (ctx.res.writableFinished || ctx.res.destroyed) finish();
      else ctx.res.once('close', finish);
      if (failed) throw failure;
    });
  };
}
