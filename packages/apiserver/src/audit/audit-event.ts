import { formatRfc3339, type Status } from '@listwatch/api';
import { isIP } from 'node:net';
import type { IncomingHttpHeaders } from 'node:http';
import type { UserInfo } from '../authentication/user.js';
import { parseRequestInfo } from '../request/request-info.js';

// The audit.k8s.io/v1 Event of k8s.io/apiserver pkg/apis/audit/v1/types.go: who asked for what
// and the answer's status; at level Request the request's object, at RequestResponse the
// response's too.

export type AuditStage = 'RequestReceived' | 'ResponseStarted' | 'ResponseComplete' | 'Panic';

/** authentication/v1 UserInfo. */
export interface AuditUser {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface AuditObjectReference {
  resource?: string;
  namespace?: string;
  name?: string;
  apiGroup?: string;
  apiVersion?: string;
  subresource?: string;
}

/** A metav1.Status as audit events carry it: no TypeMeta, `metadata: {}`. */
export type AuditStatus = { metadata: Record<string, never>; code: number } & Partial<
  Pick<Status, 'status' | 'message' | 'reason' | 'details'>
>;

export interface AuditEvent {
  kind: 'Event';
  apiVersion: 'audit.k8s.io/v1';
  level: 'Metadata' | 'Request' | 'RequestResponse';
  auditID: string;
  stage: AuditStage;
  requestURI: string;
  verb: string;
  user: AuditUser;
  impersonatedUser?: AuditUser;
  sourceIPs?: string[];
  userAgent?: string;
  objectRef?: AuditObjectReference;
  responseStatus?: AuditStatus;
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string>;
  requestObject?: unknown;
  responseObject?: unknown;
}

/** The audit event header; the Audit-Id response header echoes it (audit_init.go). */
export const AUDIT_ID_HEADER = 'Audit-Id';

/** authorization.k8s.io/decision and /reason, as the authorization filter annotates events. */
export const DECISION_ANNOTATION = 'authorization.k8s.io/decision';
export const REASON_ANNOTATION = 'authorization.k8s.io/reason';

/** The current time in microseconds since the epoch. */
export function nowMicros(): number {
  return Math.round((performance.timeOrigin + performance.now()) * 1000);
}

/** metav1.MicroTime: RFC 3339 with six fractional digits, UTC. */
export function microTime(micros: number): string {
  return formatRfc3339({ ms: Math.floor(micros / 1000), micros: micros % 1000 }, true);
}

export function auditUser(user: UserInfo): AuditUser {
  return {
    username: user.name,
    ...(user.uid ? { uid: user.uid } : {}),
    ...(user.groups.length ? { groups: [...user.groups] } : {}),
    ...(user.extra && Object.keys(user.extra).length
      ? { extra: Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]])) }
      : {}),
  };
}

/** A remote address without the IPv4-mapped prefix (`::ffff:127.0.0.1` is 127.0.0.1). */
function plainIp(address: string | undefined): string | undefined {
  if (!address) return undefined;
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

function header(headers: IncomingHttpHeaders, name: string): string {
  const value = headers[name];
  return Array.isArray(value) ? value.join(',') : (value ?? '');
}

/**
 * Where a request came from (k8s.io/apimachinery util/net SourceIPs): X-Forwarded-For, then
 * X-Real-Ip unless listed, then the connection's address unless it is the last one listed. Only
 * the last can be trusted; the others are whatever the client sent, and only valid IPs count.
 */
export function sourceIPs(
  headers: IncomingHttpHeaders,
  remoteAddress: string | undefined,
): string[] {
  const ips = header(headers, 'x-forwarded-for')
    .split(',')
    .map((ip) => ip.trim())
    .filter((ip) => isIP(ip) !== 0);
  const real = header(headers, 'x-real-ip').trim();
  if (isIP(real) !== 0 && !ips.includes(real)) ips.push(real);
  const remote = plainIp(remoteAddress);
  if (remote && ips[ips.length - 1] !== remote) ips.push(remote);
  return ips;
}

const MAX_USER_AGENT = 1024;

/** The User-Agent, cut to 1024 bytes as maybeTruncateUserAgent does. */
export function userAgent(headers: IncomingHttpHeaders): string {
  const agent = header(headers, 'user-agent');
  return agent.length > MAX_USER_AGENT ? `${agent.slice(0, MAX_USER_AGENT)}...TRUNCATED` : agent;
}

/** The object a resource request names (LogRequestMetadata's ObjectRef); none for other paths. */
export function objectRef(path: string): AuditObjectReference | undefined {
  const info = parseRequestInfo(path);
  if (!info) return undefined;
  return {
    resource: info.resource,
    ...(info.namespace ? { namespace: info.namespace } : {}),
    ...(info.name ? { name: info.name } : {}),
    ...(info.group ? { apiGroup: info.group } : {}),
    apiVersion: info.version,
    ...(info.subresource ? { subresource: info.subresource } : {}),
  };
}

/** A Status as audit events carry it: its code, reason, message and details, no TypeMeta. */
export function auditStatus(status: Partial<Status> & { code: number }): AuditStatus {
  return {
    metadata: {},
    ...(status.status ? { status: status.status } : {}),
    ...(status.message ? { message: status.message } : {}),
    ...(status.reason ? { reason: status.reason } : {}),
    ...(status.details ? { details: status.details } : {}),
    code: status.code,
  };
}
