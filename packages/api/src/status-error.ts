import { ApiError, METHOD_NOT_ALLOWED_MESSAGE, PATH_NOT_FOUND_MESSAGE } from './api-error.js';
import type { Status, StatusReason } from './status.js';

/**
 * Reason and message per HTTP code for a response that carries no Status, as apimachinery's
 * errors.NewGenericServerResponse words them.
 */
const GENERIC: Readonly<Record<number, readonly [StatusReason, string]>> = {
  400: ['BadRequest', 'the server rejected our request for an unknown reason'],
  401: ['Unauthorized', 'the server has asked for the client to provide credentials'],
  403: ['Forbidden', 'the server does not allow access to the requested resource'],
  404: ['NotFound', PATH_NOT_FOUND_MESSAGE],
  405: ['MethodNotAllowed', METHOD_NOT_ALLOWED_MESSAGE],
  406: [
    'NotAcceptable',
    'the server was unable to respond with a content type that the client supports',
  ],
  409: ['Conflict', 'the server reported a conflict'],
  410: ['Gone', 'the server reported that the requested resource is gone'],
  413: ['RequestEntityTooLarge', 'the server rejected the request because it is too large'],
  415: ['UnsupportedMediaType', 'the server was unable to process the content type of the request'],
  422: ['Invalid', 'the server rejected our request due to an error in our request'],
  429: [
    'TooManyRequests',
    'the server has received too many requests and has asked us to try again later',
  ],
  500: ['InternalError', 'an error on the server has prevented the request from succeeding'],
  503: ['ServiceUnavailable', 'the server is currently unable to handle the request'],
  504: [
    'Timeout',
    'the server was unable to return a response in the time allotted, but may still be processing the request',
  ],
};

/** The Status reason kube-apiserver would give a bare HTTP code. */
export function reasonForCode(code: number): StatusReason {
  return GENERIC[code]?.[0] ?? (code >= 500 ? 'InternalError' : '');
}

/**
 * The error of a response without a Status (apimachinery errors.NewGenericServerResponse): the
 * code's reason, with the server's text as the message, else the code's generic one.
 */
export function genericServerError(
  code: number,
  serverMessage = '',
  retryAfterSeconds?: number,
): ApiError {
  return new ApiError({
    code,
    reason: reasonForCode(code),
    message:
      serverMessage ||
      GENERIC[code]?.[1] ||
      `the server responded with the status code ${code} but did not return more information`,
    ...(retryAfterSeconds !== undefined ? { details: { retryAfterSeconds } } : {}),
  });
}

/**
 * The error a Status read off the wire stands for, from a response body or a watch ERROR event
 * (apimachinery errors.FromObject). The wire may leave out metadata or send no usable code: a
 * code that is not a positive integer becomes `fallbackCode` (the response's HTTP code; events
 * have none, hence 500).
 */
export function errorFromStatus(status: Status, fallbackCode = 500): ApiError {
  const { code, metadata } = status as Partial<Status>;
  const usable = typeof code === 'number' && Number.isInteger(code) && code > 0;
  return ApiError.fromStatus({
    ...status,
    metadata: metadata ?? {},
    code: usable ? code : fallbackCode,
  });
}
