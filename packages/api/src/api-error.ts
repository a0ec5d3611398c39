import { aggregateMessage, fieldErrorBody, type FieldError } from './field-error.js';
import { groupResourceString as qualified, type GroupResource } from './group-resource.js';
import { statusOf, type Status, type StatusDetails, type StatusReason } from './status.js';

/** apimachinery errors.NewGenericServerResponse's words for a bare 404 and 405. */
export const PATH_NOT_FOUND_MESSAGE = 'the server could not find the requested resource';
export const METHOD_NOT_ALLOWED_MESSAGE =
  'the server does not allow this method on the requested resource';

function kindDetails(gr: GroupResource, name: string): StatusDetails {
  return { name, ...(gr.group ? { group: gr.group } : {}), kind: gr.resource };
}

/**
 * The one error type of listwatch: every failure, from a selector parser to etcd, carries the
 * Kubernetes Status it becomes on the wire. Constructors mirror k8s.io/apimachinery's
 * `errors.New*` so codes, reasons and messages match what Kubernetes clients expect.
 */
export class ApiError extends Error {
  readonly status: Status;

  constructor(
    status: Omit<Status, 'kind' | 'apiVersion' | 'metadata' | 'status'>,
    options?: { cause?: unknown },
  ) {
    super(status.message ?? status.reason ?? `HTTP ${status.code}`, options);
    this.name = 'ApiError';
    this.status = statusOf({ status: 'Failure', ...status });
  }

  get code(): number {
    return this.status.code;
  }

  get reason(): StatusReason {
    return this.status.reason ?? '';
  }

  get retryAfterSeconds(): number | undefined {
    return this.status.details?.retryAfterSeconds;
  }

  /** Rebuilds the error from a Status read off the wire (a response body or an ERROR event). */
  static fromStatus(status: Status): ApiError {
    const { kind: _k, apiVersion: _a, metadata: _m, status: _s, ...rest } = status;
    const err = new ApiError(rest);
    if (status.metadata.continue !== undefined) err.status.metadata = { ...status.metadata };
    return err;
  }

  static badRequest(message: string): ApiError {
    return new ApiError({ code: 400, reason: 'BadRequest', message });
  }

  static unauthorized(message = 'Unauthorized'): ApiError {
    return new ApiError({ code: 401, reason: 'Unauthorized', message });
  }

  static forbidden(gr: GroupResource, name: string, why: string): ApiError {
    const subject = name ? `${qualified(gr)} "${name}"` : qualified(gr);
    return new ApiError({
      code: 403,
      reason: 'Forbidden',
      message: `${subject} is forbidden: ${why}`,
      details: kindDetails(gr, name),
    });
  }

  static notFound(gr: GroupResource, name: string): ApiError {
    return new ApiError({
      code: 404,
      reason: 'NotFound',
      message: `${qualified(gr)} "${name}" not found`,
      details: kindDetails(gr, name),
    });
  }

  /** go-restful's 405 as kube-apiserver writes it (NewGenericServerResponse: empty details). */
  static methodNotAllowed(message = METHOD_NOT_ALLOWED_MESSAGE): ApiError {
    return new ApiError({ code: 405, reason: 'MethodNotAllowed', message, details: {} });
  }

  /**
   * The 404 of a path nothing serves: an unknown group, version, resource or subresource, as
   * kube-apiserver's NotFoundHandler and go-restful word it (NewGenericServerResponse: empty
   * details).
   */
  static pathNotFound(): ApiError {
    return new ApiError({
      code: 404,
      reason: 'NotFound',
      message: PATH_NOT_FOUND_MESSAGE,
      details: {},
    });
  }

  static notAcceptable(message: string): ApiError {
    return new ApiError({ code: 406, reason: 'NotAcceptable', message });
  }

  static alreadyExists(gr: GroupResource, name: string): ApiError {
    return new ApiError({
      code: 409,
      reason: 'AlreadyExists',
      message: `${qualified(gr)} "${name}" already exists`,
      details: kindDetails(gr, name),
    });
  }

  static conflict(
    gr: GroupResource,
    name: string,
    why = 'the object has been modified; please apply your changes to the latest version and try again',
  ): ApiError {
    return new ApiError({
      code: 409,
      reason: 'Conflict',
      message: `Operation cannot be fulfilled on ${qualified(gr)} "${name}": ${why}`,
      details: kindDetails(gr, name),
    });
  }

  /** 410 Expired: a resourceVersion or continue token that storage has compacted away. */
  static expired(message: string): ApiError {
    return new ApiError({ code: 410, reason: 'Expired', message });
  }

  static gone(message: string): ApiError {
    return new ApiError({ code: 410, reason: 'Gone', message });
  }

  static requestEntityTooLarge(message: string): ApiError {
    return new ApiError({
      code: 413,
      reason: 'RequestEntityTooLarge',
      message: `Request entity too large: ${message}`,
    });
  }

  /** negotiation.NewUnsupportedMediaTypeError: names what is accepted, no details. */
  static unsupportedMediaType(accepted: readonly string[]): ApiError {
    return new ApiError({
      code: 415,
      reason: 'UnsupportedMediaType',
      message: `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
    });
  }

  /** 422 with one cause per field error, worded as `<kind> "<name>" is invalid: ...`. */
  static invalid(
    kind: { group?: string; kind: string },
    name: string,
    errors: readonly FieldError[],
  ): ApiError {
    return new ApiError({
      code: 422,
      reason: 'Invalid',
      message: `${kind.kind}${kind.group ? `.${kind.group}` : ''} "${name}" is invalid: ${aggregateMessage(errors)}`,
      details: {
        name,
        ...(kind.group ? { group: kind.group } : {}),
        kind: kind.kind,
        causes: errors.map((e) => ({ reason: e.type, message: fieldErrorBody(e), field: e.field })),
      },
    });
  }

  static tooManyRequests(message: string, retryAfterSeconds = 1): ApiError {
    return new ApiError({
      code: 429,
      reason: 'TooManyRequests',
      message,
      details: { retryAfterSeconds },
    });
  }

  static internalError(cause: unknown): ApiError {
    const text = cause instanceof Error ? cause.message : String(cause);
    return new ApiError(
      {
        code: 500,
        reason: 'InternalError',
        message: `Internal error occurred: ${text}`,
        details: { causes: [{ message: text }] },
      },
      { cause },
    );
  }

  static serviceUnavailable(message: string): ApiError {
    return new ApiError({ code: 503, reason: 'ServiceUnavailable', message });
  }

  /** 504 Timeout, as `Timeout: <message>` (e.g. a resourceVersion the cache never reached). */
  static timeout(
    message: string,
    retryAfterSeconds = 0,
    causes?: StatusDetails['causes'],
  ): ApiError {
    return new ApiError({
      code: 504,
      reason: 'Timeout',
      message: `Timeout: ${message}`,
      details: {
        ...(causes ? { causes } : {}),
        ...(retryAfterSeconds > 0 ? { retryAfterSeconds } : {}),
      },
    });
  }
}

export function isApiError(value: unknown): value is ApiError {
  return value instanceof ApiError;
}

/** Any thrown value as an ApiError: ApiErrors pass through, anything else is a 500. */
export function toApiError(value: unknown): ApiError {
  return value instanceof ApiError ? value : ApiError.internalError(value);
}
