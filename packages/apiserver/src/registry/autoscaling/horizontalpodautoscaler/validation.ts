import {
  fieldErrors,
  isDNS1123Label,
  isValidPathSegmentName,
  quantitySign,
  type FieldError,
} from '@listwatch/api';
import type * as autoscalingv2 from 'kubernetes-types/autoscaling/v2.js';
import { nonNegative } from '../../kind-helpers.js';
import type { Decoded } from '../../rest/typed-object.js';
import type { HorizontalPodAutoscaler, ScalingRules } from './conversion.js';

// pkg/apis/autoscaling/validation/validation.go: ValidateHorizontalPodAutoscaler(Update) and
// ValidateHorizontalPodAutoscalerStatusUpdate, run on the object as stored (autoscaling/v2).

const MAX_PERIOD_SECONDS = 1800;
const MAX_STABILIZATION_WINDOW_SECONDS = 3600;
const METRIC_SOURCE_TYPES = ['ContainerResource', 'External', 'Object', 'Pods', 'Resource'];

type MetricSpec = Decoded<autoscalingv2.MetricSpec>;
type MetricTarget = Decoded<autoscalingv2.MetricTarget>;
/** Any metric source: the fields of all five (each reads the ones its type has). */
type MetricSource = Decoded<autoscalingv2.ObjectMetricSource> &
  Decoded<autoscalingv2.ExternalMetricSource> &
  Decoded<autoscalingv2.PodsMetricSource> &
  Decoded<autoscalingv2.ResourceMetricSource> &
  Decoded<autoscalingv2.ContainerResourceMetricSource>;

const set = (value: unknown) => value !== undefined;
const positive = (value: string | undefined) => value !== undefined && quantitySign(value) === 1;

function pathSegment(value: string | undefined, path: string): FieldError[] {
  if (!value) return [fieldErrors.required(path, '')];
  return isValidPathSegmentName(value).map((msg) => fieldErrors.invalid(path, value, msg));
}

/** ValidateCrossVersionObjectReference. */
function crossVersionReference(
  ref: Decoded<autoscalingv2.CrossVersionObjectReference> | undefined,
  path: string,
): FieldError[] {
  return [...pathSegment(ref?.kind, `${path}.kind`), ...pathSegment(ref?.name, `${path}.name`)];
}

function metricIdentifier(
  id: Decoded<autoscalingv2.MetricIdentifier> | undefined,
  path: string,
): FieldError[] {
  const name = id?.name;
  if (!name) return [fieldErrors.required(`${path}.name`, 'must specify a metric name')];
  return isValidPathSegmentName(name).map((msg) => fieldErrors.invalid(`${path}.name`, name, msg));
}

function metricTarget(target: MetricTarget, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const type = target.type;
  if (!type) errors.push(fieldErrors.required(`${path}.type`, 'must specify a metric target type'));
  if (type !== 'Utilization' && type !== 'Value' && type !== 'AverageValue')
    errors.push(
      fieldErrors.invalid(
        `${path}.type`,
        type ?? '',
        'must be either Utilization, Value, or AverageValue',
      ),
    );
  for (const key of ['value', 'averageValue'] as const)
    if (set(target[key]) && !positive(target[key]))
      errors.push(fieldErrors.invalid(`${path}.${key}`, target[key], 'must be positive'));
  const utilization = target.averageUtilization;
  if (utilization !== undefined && utilization < 1)
    errors.push(
      fieldErrors.invalid(`${path}.averageUtilization`, utilization, 'must be greater than 0'),
    );
  return errors;
}

