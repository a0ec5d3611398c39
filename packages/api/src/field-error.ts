import type { CauseType } from './status.js';

/**
 * One validation failure on one field (k8s.io/apimachinery/pkg/util/validation/field.Error).
 * Its text follows the Go type so kubectl users see the messages they know.
 */
export interface FieldError {
  type: CauseType;
  field: string;
  badValue?: unknown;
  detail?: string;
}

const LABELS: Record<string, string> = {
  FieldValueNotFound: 'Not found',
  FieldValueRequired: 'Required value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  FieldValueTypeInvalid: 'Invalid value',
};

function quote(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === undefined) return '<nil>';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** The message without the field path (Go's ErrorBody). */
export function fieldErrorBody(error: FieldError): string {
  const label = LABELS[error.type] ?? String(error.type);
  const omitValue =
    error.type === 'FieldValueRequired' ||
    error.type === 'FieldValueForbidden' ||
    error.type === 'FieldValueTooLong' ||
    error.badValue === undefined;
  let body = omitValue ? label : `${label}: ${quote(error.badValue)}`;
  if (error.detail) body += `: ${error.detail}`;
  return body;
}

export function fieldErrorMessage(error: FieldError): string {
  return `${error.field}: ${fieldErrorBody(error)}`;
}

export const fieldErrors = {
  invalid: (field: string, badValue: unknown, detail: string): FieldError => ({
    type: 'FieldValueInvalid',
    field,
    badValue,
    detail,
  }),
  required: (field: string, detail = ''): FieldError => ({
    type: 'FieldValueRequired',
    field,
    ...(detail ? { detail } : {}),
  }),
  forbidden: (field: string, detail: string): FieldError => ({
    type: 'FieldValueForbidden',
    field,
    detail,
  }),
  notSupported: (field: string, badValue: unknown, supported: readonly string[]): FieldError => ({
    type: 'FieldValueNotSupported',
    field,
    badValue,
    detail: `supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}`,
  }),
  tooLong: (field: string, maxLength: number): FieldError => ({
    type: 'FieldValueTooLong',
    field,
    detail: `must have at most ${maxLength} bytes`,
  }),
  /** field.TooMany: a list longer than its limit, the count as the bad value. */
  tooMany: (field: string, count: number, max: number): FieldError => ({
    type: 'FieldValueTooMany',
    field,
    badValue: count,
    detail: `must have at most ${max} items`,
  }),
  duplicate: (field: string, badValue: unknown): FieldError => ({
    type: 'FieldValueDuplicate',
    field,
    badValue,
  }),
};

/** Go's utilerrors.NewAggregate(...).Error(): one message, or `[a, b]` for several. */
export function aggregateMessage(errors: readonly FieldError[]): string {
  const messages = errors.map(fieldErrorMessage);
  return messages.length === 1 ? (messages[0] ?? '') : `[${messages.join(', ')}]`;
}
