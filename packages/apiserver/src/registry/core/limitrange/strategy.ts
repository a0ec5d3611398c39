import type * as corev1 from 'kubernetes-types/core/v1.js';
import { kindStrategy, oneOf } from '../../kind-helpers.js';
import type { TypedObject } from '../../rest/typed-object.js';
import { validateQuantities } from '../resourcequota/strategy.js';

// LimitRanges: pkg/registry/core/limitrange/strategy.go, SetDefaults_LimitRangeItem
// (pkg/apis/core/v1/defaults.go) and ValidateLimitRange (pkg/apis/core/validation).

/** A LimitRange as decoded (kubernetes-types' core/v1 LimitRange). */
export type LimitRange = TypedObject<corev1.LimitRange>;

const LIMIT_TYPES = ['Pod', 'Container', 'PersistentVolumeClaim'];
const QUANTITY_LISTS = ['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio'] as const;

export const limitRangeStrategy = kindStrategy<LimitRange>({
  decode(range) {
    for (const item of (range.spec ??= {}).limits ?? []) {
      if (item.type !== 'Container') continue;
      // A missing default limit is the max; a missing default request the default, else the min.
      const defaults = { ...item.max, ...item.default };
      const requests = { ...item.min, ...defaults, ...item.defaultRequest };
      if (Object.keys(defaults).length) item.default = defaults;
      if (Object.keys(requests).length) item.defaultRequest = requests;
    }
  },
  validate: (range) =>
    (range.spec?.limits ?? []).flatMap((item, i) => {
      const path = `spec.limits[${i}]`;
      return [
        ...oneOf(item.type, `${path}.type`, LIMIT_TYPES, true),
        ...QUANTITY_LISTS.flatMap((key) => validateQuantities(item[key], `${path}.${key}`)),
      ];
    }),
});
