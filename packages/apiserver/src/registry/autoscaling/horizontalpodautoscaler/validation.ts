import {
  fieldErrors,
  isDNS1123Label,
  isRecord,
  isValidPathSegmentName,
  quantitySign,
  type FieldError,
  type KubeObject,
} from '@listwatch/api';
import { listAt, nonNegative, recordAt, type Json } from '../../kind-helpers.js';
import { set } from './conversion.js';

// pkg/apis/autoscaling/validation/validation.go: ValidateHorizontalPodAutoscaler(Update) and
// ValidateHorizontalPodAutoscalerStatusUpdate, run on the object as stored (autoscaling/v2).

const MAX_PERIOD_SECONDS = 1800;
const MAX_STABILIZATION_WINDOW_SECONDS = 3600;
const METRIC_SOURCE_TYPES = ['ContainerResource', 'External', 'Object', 'Pods', 'Resource'];

const text = (value: unknown) => (typeof value === 'string' ? value : '');
const positive = (value: unknown) => typeof value === 'string' && quantitySign(value) === 1;

function pathSegment(value: unknown, path: string): FieldError[] {
  if (!text(value)) return [fieldErrors.required(path, '')];
  return isValidPathSegmentName(text(value)).map((msg) => fieldErrors.invalid(path, value, msg));
}

/** ValidateCrossVersionObjectReference. */
function crossVersionReference(ref: unknown, path: string): FieldError[] {
  const r = isRecord(ref) ? ref : {};
  return [...pathSegment(r['kind'], `${path}.kind`), ...pathSegment(r['name'], `${path}.name`)];
}

function metricIdentifier(id: unknown, path: string): FieldError[] {
  const name = isRecord(id) ? id['name'] : undefined;
  if (!text(name)) return [fieldErrors.required(`${path}.name`, 'must specify a metric name')];
  return isValidPathSegmentName(text(name)).map((msg) =>
    fieldErrors.invalid(`${path}.name`, name, msg),
  );
}

function metricTarget(target: Json, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const type = target['type'];
  if (!text(type))
    errors.push(fieldErrors.required(`${path}.type`, 'must specify a metric target type'));
  if (type !== 'Utilization' && type !== 'Value' && type !== 'AverageValue')
    errors.push(
      fieldErrors.invalid(
        `${path}.type`,
        type ?? '',
        'must be either Utilization, Value, or AverageValue',
      ),
    );
  for (const key of ['value', 'averageValue'])
    if (set(target[key]) && !positive(target[key]))
      errors.push(fieldErrors.invalid(`${path}.${key}`, target[key], 'must be positive'));
  const utilization = target['averageUtilization'];
  if (typeof utilization === 'number' && utilization < 1)
    errors.push(
      fieldErrors.invalid(`${path}.averageUtilization`, utilization, 'must be greater than 0'),
    );
  return errors;
}

function metricSource(type: string, source: Json, path: string): FieldError[] {
  const target = recordAt(source, 'target');
  const errors: FieldError[] = [];
  const targetPath = `${path}.target`;
  switch (type) {
    case 'object':
    case 'external':
      if (type === 'object')
        errors.push(...crossVersionReference(source['describedObject'], `${path}.describedObject`));
      errors.push(
        ...metricIdentifier(source['metric'], `${path}.metric`),
        ...metricTarget(target, targetPath),
      );
      if (!set(target['value']) && !set(target['averageValue']))
        errors.push(
          fieldErrors.required(
            `${targetPath}.averageValue`,
            type === 'object'
              ? 'must set either a target value or averageValue'
              : 'must set either a target value for metric or a per-pod target',
          ),
        );
      if (type === 'external' && set(target['value']) && set(target['averageValue']))
        errors.push(
          fieldErrors.forbidden(
            `${targetPath}.value`,
            'may not set both a target value for metric and a per-pod target',
          ),
        );
      break;
    case 'pods':
      errors.push(
        ...metricIdentifier(source['metric'], `${path}.metric`),
        ...metricTarget(target, targetPath),
      );
      if (!set(target['averageValue']))
        errors.push(
          fieldErrors.required(
            `${targetPath}.averageValue`,
            'must specify a positive target averageValue',
          ),
        );
      break;
    case 'resource':
    case 'containerResource':
      if (!text(source['name']))
        errors.push(fieldErrors.required(`${path}.name`, 'must specify a resource name'));
      if (type === 'containerResource') {
        if (!text(source['container']))
          errors.push(fieldErrors.required(`${path}.container`, 'must specify a container'));
        else
          errors.push(
            ...isDNS1123Label(text(source['container'])).map((msg) =>
              fieldErrors.invalid(`${path}.container`, source['container'], msg),
            ),
          );
      }
      errors.push(...metricTarget(target, targetPath));
      if (!set(target['averageUtilization']) && !set(target['averageValue']))
        errors.push(
          fieldErrors.required(
            `${targetPath}.averageUtilization`,
            'must set either a target raw value or a target utilization',
          ),
        );
      if (set(target['averageUtilization']) && set(target['averageValue']))
        errors.push(
          fieldErrors.forbidden(
            `${targetPath}.averageValue`,
            'may not set both a target raw value and a target utilization',
          ),
        );
      break;
  }
  return errors;
}

const SOURCES = ['object', 'external', 'pods', 'resource', 'containerResource'] as const;

