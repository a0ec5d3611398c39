import { fieldErrors, isRecord, type FieldError } from '@listwatch/api';
import { kindStrategy, listAt, oneOf, recordAt } from '../../kind-helpers.js';

// ResourceQuotas: pkg/registry/core/resourcequota/strategy.go (status cleared on create) and
// ValidateResourceQuota (pkg/apis/core/validation).

const QUOTA_SCOPES = [
  'Terminating',
  'NotTerminating',
  'BestEffort',
  'NotBestEffort',
  'PriorityClass',
  'CrossNamespacePodAffinity',
  'VolumeAttributesClass',
];

/** A Quantity as JSON: a string (or a number) of the quantity grammar. */
const QUANTITY = /^[+-]?(\d+(\.\d*)?|\.\d+)(([KMGTPE]i)|[numkMGTPE]|([eE][+-]?\d+))?$/;

/** The quantities of a ResourceList (ValidateResourceQuantityValue), for quotas and LimitRanges. */
export function validateQuantities(list: unknown, path: string): FieldError[] {
  if (!isRecord(list)) return [];
  return Object.entries(list).flatMap(([name, value]) => {
    const text = typeof value === 'number' ? String(value) : value;
    if (typeof text !== 'string' || !QUANTITY.test(text))
      return [
        fieldErrors.invalid(
          `${path}[${name}]`,
          value,
          "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
        ),
      ];
    return text.startsWith('-')
      ? [fieldErrors.invalid(`${path}[${name}]`, value, 'must be a valid resource quantity')]
      : [];
  });
}

export const resourceQuotaStrategy = kindStrategy({
  status: () => ({}),
  validate(quota) {
    const spec = recordAt(quota, 'spec');
    return [
      ...validateQuantities(spec['hard'], 'spec.hard'),
      ...listAt(spec, 'scopes').flatMap((scope, i) =>
        oneOf(scope, `spec.scopes[${i}]`, QUOTA_SCOPES),
      ),
    ];
  },
});
