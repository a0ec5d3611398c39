import type { CauseType } from './status.js';
import { isRecord } from './unstructured.js';

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

/**
 * A bad value printed as Go's `%#v` prints it (field.Error does for maps, slices and structs):
 * `map[string]string{"app":"web"}`. Made with the `goSyntax` helpers.
 */
export class GoSyntax {
  constructor(readonly text: string) {}
}

/** Go's `%#v` of a few types validation errors print. */
export const goSyntax = {
  /** Text already in Go's syntax. */
  raw(text: string): GoSyntax {
    return new GoSyntax(text);
  },
  /** map[string]string: keys sorted, as fmt prints maps; nil when absent. */
  stringMap(value: unknown): GoSyntax {
    return new GoSyntax(goStringMap(value));
  },
  /** []string. */
  stringSlice(value: readonly string[] | undefined): GoSyntax {
    return new GoSyntax(goStringSlice(value));
  },
  /** metav1.LabelSelector (printed as `v1.LabelSelector`). */
  labelSelector(value: unknown): GoSyntax {
    const selector = isRecord(value) ? value : {};
    const expressions = selector['matchExpressions'];
    const items = Array.isArray(expressions)
      ? `[]v1.LabelSelectorRequirement{${expressions
          .map((e: unknown) => {
            const r = isRecord(e) ? e : {};
            const values = Array.isArray(r['values']) ? (r['values'] as string[]) : undefined;
            return `v1.LabelSelectorRequirement{Key:${JSON.stringify(r['key'] ?? '')}, Operator:${JSON.stringify(r['operator'] ?? '')}, Values:${goStringSlice(values)}}`;
          })
          .join(', ')}}`
      : '[]v1.LabelSelectorRequirement(nil)';
    return new GoSyntax(
      `v1.LabelSelector{MatchLabels:${goStringMap(selector['matchLabels'])}, MatchExpressions:${items}}`,
    );
  },
};

function goStringMap(value: unknown): string {
  if (!isRecord(value)) return 'map[string]string(nil)';
  const entries = Object.keys(value)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${JSON.stringify(value[k])}`);
  return `map[string]string{${entries.join(', ')}}`;
}

function goStringSlice(value: readonly string[] | undefined): string {
  if (!value) return '[]string(nil)';
  return `[]string{${value.map((v) => JSON.stringify(v)).join(', ')}}`;
}

function quote(value: unknown): string {
  if (value instanceof GoSyntax) return value.text;
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
