import {
  ApiError,
  fieldErrors,
  isRecord,
  labelSelectorFromMetaV1,
  type FieldError,
  type KubeObject,
} from '@listwatch/api';
import { semanticEqual } from '@listwatch/api';
import type { ResourceStrategy } from './rest/resource-strategy.js';

// What the strategies of the kinds in pkg/registry/{apps,batch,core,discovery,networking,policy}
// share: the generation rule, status reset, and the validation helpers of
// pkg/apis/core/validation (ValidateNonnegativeField, ValidatePositiveIntOrPercent…).

export type Json = Record<string, unknown>;

/** The record at `key`, or an empty one not attached to anything (for reading). */
export function recordAt(parent: unknown, key: string): Json {
  if (!isRecord(parent)) return {};
  const value = parent[key];
  return isRecord(value) ? value : {};
}

export function listAt(parent: unknown, key: string): unknown[] {
  if (!isRecord(parent)) return [];
  const value = parent[key];
  return Array.isArray(value) ? value : [];
}

/**
 * The strategy shape most kinds share: generation 1 on create and one more for each update that
 * changes the spec (or what `specOf` names), status cleared on create (`status` gives the Go
 * zero value as JSON, its non-omitempty fields), plus the kind's own hooks.
 */
export function kindStrategy<T extends KubeObject = KubeObject>(options: {
  generation?: boolean;
  /** The zero status on create; undefined leaves the status as sent (kinds without one). */
  status?: () => Json;
  specOf?: (object: T) => unknown;
  decode?: (object: T) => void;
  validate?: (object: T) => FieldError[];
  validateUpdate?: (next: T, current: T) => FieldError[];
  validateCreate?: (object: T) => FieldError[];
  prepareForCreate?: (object: T) => void;
  prepareForUpdate?: (next: T, current: T) => void;
  extra?: Partial<ResourceStrategy<T>>;
}): ResourceStrategy<T> {
  const specOf = options.specOf ?? ((o: T) => o['spec']);
  return {
    ...options.extra,
    ...(options.decode ? { decode: options.decode } : {}),
    ...(options.validate ? { validate: options.validate } : {}),
    ...(options.validateUpdate ? { validateUpdate: options.validateUpdate } : {}),
    ...(options.validateCreate ? { validateCreate: options.validateCreate } : {}),
    prepareForCreate(object) {
      const written: KubeObject = object;
      if (options.status) written['status'] = options.status();
      if (options.generation) object.metadata.generation = 1;
      options.prepareForCreate?.(object);
    },
    prepareForUpdate(next, current) {
      if (options.generation && !semanticEqual(specOf(next), specOf(current)))
        next.metadata.generation = (current.metadata.generation ?? 0) + 1;
      options.prepareForUpdate?.(next, current);
    },
  };
}

// --- validation -------------------------------------------------------------------------------

export const IS_NEGATIVE_ERROR = 'must be greater than or equal to 0';

/** ValidateNonnegativeField: a number below zero is refused. */
export function nonNegative(value: unknown, path: string): FieldError[] {
  return typeof value === 'number' && value < 0
    ? [fieldErrors.invalid(path, value, IS_NEGATIVE_ERROR)]
    : [];
}

/** A value among `supported`, required when `required`. */
export function oneOf(
  value: unknown,
  path: string,
  supported: readonly string[],
  required = false,
): FieldError[] {
  if (value === undefined || value === null || value === '')
    return required ? [fieldErrors.required(path, '')] : [];
  return typeof value === 'string' && supported.includes(value)
    ? []
    : [fieldErrors.notSupported(path, value, supported)];
}

/** ValidateImmutableField: `field is immutable` when the value changed. */
export function immutable(next: unknown, current: unknown, path: string): FieldError[] {
  return semanticEqual(next, current)
    ? []
    : [fieldErrors.invalid(path, next, 'field is immutable')];
}

/**
 * ValidatePositiveIntOrPercent and IsValidPercent, then (percent ≤ 100%) the check every
 * IntOrString of a rollout or budget gets.
 */
export function intOrPercent(value: unknown, path: string): FieldError[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'number') return nonNegative(value, path);
  if (typeof value !== 'string' || !/^[0-9]+%$/.test(value))
    return [
      fieldErrors.invalid(
        path,
        value,
        "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
      ),
    ];
  if (Number.parseInt(value, 10) > 100)
    return [fieldErrors.invalid(path, value, 'must not be greater than 100%')];
  return [];
}

/**
 * The selector of a workload (ValidateStatefulSetSpec, ValidateDaemonSetSpec, ValidateJobSpec):
 * required, not empty, valid, and matching the template's labels.
 */
export function selectorMatchesTemplate(
  selector: unknown,
  templateLabels: unknown,
  path: string,
  templatePath: string,
): FieldError[] {
  if (selector === undefined || selector === null)
    return [fieldErrors.required(`${path}.selector`)];
  if (!isRecord(selector))
    return [fieldErrors.invalid(`${path}.selector`, selector, 'invalid label selector')];
  const matchLabels = recordAt(selector, 'matchLabels');
  const expressions = listAt(selector, 'matchExpressions');
  if (Object.keys(matchLabels).length === 0 && expressions.length === 0)
    return [
      fieldErrors.invalid(`${path}.selector`, selector, 'empty selector is invalid for deployment'),
    ];
  let parsed;
  try {
    parsed = labelSelectorFromMetaV1(selector);
  } catch (error) {
    const detail = error instanceof ApiError ? error.message : 'invalid label selector';
    return [fieldErrors.invalid(`${path}.selector`, selector, detail)];
  }
  const labels = isRecord(templateLabels) ? (templateLabels as Record<string, string>) : {};
  return parsed.matches(labels)
    ? []
    : [
        fieldErrors.invalid(
          `${templatePath}.metadata.labels`,
          labels,
          '`selector` does not match template `labels`',
        ),
      ];
}
