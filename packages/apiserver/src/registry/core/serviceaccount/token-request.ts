import {
  ApiError,
  fieldErrors,
  metaV1Time,
  type FieldError,
  type KubeObject,
} from '@listwatch/api';

// The authentication/v1 TokenRequest the serviceaccounts/token subresource takes and returns:
// k8s.io/api authentication/v1 types.go and defaults (SetDefaults_TokenRequestSpec),
// pkg/apis/authentication/validation (ValidateTokenRequest).

export const TOKEN_REQUEST_GVK = {
  group: 'authentication.k8s.io',
  version: 'v1',
  kind: 'TokenRequest',
} as const;

/** SetDefaults_TokenRequestSpec: an hour when expirationSeconds is not given. */
export const DEFAULT_EXPIRATION_SECONDS = 60 * 60;
/** ValidateTokenRequest's bounds: at least ten minutes, at most 2^32 seconds. */
const MIN_EXPIRATION_SECONDS = 10 * 60;
const MAX_EXPIRATION_SECONDS = 2 ** 32;

export interface BoundObjectReference {
  kind: string;
  apiVersion: string;
  name: string;
  uid: string;
}

/** A decoded TokenRequest's spec, defaulted. */
export interface TokenRequestSpec {
  audiences: string[];
  expirationSeconds: number;
  boundObjectRef: BoundObjectReference | undefined;
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** The spec of a decoded TokenRequest (its Go types already checked), with v1 defaulting. */
export function tokenRequestSpec(request: KubeObject): TokenRequestSpec {
  const spec = record(request['spec']);
  const audiences = Array.isArray(spec['audiences']) ? spec['audiences'].map(text) : [];
  const expiration = spec['expirationSeconds'];
  const ref = spec['boundObjectRef'];
  return {
    audiences,
    expirationSeconds: typeof expiration === 'number' ? expiration : DEFAULT_EXPIRATION_SECONDS,
    boundObjectRef:
      ref === undefined
        ? undefined
        : {
            kind: text(record(ref)['kind']),
            apiVersion: text(record(ref)['apiVersion']),
            name: text(record(ref)['name']),
            uid: text(record(ref)['uid']),
          },
  };
}

function invalid(name: string, errors: FieldError[]): ApiError {
  return ApiError.invalid(
    { group: TOKEN_REQUEST_GVK.group, kind: TOKEN_REQUEST_GVK.kind },
    name,
    errors,
  );
}

/** TokenREST.Create's checks of the body's name and namespace against the URL: 422. */
export function checkTokenRequestIdentity(
  request: KubeObject,
  name: string,
  namespace: string,
): void {
  const meta = request.metadata;
  if (meta.name && meta.name !== name)
    throw invalid(name, [
      fieldErrors.invalid(
        'metadata.name',
        meta.name,
        'must match the service account name if specified',
      ),
    ]);
  if (meta.namespace && meta.namespace !== namespace)
    throw invalid(name, [
      fieldErrors.invalid(
        'metadata.namespace',
        meta.namespace,
        'must match the service account namespace if specified',
      ),
    ]);
}

/** ValidateTokenRequest: the expiration within its bounds (422, on a TokenRequest named ""). */
export function validateTokenRequest(spec: TokenRequestSpec): void {
  const errors: FieldError[] = [];
  if (spec.expirationSeconds < MIN_EXPIRATION_SECONDS)
    errors.push(
      fieldErrors.invalid(
        'spec.expirationSeconds',
        spec.expirationSeconds,
        'may not specify a duration less than 10 minutes',
      ),
    );
  if (spec.expirationSeconds > MAX_EXPIRATION_SECONDS)
    errors.push(
      fieldErrors.invalid(
        'spec.expirationSeconds',
        spec.expirationSeconds,
        'may not specify a duration larger than 2^32 seconds',
      ),
    );
  if (errors.length) throw invalid('', errors);
}

/** The TokenRequest answered: the request as defaulted, its metadata and the token's status. */
export function tokenRequestResponse(
  request: KubeObject,
  spec: TokenRequestSpec,
  token: string,
  now: Date,
): KubeObject {
  const expiration = new Date(now.getTime() + spec.expirationSeconds * 1000);
  const rfc3339 = (date: Date) => metaV1Time(date.getTime());
  return {
    kind: TOKEN_REQUEST_GVK.kind,
    apiVersion: `${TOKEN_REQUEST_GVK.group}/${TOKEN_REQUEST_GVK.version}`,
    metadata: { ...request.metadata, creationTimestamp: rfc3339(now) },
    // The spec's fields have no omitempty: a missing boundObjectRef is null.
    spec: {
      audiences: spec.audiences,
      expirationSeconds: spec.expirationSeconds,
      boundObjectRef: spec.boundObjectRef
        ? Object.fromEntries(Object.entries(spec.boundObjectRef).filter(([, v]) => v !== ''))
        : null,
    },
    status: { token, expirationTimestamp: rfc3339(expiration) },
  };
}
