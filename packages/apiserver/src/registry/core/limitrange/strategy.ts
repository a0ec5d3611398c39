import { isRecord } from '@listwatch/api';
import { child, kindStrategy, listAt, oneOf, recordAt } from '../../kind-helpers.js';
import { validateQuantities } from '../resourcequota/strategy.js';

// LimitRanges: pkg/registry/core/limitrange/strategy.go, SetDefaults_LimitRangeItem
// (pkg/apis/core/v1/defaults.go) and ValidateLimitRange (pkg/apis/core/validation).

const LIMIT_TYPES = ['Pod', 'Container', 'PersistentVolumeClaim'];

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
