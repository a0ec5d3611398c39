import type { IncomingHttpHeaders } from 'node:http';
import type { UserInfo } from '../authentication/user.js';
import { requestAttributes } from '../authorization/attributes.js';
import {
  auditStatus,
  auditUser,
  microTime,
  nowMicros,
  objectRef,
  sourceIPs,
  userAgent,
  type AuditEvent,
  type AuditStage,
  type AuditStatus,
} from './audit-event.js';
import type { AuditSink } from './audit-log.js';
import {
  auditDecision,
  METADATA_POLICY,
  type AuditDecision,
  type AuditPolicy,
} from './audit-policy.js';

/** What the audit of one request needs to know of it. */
export interface AuditedRequest {
  auditID: string;
  /** When the request arrived, in microseconds since the epoch. */
  receivedAt: number;
  method: string;
  /** The request-target as sent: path and query. */
  url: string;
  headers: IncomingHttpHeaders;
  remoteAddress: string | undefined;
  /** Who sent it; undefined when authentication failed. */
  user: UserInfo | undefined;
}

/** The status of a long-running request whose client left before any answer (audit.go). */
const CLOSED_EARLY: AuditStatus = {
  metadata: {},
  status: 'Success',
  message: 'Connection closed early',
  code: 200,
};

/**
 * The audit event of one request, written at each stage it reaches (k8s.io/apiserver
 * endpoints/filters/audit.go): RequestReceived once authenticated, ResponseStarted when a
 * long-running request (a watch) sends its headers, then ResponseComplete, or Panic.
 */
export class RequestAudit {
  private readonly event: AuditEvent;
  /** The policy's level and omitted stages for this request. */
  readonly decision: AuditDecision;
  private started = false;
  private ended = false;

  constructor(
    private readonly sink: AuditSink,
    request: AuditedRequest,
    policy: AuditPolicy = METADATA_POLICY,
  ) {
    const url = new URL(request.url, 'http://localhost');
    const attributes = requestAttributes(
      request.user ?? { name: '', groups: [] },
      request.method,
      url.pathname,
      url.searchParams,
    );
    this.decision = auditDecision(policy, attributes);
    const received = microTime(request.receivedAt);
    const ref = objectRef(url.pathname);
    const agent = userAgent(request.headers);
    const ips = sourceIPs(request.headers, request.remoteAddress);
    this.event = {
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level: this.decision.level === 'None' ? 'Metadata' : this.decision.level,
      auditID: request.auditID,
      stage: 'RequestReceived',
      requestURI: request.url,
      verb: attributes.verb,
      user: request.user ? auditUser(request.user) : {},
      ...(ips.length ? { sourceIPs: ips } : {}),
      ...(agent ? { userAgent: agent } : {}),
      ...(ref ? { objectRef: ref } : {}),
      requestReceivedTimestamp: received,
      stageTimestamp: received,
    };
  }

  get auditID(): string {
    return this.event.auditID;
  }

  /** An annotation of the event (authorization.k8s.io/decision, /reason). */
  annotate(key: string, value: string): void {
    this.event.annotations = { ...this.event.annotations, [key]: value };
  }

  /** The user a request runs as after impersonation; `user` stays the requester. */
  impersonate(user: UserInfo): void {
    this.event.impersonatedUser = auditUser(user);
  }

  /** Whether the policy logs the request's object (level Request and above). */
  get logsRequestObject(): boolean {
    return this.decision.level === 'Request' || this.decision.level === 'RequestResponse';
  }

  /** Whether the policy logs the response's object (level RequestResponse). */
  get logsResponseObject(): boolean {
    return this.decision.level === 'RequestResponse';
  }

  /** The objects of the request and its response, as the policy's level allows. */
  objects(request: unknown, response: unknown): void {
    if (this.logsRequestObject && request !== undefined) this.event.requestObject = request;
    if (this.logsResponseObject && response !== undefined) this.event.responseObject = response;
  }

  private emit(stage: AuditStage, status?: AuditStatus): boolean {
    if (status) this.event.responseStatus = status;
    // Level None, or a stage the policy omits: nothing is written, and nothing fails.
    if (this.decision.level === 'None' || this.decision.omitStages.includes(stage)) return true;
    this.event.stage = stage;
    this.event.stageTimestamp =
      stage === 'RequestReceived' ? this.event.requestReceivedTimestamp : microTime(nowMicros());
    return this.sink.process(this.event);
  }

  /** The answer's status, once known (before its headers are sent, as LogResponseObject). */
  respond(status: AuditStatus): void {
    this.event.responseStatus = status;
  }

  /** RequestReceived; false when the sink could not store it (the request must then fail). */
  received(): boolean {
    return this.emit('RequestReceived');
  }

  /** ResponseStarted, once, when a long-running request sends its status line. */
  responseStarted(code: number): void {
    if (this.started || this.ended) return;
    this.started = true;
    this.emit('ResponseStarted', { ...this.event.responseStatus, metadata: {}, code });
  }

  /**
   * ResponseComplete with the answer's status (a long-running request that never answered gets
   * a ResponseStarted first, both "Connection closed early").
   */
  complete(status: AuditStatus | undefined, longRunning: boolean): void {
    if (this.ended) return;
    if (longRunning && !this.started && !this.event.responseStatus) {
      this.started = true;
      this.emit('ResponseStarted', CLOSED_EARLY);
    }
    this.ended = true;
    this.emit('ResponseComplete', status ?? this.event.responseStatus ?? CLOSED_EARLY);
  }

  /** Panic: the request failed on a bug, not on anything the client sent. */
  panic(error: unknown): void {
    if (this.ended) return;
    this.ended = true;
    const message = error instanceof Error ? error.message : String(error);
    this.emit(
      'Panic',
      auditStatus({
        code: 500,
        status: 'Failure',
        reason: 'InternalError',
        message: `APIServer panic'd: ${message}`,
      }),
    );
  }

  /** A credential that failed: one event, at ResponseStarted (WithFailedAuthenticationAudit). */
  failedAuthentication(message: string, code: number): void {
    this.started = this.ended = true;
    this.emit('ResponseStarted', { metadata: {}, message, code });
  }
}
