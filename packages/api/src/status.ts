import type { ListMeta } from './object-meta.js';

/** Machine-readable reasons a Status carries (metav1.StatusReason). */
export type StatusReason =
  | ''
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Invalid'
  | 'ServerTimeout'
  | 'StoreReadError'
  | 'Timeout'
  | 'TooManyRequests'
  | 'BadRequest'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'RequestEntityTooLarge'
  | 'UnsupportedMediaType'
  | 'InternalError'
  | 'Expired'
  | 'ServiceUnavailable';

/** metav1.CauseType values used here; any string is allowed on the wire. */
export type CauseType =
  | 'FieldValueNotFound'
  | 'FieldValueRequired'
  | 'FieldValueDuplicate'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'FieldValueTypeInvalid'
  | 'UnexpectedServerResponse'
  | 'FieldManagerConflict'
  | 'ResourceVersionTooLarge'
  | (string & {});

export interface StatusCause {
  reason?: CauseType;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/** metav1.Status: the body of every error response and of ERROR watch events. */
export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: ListMeta;
  status: 'Success' | 'Failure';
  message?: string;
  reason?: StatusReason;
  details?: StatusDetails;
  code: number;
}

export function isStatus(value: unknown): value is Status {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { kind?: unknown }).kind === 'Status' &&
    typeof (value as { code?: unknown }).code === 'number'
  );
}

/** What a Status says besides its fixed TypeMeta: what `statusOf` builds one from. */
export type StatusFields = Omit<Status, 'kind' | 'apiVersion' | 'metadata' | 'status'> & {
  metadata?: ListMeta;
  status?: Status['status'];
};

/**
 * The one builder of a Status: its fields in metav1.Status's struct order, as Go's
 * encoding/json writes them (types.go: kind, apiVersion, metadata, status, message, reason,
 * details, code; ListMeta, StatusDetails and StatusCause in theirs), and empty ones left out as
 * `omitempty` does. Clients compare the text (the Python client's e2e suite does), so every
 * Status on the wire goes through here: errors, delete replies, watch ERROR events, WebSocket
 * refusals. Rebuilding costs one small object, and a Status changed after it was built (details
 * added to an error) still leaves in order.
 */
export function statusOf(fields: StatusFields): Status {
  const status: Record<string, unknown> = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: listMetaOf(fields.metadata),
  };
  if (fields.status) status['status'] = fields.status;
  if (fields.message) status['message'] = fields.message;
  if (fields.reason) status['reason'] = fields.reason;
  if (fields.details) status['details'] = detailsOf(fields.details);
  if (fields.code) status['code'] = fields.code;
  return status as unknown as Status;
}

function listMetaOf(meta: ListMeta | undefined): ListMeta {
  const out: ListMeta = {};
  if (!meta) return out;
  if (meta.selfLink) out.selfLink = meta.selfLink;
  if (meta.resourceVersion) out.resourceVersion = meta.resourceVersion;
  if (meta.continue) out.continue = meta.continue;
  if (meta.remainingItemCount !== undefined) out.remainingItemCount = meta.remainingItemCount;
  return out;
}

function detailsOf(details: StatusDetails): StatusDetails {
  const out: StatusDetails = {};
  if (details.name) out.name = details.name;
  if (details.group) out.group = details.group;
  if (details.kind) out.kind = details.kind;
  if (details.uid) out.uid = details.uid;
  if (details.causes?.length) out.causes = details.causes.map(causeOf);
  if (details.retryAfterSeconds) out.retryAfterSeconds = details.retryAfterSeconds;
  return out;
}

function causeOf(cause: StatusCause): StatusCause {
  const out: StatusCause = {};
  if (cause.reason) out.reason = cause.reason;
  if (cause.message) out.message = cause.message;
  if (cause.field) out.field = cause.field;
  return out;
}

/** A Success Status (e.g. the reply to a delete that finished at once; a binding's 201). */
export function successStatus(details?: StatusDetails, code = 200): Status {
  return statusOf({ status: 'Success', ...(details ? { details } : {}), code });
}