function metricSource(type: string, source: MetricSource, path: string): FieldError[] {
  const target = source.target ?? {};
  const errors: FieldError[] = [];
  const targetPath = `${path}.target`;
  switch (type) {
    case 'object':
    case 'external':
      if (type === 'object')
        errors.push(...crossVersionReference(source.describedObject, `${path}.describedObject`));
      errors.push(
        ...metricIdentifier(source.metric, `${path}.metric`),
        ...metricTarget(target, targetPath),
      );
      if (!set(target.value) && !set(target.averageValue))
        errors.push(
          fieldErrors.required(
            `${targetPath}.averageValue`,
            type === 'object'
              ? 'must set either a target value or averageValue'
              : 'must set either a target value for metric or a per-pod target',
          ),
        );
      if (type === 'external' && set(target.value) && set(target.averageValue))
        errors.push(
          fieldErrors.forbidden(
            `${targetPath}.value`,
            'may not set both a target value for metric and a per-pod target',
          ),
        );
      break;
    case 'pods':
      errors.push(
        ...metricIdentifier(source.metric, `${path}.metric`),
        ...metricTarget(target, targetPath),
      );
      if (!set(target.averageValue))
        errors.push(
          fieldErrors.required(
            `${targetPath}.averageValue`,
            'must specify a positive target averageValue',
          ),
        );
      break;
    case 'resource':
    case 'containerResource':
      if (!source.name)
        errors.push(fieldErrors.required(`${path}.name`, 'must specify a resource name'));
      if (type === 'containerResource') {
        const { container } = source;
        if (!container)
          errors.push(fieldErrors.required(`${path}.container`, 'must specify a container'));
        else
          errors.push(
            ...isDNS1123Label(container).map((msg) =>
              fieldErrors.invalid(`${path}.container`, container, msg),
            ),
          );
      }
      errors.push(...metricTarget(target, targetPath));
      if (!set(target.averageUtilization) && !set(target.averageValue))
        errors.push(
          fieldErrors.required(
            `${targetPath}.averageUtilization`,
            'must set either a target raw value or a target utilization',
          ),
        );
      if (set(target.averageUtilization) && set(target.averageValue))
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
function metricSpec(spec: MetricSpec, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const type = spec.type ?? '';
  if (!type) errors.push(fieldErrors.required(`${path}.type`, 'must specify a metric source type'));
  if (!METRIC_SOURCE_TYPES.includes(type))
    errors.push(fieldErrors.notSupported(`${path}.type`, type, METRIC_SOURCE_TYPES));
  const present = SOURCES.filter((key) => spec[key] !== undefined);
  const first = present[0];
  if (first) errors.push(...metricSource(first, spec[first] ?? {}, `${path}.${first}`));
  const expected = SOURCES.find((key) => key.toLowerCase() === type.toLowerCase());
  if (expected) {
    if (spec[expected] === undefined)
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

function scalingRulesErrors(rules: ScalingRules | undefined, path: string): FieldError[] {
  if (!rules) return [];
  const errors: FieldError[] = [];
  const window = rules.stabilizationWindowSeconds;
  if (window !== undefined && window < 0)
    errors.push(
      fieldErrors.invalid(
        `${path}.stabilizationWindowSeconds`,
        window,
        'must be greater than or equal to zero',
      ),
    );
  if (window !== undefined && window > MAX_STABILIZATION_WINDOW_SECONDS)
    errors.push(
      fieldErrors.invalid(
        `${path}.stabilizationWindowSeconds`,
        window,
        `must be less than or equal to ${MAX_STABILIZATION_WINDOW_SECONDS}`,
      ),
    );
  const select = rules.selectPolicy;
  if (select !== undefined && !['Disabled', 'Max', 'Min'].includes(select))
    errors.push(
      fieldErrors.notSupported(`${path}.selectPolicy`, select, ['Disabled', 'Max', 'Min']),
    );
  const policies = rules.policies ?? [];
  if (policies.length === 0)
    errors.push(fieldErrors.required(`${path}.policies`, 'must specify at least one Policy'));
  policies.forEach((policy, i) => {
    const at = `${path}.policies[${i}]`;
    if (policy.type !== 'Pods' && policy.type !== 'Percent')
      errors.push(fieldErrors.notSupported(`${at}.type`, policy.type ?? '', ['Percent', 'Pods']));
    const value = policy.value ?? 0;
    if (value <= 0)
      errors.push(fieldErrors.invalid(`${at}.value`, value, 'must be greater than zero'));
    const period = policy.periodSeconds ?? 0;
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
export function validateSpec(hpa: HorizontalPodAutoscaler, lowerBound: number): FieldError[] {
  const spec = hpa.spec ?? {};
  const errors: FieldError[] = [];
  const min = spec.minReplicas;
  const max = spec.maxReplicas ?? 0;
  if (min !== undefined && min < lowerBound)
    errors.push(
      fieldErrors.invalid(
        'spec.minReplicas',
        min,
        `must be greater than or equal to ${lowerBound}`,
      ),
    );
  if (max < 1) errors.push(fieldErrors.invalid('spec.maxReplicas', max, 'must be greater than 0'));
  if (min !== undefined && max < min)
    errors.push(
      fieldErrors.invalid(
        'spec.maxReplicas',
        max,
        'must be greater than or equal to `minReplicas`',
      ),
    );
  errors.push(...crossVersionReference(spec.scaleTargetRef, 'spec.scaleTargetRef'));
  const metrics = spec.metrics ?? [];
  metrics.forEach((m, i) => errors.push(...metricSpec(m, `spec.metrics[${i}]`)));
  if (min === 0 && !metrics.some((m) => m.type === 'Object' || m.type === 'External'))
    errors.push(
      fieldErrors.forbidden(
        'spec.metrics',
        'must specify at least one Object or External metric to support scaling to zero replicas',
      ),
    );
  const behavior = spec.behavior ?? {};
  errors.push(
    ...scalingRulesErrors(behavior.scaleUp, 'spec.behavior.scaleUp'),
    ...scalingRulesErrors(behavior.scaleDown, 'spec.behavior.scaleDown'),
  );
  return errors;
}

/**
 * ValidateHorizontalPodAutoscalerUpdate (minReplicas 0 stays allowed where it was, as
 * HPAScaleToZero is off) and ValidateHorizontalPodAutoscalerStatusUpdate.
 */
export function validateUpdate(
  next: HorizontalPodAutoscaler,
  current: HorizontalPodAutoscaler,
): FieldError[] {
  const wasZero = current.spec?.minReplicas === 0;
  const status = next.status ?? {};
  return [
    ...validateSpec(next, wasZero ? 0 : 1),
    ...nonNegative(status.currentReplicas, 'status.currentReplicas'),
    ...nonNegative(status.desiredReplicas, 'status.desiredReplicas'),
  ];
}
