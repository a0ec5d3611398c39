import { ApiError } from './api-error.js';
import { aggregateMessage, fieldErrors, type FieldError } from './field-error.js';
import { isQualifiedName, isValidLabelValue } from './names.js';

// One term of a label selector (k8s.io/apimachinery/pkg/labels/selector.go Requirement): its
// validation (NewRequirement), Matches and String. The parser builds them; LabelSelector ANDs
// them. BINARY_OPERATORS and requirementErrors are for the parser only: index.ts re-exports
// the rest through label-selector.ts.

/** selection.Operator values, spelled as Kubernetes spells them. */
export type LabelSelectorOperator =
  'in' | 'notin' | '=' | '==' | '!=' | 'exists' | '!' | 'gt' | 'lt';

/** One AND-ed term: `key in (a,b)`, `key=a`, `!key`, ... */
export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelSelectorOperator;
  /** Empty for exists/!; one value for =, ==, !=, gt, lt; one or more for in/notin. */
  readonly values: readonly string[];
}

export type Labels = Readonly<Record<string, string>>;

export const BINARY_OPERATORS: readonly LabelSelectorOperator[] = [
  'in',
  'notin',
  '=',
  '==',
  '!=',
  'gt',
  'lt',
];
const UNARY_OPERATORS: readonly LabelSelectorOperator[] = ['exists', '!'];

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** strconv.ParseInt(s, 10, 64), or undefined. */
function parseInt64(value: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(value)) return undefined;
  const n = BigInt(value);
  return n < INT64_MIN || n > INT64_MAX ? undefined : n;
}

function hasLabel(labels: Labels, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(labels, key);
}

/** Requirement.Matches. */
export function requirementMatches(requirement: LabelRequirement, labels: Labels): boolean {
  const { key, operator, values } = requirement;
  switch (operator) {
    case 'in':
    case '=':
    case '==':
      return hasLabel(labels, key) && values.includes(labels[key] ?? '');
    case 'notin':
    case '!=':
      return !hasLabel(labels, key) || !values.includes(labels[key] ?? '');
    case 'exists':
      return hasLabel(labels, key);
    case '!':
      return !hasLabel(labels, key);
    case 'gt':
    case 'lt': {
      if (!hasLabel(labels, key) || values.length !== 1) return false;
      const actual = parseInt64(labels[key] ?? '');
      const bound = parseInt64(values[0] ?? '');
      if (actual === undefined || bound === undefined) return false;
      return operator === 'gt' ? actual > bound : actual < bound;
    }
  }
}

/** Requirement.String: values sorted on output, whatever order they are held in. */
export function requirementToString(requirement: LabelRequirement): string {
  const { key, operator, values } = requirement;
  if (operator === 'exists') return key;
  if (operator === '!') return `!${key}`;
  const joined = values.length === 1 ? (values[0] ?? '') : [...values].sort().join(',');
  switch (operator) {
    case 'in':
      return `${key} in (${joined})`;
    case 'notin':
      return `${key} notin (${joined})`;
    case 'gt':
      return `${key}>${joined}`;
    case 'lt':
      return `${key}<${joined}`;
    default:
      return `${key}${operator}${joined}`;
  }
}

/**
 * labels.NewRequirement's checks, as field errors on the paths Go prints for a nil field path
 * (`key`, `values`, `values[i][key]`).
 */
export function requirementErrors(
  key: string,
  operator: string,
  values: readonly string[],
): FieldError[] {
  const errs: FieldError[] = [];
  const keyErrs = isQualifiedName(key);
  if (keyErrs.length > 0) errs.push(fieldErrors.invalid('key', key, keyErrs.join('; ')));
  switch (operator) {
    case 'in':
    case 'notin':
      if (values.length === 0) {
        errs.push(
          fieldErrors.invalid(
            'values',
            values,
            "for 'in', 'notin' operators, values set can't be empty",
          ),
        );
      }
      break;
    case '=':
    case '==':
    case '!=':
      if (values.length !== 1) {
        errs.push(
          fieldErrors.invalid(
            'values',
            values,
            'exact-match compatibility requires one single value',
          ),
        );
      }
      break;
    case 'exists':
    case '!':
      if (values.length !== 0) {
        errs.push(
          fieldErrors.invalid(
            'values',
            values,
            'values set must be empty for exists and does not exist',
          ),
        );
      }
      break;
    case 'gt':
    case 'lt':
      if (values.length !== 1) {
        errs.push(
          fieldErrors.invalid(
            'values',
            values,
            "for 'Gt', 'Lt' operators, exactly one value is required",
          ),
        );
      }
      values.forEach((value, i) => {
        if (parseInt64(value) === undefined) {
          errs.push(
            fieldErrors.invalid(
              `values[${i}]`,
              value,
              "for 'Gt', 'Lt' operators, the value must be an integer",
            ),
          );
        }
      });
      break;
    default:
      errs.push(
        fieldErrors.notSupported('operator', operator, [...BINARY_OPERATORS, ...UNARY_OPERATORS]),
      );
  }
  values.forEach((value, i) => {
    const valueErrs = isValidLabelValue(value);
    if (valueErrs.length > 0)
      errs.push(fieldErrors.invalid(`values[${i}][${key}]`, value, valueErrs.join('; ')));
  });
  return errs;
}

/**
 * A validated requirement (labels.NewRequirement); throws a 400 BadRequest worded as Kubernetes'
 * aggregated field errors.
 */
export function newLabelRequirement(
  key: string,
  operator: LabelSelectorOperator,
  values: readonly string[] = [],
): LabelRequirement {
  const errs = requirementErrors(key, operator, values);
  if (errs.length > 0) throw ApiError.badRequest(aggregateMessage(errs));
  return Object.freeze({ key, operator, values: Object.freeze([...values]) });
}
