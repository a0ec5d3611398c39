import { ApiError } from './api-error.js';
import { fieldErrorMessage, fieldErrors } from './field-error.js';

// resourceVersions are etcd revisions written as decimal strings. Clients must treat them as
// opaque, but the server compares them: k8s.io/apiserver/pkg/storage/api_object_versioner.go
// (ParseResourceVersion) parses them as 64-bit integers, with "" and "0" meaning "unset" / "any".

/** etcd revisions are int64: the largest resourceVersion this server accepts. */
export const MAX_RESOURCE_VERSION = 2n ** 63n - 1n;

const DIGITS = /^[0-9]+$/;

function invalid(value: string, field: string, detail: string): ApiError {
  return ApiError.badRequest(
    `invalid resource version: ${fieldErrorMessage(fieldErrors.invalid(field, value, detail))}`,
  );
}

/**
 * The exact value of a resourceVersion; "" and "0" are 0n. Anything but decimal digits (leading
 * zeros allowed, as strconv accepts them) up to 2^63−1 is a 400 BadRequest worded as
 * kube-apiserver words it: `invalid resource version: resourceVersion: Invalid value: "x":
 * strconv.ParseUint: parsing "x": invalid syntax`.
 */
export function parseResourceVersionExact(value: string, field = 'resourceVersion'): bigint {
  if (value === '' || value === '0') return 0n;
  if (!DIGITS.test(value)) {
    throw invalid(
      value,
      field,
      `strconv.ParseUint: parsing ${JSON.stringify(value)}: invalid syntax`,
    );
  }
  const n = BigInt(value);
  if (n > MAX_RESOURCE_VERSION) {
    throw invalid(
      value,
      field,
      `strconv.ParseInt: parsing ${JSON.stringify(value)}: value out of range`,
    );
  }
  return n;
}

/**
 * A resourceVersion as a number, for storage revisions (which are numbers). Values above 2^53
 * are valid int64s but not exact doubles: they clamp to Number.MAX_SAFE_INTEGER. That keeps
 * every comparison right, because no storage revision ever gets near 2^53 (a million writes a
 * second for 285 years): a clamped request is simply "newer than anything stored".
 */
export function parseResourceVersion(value: string, field = 'resourceVersion'): number {
  return resourceVersionToNumber(parseResourceVersionExact(value, field));
}

/** Whether `value` is a resourceVersion this server accepts ("" and "0" included). */
export function isValidResourceVersion(value: string): boolean {
  if (value === '' || value === '0') return true;
  return DIGITS.test(value) && BigInt(value) <= MAX_RESOURCE_VERSION;
}

/** An exact resourceVersion as a number, clamped to Number.MAX_SAFE_INTEGER (see above). */
export function resourceVersionToNumber(value: bigint): number {
  return value > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(value);
}

/**
 * `err` naming the resourceVersion the client sent, exactly. One above 2^53 reaches storage
 * clamped (resourceVersionToNumber), so its "Too large resource version: N" would name
 * 9007199254740991; kube-apiserver prints the uint64 it parsed. Other errors pass unchanged.
 */
export function withExactResourceVersion(
  err: unknown,
  requested: string | null | undefined,
): unknown {
  if (!(err instanceof ApiError) || !requested || !isValidResourceVersion(requested)) return err;
  const exact = BigInt(requested);
  if (exact <= BigInt(Number.MAX_SAFE_INTEGER)) return err;
  const clamped = `resource version: ${Number.MAX_SAFE_INTEGER}`;
  const message = err.status.message;
  if (!message?.includes(clamped)) return err;
  const fixed = new ApiError(
    {
      ...err.status,
      message: message.replace(clamped, `resource version: ${exact.toString()}`),
    },
    { cause: err },
  );
  return fixed;
}

/** The canonical string: no leading zeros. */
export function formatResourceVersion(value: number | bigint): string {
  if (typeof value === 'number' && (!Number.isSafeInteger(value) || value < 0)) {
    throw ApiError.internalError(`resourceVersion ${value} is not a non-negative safe integer`);
  }
  return BigInt(value).toString();
}

/**
 * Orders two resourceVersions by value, without loss above 2^53 ("" counts as 0). Invalid input
 * is a 400 BadRequest, as from parseResourceVersion.
 */
export function compareResourceVersions(a: string, b: string): -1 | 0 | 1 {
  const x = parseResourceVersionExact(a);
  const y = parseResourceVersionExact(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