/** validateMetricSpec. */
function metricSpec(spec: Json, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const type = text(spec['type']);
  if (!type) errors.push(fieldErrors.required(`${path}.type`, 'must specify a metric source type'));
  if (!METRIC_SOURCE_TYPES.includes(type))
    errors.push(fieldErrors.notSupported(`${path}.type`, type, METRIC_SOURCE_TYPES));
  const present = SOURCES.filter((key) => isRecord(spec[key]));
  const first = present[0];
  if (first) errors.push(...metricSource(first, recordAt(spec, first), `${path}.${first}`));
  const expected = SOURCES.find((key) => key.toLowerCase() === type.toLowerCase());
  if (expected) {
    if (!isRecord(spec[expected]))
      errors.push(
        fieldErrors.required(
          `${path}.${expected}`,
          'must populate information for the given metric source',
        ),
      );
  } else {
    // The switch's default: kube reports an unknown type a second time.
    errors.push(fieldErrors.notSupported(`${path}.type`, type, METRIC_SOURCE_TYPES));
  }
  if (present.length !== 1)
    for (const key of present.filter((k) => k !== expected).sort())
      errors.push(
        fieldErrors.forbidden(`${path}.${key}`, 'must populate the given metric source only'),
      );
  return errors;
}

function scalingRulesErrors(rules: unknown, path: string): FieldError[] {
  if (!isRecord(rules)) return [];
  const errors: FieldError[] = [];
  const window = rules['stabilizationWindowSeconds'];
  if (typeof window === 'number' && window < 0)
    errors.push(
      fieldErrors.invalid(
        `${path}.stabilizationWindowSeconds`,
        window,
        'must be greater than or equal to zero',
      ),
    );
  if (typeof window === 'number' && window > MAX_STABILIZATION_WINDOW_SECONDS)
    errors.push(
      fieldErrors.invalid(
        `${path}.stabilizationWindowSeconds`,
        window,
        `must be less than or equal to ${MAX_STABILIZATION_WINDOW_SECONDS}`,
      ),
    );
  const select = rules['selectPolicy'];
  if (set(select) && !['Disabled', 'Max', 'Min'].includes(text(select)))
    errors.push(
      fieldErrors.notSupported(`${path}.selectPolicy`, select, ['Disabled', 'Max', 'Min']),
    );
  const policies = listAt(rules, 'policies');
  if (policies.length === 0)
    errors.push(fieldErrors.required(`${path}.policies`, 'must specify at least one Policy'));
  policies.forEach((p, i) => {
    const policy = isRecord(p) ? p : {};
    const at = `${path}.policies[${i}]`;
    if (policy['type'] !== 'Pods' && policy['type'] !== 'Percent')
      errors.push(
        fieldErrors.notSupported(`${at}.type`, policy['type'] ?? '', ['Percent', 'Pods']),
      );
    const value = typeof policy['value'] === 'number' ? policy['value'] : 0;
    if (value <= 0)
      errors.push(fieldErrors.invalid(`${at}.value`, value, 'must be greater than zero'));
    const period = typeof policy['periodSeconds'] === 'number' ? policy['periodSeconds'] : 0;
    if (period <= 0)
      errors.push(fieldErrors.invalid(`${at}.periodSeconds`, period, 'must be greater than zero'));
    if (period > MAX_PERIOD_SECONDS)
      errors.push(
        fieldErrors.invalid(
          `${at}.periodSeconds`,
          period,
          `must be less than or equal to ${MAX_PERIOD_SECONDS}`,
        ),
      );
  });
  return errors;
}

/** validateHorizontalPodAutoscalerSpec, minReplicas bounded below by `lowerBound`. */
export function validateSpec(hpa: KubeObject, lowerBound: number): FieldError[] {
  const spec = recordAt(hpa, 'spec');
  const errors: FieldError[] = [];
  const min = spec['minReplicas'];
  const max = typeof spec['maxReplicas'] === 'number' ? spec['maxReplicas'] : 0;
  if (typeof min === 'number' && min < lowerBound)
    errors.push(
      fieldErrors.invalid(
        'spec.minReplicas',
        min,
        `must be greater than or equal to ${lowerBound}`,
      ),
    );
  if (max < 1) errors.push(fieldErrors.invalid('spec.maxReplicas', max, 'must be greater than 0'));
  if (typeof min === 'number' && max < min)
    errors.push(
      fieldErrors.invalid(
        'spec.maxReplicas',
        max,
        'must be greater than or equal to `minReplicas`',
      ),
    );
  errors.push(...crossVersionReference(spec['scaleTargetRef'], 'spec.scaleTargetRef'));
  const metrics = listAt(spec, 'metrics');
  metrics.forEach((m, i) => errors.push(...metricSpec(isRecord(m) ? m : {}, `spec.metrics[${i}]`)));
  if (
    min === 0 &&
    !metrics.some((m) => isRecord(m) && (m['type'] === 'Object' || m['type'] === 'External'))
  )
    errors.push(
      fieldErrors.forbidden(
        'spec.metrics',
        'must specify at least one Object or External metric to support scaling to zero replicas',
      ),
    );
  const behavior = recordAt(spec, 'behavior');
  errors.push(
    ...scalingRulesErrors(behavior['scaleUp'], 'spec.behavior.scaleUp'),
    ...scalingRulesErrors(behavior['scaleDown'], 'spec.behavior.scaleDown'),
  );
  return errors;
}

/**
 * ValidateHorizontalPodAutoscalerUpdate (minReplicas 0 stays allowed where it was, as
 * HPAScaleToZero is off) and ValidateHorizontalPodAutoscalerStatusUpdate.
 */
export function validateUpdate(next: KubeObject, current: KubeObject): FieldError[] {
  const wasZero = recordAt(current, 'spec')['minReplicas'] === 0;
  const status = recordAt(next, 'status');
  return [
    ...validateSpec(next, wasZero ? 0 : 1),
    ...nonNegative(status['currentReplicas'], 'status.currentReplicas'),
    ...nonNegative(status['desiredReplicas'], 'status.desiredReplicas'),
  ];
}
