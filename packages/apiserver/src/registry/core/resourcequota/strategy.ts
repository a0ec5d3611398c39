import { fieldErrors, isRecord, type FieldError } from '@listwatch/api';
import { child, kindStrategy, listAt, oneOf, recordAt } from '../../kind-helpers.js';

// ResourceQuotas and LimitRanges: pkg/registry/core/resourcequota/strategy.go (status cleared on
// create), SetDefaults_LimitRangeItem (pkg/apis/core/v1/defaults.go) and
// ValidateResourceQuota / ValidateLimitRange (pkg/apis/core/validation).

const QUOTA_SCOPES = [
  'Terminating',
  'NotTerminating',
  'BestEffort',
  'NotBestEffort',
  'PriorityClass',
  'CrossNamespacePodAffinity',
  'VolumeAttributesClass',
];
const LIMIT_TYPES = ['Pod', 'Container', 'PersistentVolumeClaim'];

/** A Quantity as JSON: a string (or a number) of the quantity grammar. */
const QUANTITY = /^[+-]?(\d+(\.\d*)?|\.\d+)(([KMGTPE]i)|[numkMGTPE]|([eE][+-]?\d+))?$/;

function validateQuantities(list: unknown, path: string): FieldError[] {
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

export const limitRangeStrategy = kindStrategy({
  decode(range) {
    for (const item of listAt(child(range, 'spec'), 'limits')) {
      if (!isRecord(item) || item['type'] !== 'Container') continue;
      // A missing default limit is the max; a missing default request the default, else the min.
      const defaults = { ...recordAt(item, 'max'), ...recordAt(item, 'default') };
      const requests = {
        ...recordAt(item, 'min'),
        ...defaults,
        ...recordAt(item, 'defaultRequest'),
      };
      if (Object.keys(defaults).length) item['default'] = defaults;
      if (Object.keys(requests).length) item['defaultRequest'] = requests;
    }
  },
  validate(range) {
    return listAt(recordAt(range, 'spec'), 'limits').flatMap((item, i) => {
      const path = `spec.limits[${i}]`;
      return [
        ...oneOf(recordAt({ item }, 'item')['type'], `${path}.type`, LIMIT_TYPES, true),
        ...['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio'].flatMap((key) =>
          validateQuantities(recordAt({ item }, 'item')[key], `${path}.${key}`),
        ),
      ];
    });
  },
});
