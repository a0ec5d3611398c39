import { fieldErrors, type FieldError } from '@listwatch/api';
import type * as corev1 from 'kubernetes-types/core/v1.js';
import { kindStrategy, oneOf } from '../../kind-helpers.js';
import type { TypedObject } from '../../rest/typed-object.js';

// ResourceQuotas: pkg/registry/core/resourcequota/strategy.go (status cleared on create) and
// ValidateResourceQuota (pkg/apis/core/validation).

/** A ResourceQuota as decoded (kubernetes-types' core/v1 ResourceQuota). */
export type ResourceQuota = TypedObject<corev1.ResourceQuota>;

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
export function validateQuantities(
  list: Readonly<Record<string, string>> | undefined,
  path: string,
): FieldError[] {
  return Object.entries(list ?? {}).flatMap(([name, value]) => {
    const text = String(value);
    if (!QUANTITY.test(text))
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

export const resourceQuotaStrategy = kindStrategy<ResourceQuota>({
  status: () => ({}),
  validate: (quota) => [
    ...validateQuantities(quota.spec?.hard, 'spec.hard'),
    ...(quota.spec?.scopes ?? []).flatMap((scope, i) =>
      oneOf(scope, `spec.scopes[${i}]`, QUOTA_SCOPES),
    ),
  ],
});
