import {
  decodeTypedValue,
  fieldErrors,
  goJsonMarshal,
  isDNS1123Label,
  isRecord,
  isValidPathSegmentName,
  quantitySign,
  type FieldError,
  type KubeObject,
} from '@listwatch/api';
import type { StorageConversion } from '../../generic/converting-storage.js';
import {
  child,
  defaultTo,
  kindStrategy,
  listAt,
  nonNegative,
  recordAt,
  type Json,
} from '../../kind-helpers.js';

// HorizontalPodAutoscalers as kube-apiserver serves them: stored as autoscaling/v2 (the
// storage version), autoscaling/v1 a view of the same objects through the conversion of
// pkg/apis/autoscaling/v1/conversion.go (what v1 cannot say travels in annotations);
// SetDefaults_HorizontalPodAutoscaler of pkg/apis/autoscaling/v2/defaults.go and v1/defaults.go;
// pkg/apis/autoscaling/validation/validation.go; pkg/registry/autoscaling/horizontalpodautoscaler/
// strategy.go (status cleared on create, kept on update).

/** autoscaling.DefaultCPUUtilization. */
const DEFAULT_CPU_UTILIZATION = 80;

// pkg/apis/autoscaling/annotations.go: what autoscaling/v1 keeps of a v2 object it cannot show.
const METRIC_SPECS = 'autoscaling.alpha.kubernetes.io/metrics';
const METRIC_STATUSES = 'autoscaling.alpha.kubernetes.io/current-metrics';
const CONDITIONS = 'autoscaling.alpha.kubernetes.io/conditions';
const BEHAVIOR = 'autoscaling.alpha.kubernetes.io/behavior';
const ROUND_TRIP = [METRIC_SPECS, METRIC_STATUSES, CONDITIONS, BEHAVIOR];

/** DropRoundTripHorizontalPodAutoscalerAnnotations: the annotations without the four above. */
function dropRoundTrip(object: KubeObject): Record<string, string> | undefined {
  const annotations = object.metadata.annotations;
  if (!annotations || !ROUND_TRIP.some((key) => key in annotations)) return annotations;
  const kept = Object.fromEntries(
    Object.entries(annotations).filter(([key]) => !ROUND_TRIP.includes(key)),
  );
  return kept;
}

/** Present (Go: a non-nil pointer). */
const set = (value: unknown) => value !== undefined && value !== null;

function withoutUnset(fields: Json): Json {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => set(v)));
}

// --- v2 (internal) ⇄ v1 metric forms ----------------------------------------------------------

function reference(ref: unknown): Json {
  const r = isRecord(ref) ? ref : {};
  return withoutUnset({
    kind: r['kind'] ?? '',
    name: r['name'] ?? '',
    apiVersion: r['apiVersion'],
  });
}

/** Which half of a metric: the spec's target or the status's current value. */
type Side = 'target' | 'current';

/**
 * Convert_autoscaling_MetricSpec_To_v1_MetricSpec (`target`) and
 * Convert_autoscaling_MetricStatus_To_v1_MetricStatus (`current`): autoscaling/v1 names the
 * value's fields after the side (`targetAverageValue`, `currentAverageValue`); a quantity that
 * is not a pointer in the v1 struct is written `0` when unset, as Go does.
 */
function metricToV1(metric: Json, side: Side): Json {
  const out: Json = { type: metric['type'] ?? '' };
  const status = side === 'current';
  const source = (key: string) => recordAt(metric, key);
  const value = (key: string) => recordAt(source(key), side);
  const id = (key: string) => recordAt(source(key), 'metric');
  if (isRecord(metric['object']))
    out['object'] = withoutUnset({
      target: reference(source('object')['describedObject']),
      metricName: id('object')['name'] ?? '',
      [`${side}Value`]: value('object')['value'] ?? '0',
      selector: id('object')['selector'],
      averageValue: value('object')['averageValue'],
    });
  if (isRecord(metric['pods']))
    out['pods'] = withoutUnset({
      metricName: id('pods')['name'] ?? '',
      [`${side}AverageValue`]: value('pods')['averageValue'] ?? '0',
      selector: id('pods')['selector'],
    });
  for (const key of ['resource', 'containerResource'] as const)
    if (isRecord(metric[key]))
      out[key] = withoutUnset({
        name: source(key)['name'] ?? '',
        [`${side}AverageUtilization`]: value(key)['averageUtilization'],
        [`${side}AverageValue`]: value(key)['averageValue'] ?? (status ? '0' : undefined),
        ...(key === 'containerResource' ? { container: source(key)['container'] ?? '' } : {}),
      });
  if (isRecord(metric['external']))
    out['external'] = withoutUnset({
      metricName: id('external')['name'] ?? '',
      metricSelector: id('external')['selector'],
      [`${side}Value`]: value('external')['value'] ?? (status ? '0' : undefined),
      [`${side}AverageValue`]: value('external')['averageValue'],
    });
  return out;
}

/**
 * Convert_v1_MetricSpec_To_autoscaling_MetricSpec (`target`, whose MetricTarget also says its
 * type: the v1 fields that are set decide it) and Convert_v1_MetricStatus_To_autoscaling_MetricStatus
 * (`current`).
 */
function metricFromV1(metric: Json, side: Side): Json {
  const out: Json = { type: metric['type'] ?? '' };
  const measured = (type: string, fields: Json) =>
    withoutUnset(side === 'target' ? { type, ...fields } : fields);
  const v1 = (key: string) => recordAt(metric, key);
  const field = (key: string, name: string) => v1(key)[`${side}${name}`];
  if (isRecord(metric['object'])) {
    const averageValue = v1('object')['averageValue'];
    out['object'] = {
      describedObject: reference(v1('object')['target']),
      [side]: measured(set(averageValue) ? 'AverageValue' : 'Value', {
        value: field('object', 'Value') ?? '0',
        averageValue,
      }),
      metric: withoutUnset({
        name: v1('object')['metricName'] ?? '',
        selector: v1('object')['selector'],
      }),
    };
  }
  if (isRecord(metric['pods']))
    out['pods'] = {
      metric: withoutUnset({
        name: v1('pods')['metricName'] ?? '',
        selector: v1('pods')['selector'],
      }),
      [side]: measured('AverageValue', { averageValue: field('pods', 'AverageValue') ?? '0' }),
    };
  for (const key of ['resource', 'containerResource'] as const)
    if (isRecord(metric[key])) {
      const utilization = field(key, 'AverageUtilization');
      const averageValue = field(key, 'AverageValue');
      out[key] = {
        name: v1(key)['name'] ?? '',
        [side]: measured(set(utilization) ? 'Utilization' : 'AverageValue', {
          averageUtilization: utilization,
          averageValue: side === 'current' ? (averageValue ?? '0') : averageValue,
        }),
        ...(key === 'containerResource' ? { container: v1(key)['container'] ?? '' } : {}),
      };
    }
  if (isRecord(metric['external'])) {
    const value = field('external', 'Value');
    out['external'] = {
      metric: withoutUnset({
        name: v1('external')['metricName'] ?? '',
        selector: v1('external')['metricSelector'],
      }),
      [side]: measured(set(value) ? 'Value' : 'AverageValue', {
        value: side === 'current' ? (value ?? '0') : value,
        averageValue: field('external', 'AverageValue'),
      }),
    };
  }
  return out;
}

/**
 * The behavior annotation holds the internal HorizontalPodAutoscalerBehavior as encoding/json
 * writes a struct without json tags: Go field names, nil pointers as null.
 */
function behaviorToAnnotation(behavior: Json): string {
  const rules = (value: unknown) => {
    if (!isRecord(value)) return null;
    return {
      StabilizationWindowSeconds: value['stabilizationWindowSeconds'] ?? null,
      SelectPolicy: value['selectPolicy'] ?? null,
      Policies: Array.isArray(value['policies'])
        ? (value['policies'] as unknown[]).map((p) => {
            const policy = isRecord(p) ? p : {};
            return {
              Type: policy['type'] ?? '',
              Value: policy['value'] ?? 0,
              PeriodSeconds: policy['periodSeconds'] ?? 0,
            };
          })
        : null,
      Tolerance: value['tolerance'] ?? null,
    };
  };
  return goJsonMarshal({
    ScaleUp: rules(behavior['scaleUp']),
    ScaleDown: rules(behavior['scaleDown']),
  });
}

/** json.Unmarshal into the internal type matches keys case-insensitively; nulls are unset. */
function fromGoNames(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(fromGoNames);
  if (!isRecord(value)) return value;
  const out: Json = {};
  for (const [key, inner] of Object.entries(value)) {
    if (inner === null) continue;
    out[key.charAt(0).toLowerCase() + key.slice(1)] = fromGoNames(inner);
  }
  return out;
}

function parseAnnotation(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

const isCpu = (metric: unknown, key: 'resource') =>
  isRecord(metric) &&
  metric['type'] === 'Resource' &&
  isRecord(metric[key]) &&
  metric[key]['name'] === 'cpu';

/** A stored (autoscaling/v2) HPA as autoscaling/v1 serves it. */
export function hpaToV1(hpa: KubeObject): KubeObject {
  const spec = recordAt(hpa, 'spec');
  const status = recordAt(hpa, 'status');
  const metrics = listAt(spec, 'metrics').filter(isRecord);
  const annotations: Record<string, string> = { ...(dropRoundTrip(hpa) ?? {}) };
  let targetCPU: unknown;
  const cpu = metrics.find((m) => isCpu(m, 'resource'));
  if (cpu) targetCPU = recordAt(recordAt(cpu, 'resource'), 'target')['averageUtilization'];
  const others = metrics.filter(
    (m) =>
      !(
        isCpu(m, 'resource') &&
        set(recordAt(recordAt(m, 'resource'), 'target')['averageUtilization'])
      ),
  );
  const current = listAt(status, 'currentMetrics').filter(isRecord);
  let currentCPU: unknown;
  for (const m of current)
    if (isCpu(m, 'resource')) {
      const utilization = recordAt(recordAt(m, 'resource'), 'current')['averageUtilization'];
      if (set(utilization)) currentCPU = utilization;
    }
  const conditions = listAt(status, 'conditions');
  if (others.length)
    annotations[METRIC_SPECS] = goJson(
      others.map((m) => metricToV1(m, 'target')),
      'MetricSpec',
    );
  if (current.length)
    annotations[METRIC_STATUSES] = goJson(
      current.map((m) => metricToV1(m, 'current')),
      'MetricStatus',
    );
  if (isRecord(spec['behavior'])) annotations[BEHAVIOR] = behaviorToAnnotation(spec['behavior']);
  if (conditions.length) annotations[CONDITIONS] = goJsonMarshal(conditions);
  const { annotations: _dropped, ...metadata } = hpa.metadata;
  return {
    ...hpa,
    apiVersion: 'autoscaling/v1',
    metadata: { ...metadata, ...(Object.keys(annotations).length ? { annotations } : {}) },
    spec: withoutUnset({
      scaleTargetRef: spec['scaleTargetRef'] ?? { kind: '', name: '' },
      minReplicas: spec['minReplicas'],
      maxReplicas: spec['maxReplicas'] ?? 0,
      targetCPUUtilizationPercentage: targetCPU,
    }),
    ...('status' in hpa
      ? {
          status: withoutUnset({
            observedGeneration: status['observedGeneration'],
            lastScaleTime: status['lastScaleTime'],
            currentReplicas: status['currentReplicas'] ?? 0,
            desiredReplicas: status['desiredReplicas'] ?? 0,
            currentCPUUtilizationPercentage: currentCPU,
          }),
        }
      : {}),
  };
}

/** JSON of a list of autoscaling/v1 structs as encoding/json writes them (zero fields kept). */
function goJson(items: Json[], type: string): string {
  for (const item of items) decodeTypedValue(item, `io.k8s.api.autoscaling.v1.${type}`);
  return goJsonMarshal(items);
}

/** An autoscaling/v1 HPA as it is stored (autoscaling/v2). */
export function hpaFromV1(hpa: KubeObject): KubeObject {
  const spec = recordAt(hpa, 'spec');
  const status = recordAt(hpa, 'status');
  const given = hpa.metadata.annotations ?? {};
  const metrics: unknown[] = [];
  if (set(spec['targetCPUUtilizationPercentage']))
    metrics.push({
      type: 'Resource',
      resource: {
        name: 'cpu',
        target: { type: 'Utilization', averageUtilization: spec['targetCPUUtilizationPercentage'] },
      },
    });
  const others = parseAnnotation(given[METRIC_SPECS]);
  if (Array.isArray(others))
    metrics.push(...others.filter(isRecord).map((m) => metricFromV1(m, 'target')));
  // autoscaling/v1 once had an implicit default in the controller, applied here explicitly.
  if (metrics.length === 0)
    metrics.push({
      type: 'Resource',
      resource: {
        name: 'cpu',
        target: { type: 'Utilization', averageUtilization: DEFAULT_CPU_UTILIZATION },
      },
    });
  let currentMetrics: unknown[] | undefined;
  if (set(status['currentCPUUtilizationPercentage']))
    currentMetrics = [
      {
        type: 'Resource',
        resource: {
          name: 'cpu',
          current: { averageUtilization: status['currentCPUUtilizationPercentage'] },
        },
      },
    ];
  const current = parseAnnotation(given[METRIC_STATUSES]);
  // The annotation says more than currentCPUUtilizationPercentage: it wins.
  if (Array.isArray(current))
    currentMetrics = current.filter(isRecord).map((m) => metricFromV1(m, 'current'));
  const behavior = parseAnnotation(given[BEHAVIOR]);
  const conditions = parseAnnotation(given[CONDITIONS]);
  const annotations = dropRoundTrip(hpa);
  const { annotations: _given, ...metadata } = hpa.metadata;
  return {
    ...hpa,
    apiVersion: 'autoscaling/v2',
    metadata: {
      ...metadata,
      ...(annotations && Object.keys(annotations).length ? { annotations } : {}),
    },
    spec: withoutUnset({
      scaleTargetRef: spec['scaleTargetRef'] ?? { kind: '', name: '' },
      minReplicas: spec['minReplicas'],
      maxReplicas: spec['maxReplicas'] ?? 0,
      metrics,
      behavior: isRecord(behavior) ? fromGoNames(behavior) : undefined,
    }),
    ...('status' in hpa
      ? {
          status: withoutUnset({
            observedGeneration: status['observedGeneration'],
            lastScaleTime: status['lastScaleTime'],
            currentReplicas: status['currentReplicas'] || undefined,
            desiredReplicas: status['desiredReplicas'] ?? 0,
            currentMetrics,
            conditions: Array.isArray(conditions) && conditions.length ? conditions : undefined,
          }),
        }
      : {}),
  };
}

export const hpaV1Storage: StorageConversion = { toStored: hpaFromV1, fromStored: hpaToV1 };

// --- defaults ------------------------------------------------------------------------------------

const SCALE_UP_RULES = () => ({
  stabilizationWindowSeconds: 0,
  selectPolicy: 'Max',
  policies: [
    { type: 'Pods', value: 4, periodSeconds: 15 },
    { type: 'Percent', value: 100, periodSeconds: 15 },
  ],
});
const SCALE_DOWN_RULES = () => ({
  selectPolicy: 'Max',
  policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }],
});

/** copyHPAScalingRules over GenerateHPAScaleUpRules / GenerateHPAScaleDownRules's defaults. */
function scalingRules(given: unknown, defaults: Json): Json {
  if (!isRecord(given)) return defaults;
  const out = { ...defaults };
  for (const key of ['selectPolicy', 'stabilizationWindowSeconds', 'policies', 'tolerance'])
    if (set(given[key])) out[key] = given[key];
  return out;
}

/** SetDefaults_HorizontalPodAutoscaler (autoscaling/v2). */
function defaultV2(hpa: KubeObject): void {
  const spec = child(hpa, 'spec');
  defaultTo(spec, 'minReplicas', 1);
  if (listAt(spec, 'metrics').length === 0)
    spec['metrics'] = [
      {
        type: 'Resource',
        resource: {
          name: 'cpu',
          target: { type: 'Utilization', averageUtilization: DEFAULT_CPU_UTILIZATION },
        },
      },
    ];
  const behavior = spec['behavior'];
  if (isRecord(behavior)) {
    behavior['scaleUp'] = scalingRules(behavior['scaleUp'], SCALE_UP_RULES());
    behavior['scaleDown'] = scalingRules(behavior['scaleDown'], SCALE_DOWN_RULES());
  }
}

// --- validation (pkg/apis/autoscaling/validation/validation.go) ---------------------------------

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
function validateSpec(hpa: KubeObject, lowerBound: number): FieldError[] {
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
function validateUpdate(next: KubeObject, current: KubeObject): FieldError[] {
  const wasZero = recordAt(current, 'spec')['minReplicas'] === 0;
  const status = recordAt(next, 'status');
  return [
    ...validateSpec(next, wasZero ? 0 : 1),
    ...nonNegative(status['currentReplicas'], 'status.currentReplicas'),
    ...nonNegative(status['desiredReplicas'], 'status.desiredReplicas'),
  ];
}

/** autoscaling/v2, the storage version. */
export const horizontalPodAutoscalerStrategy = kindStrategy({
  // HorizontalPodAutoscalerStatus{} (autoscaling/v2) as JSON: desiredReplicas, its one
  // non-omitempty number.
  status: () => ({ desiredReplicas: 0 }),
  decode(hpa) {
    // Convert_v2_HorizontalPodAutoscaler_To_autoscaling_HorizontalPodAutoscaler drops them.
    const annotations = dropRoundTrip(hpa);
    if (annotations) hpa.metadata.annotations = annotations;
    defaultV2(hpa);
  },
  validateCreate: (hpa) => validateSpec(hpa, 1),
  validateUpdate,
});

/**
 * autoscaling/v1: a view of the stored v2 objects. Its defaults are v1's (minReplicas 1);
 * validation runs on the object as stored, as kube validates the internal one.
 */
export const horizontalPodAutoscalerV1Strategy = kindStrategy({
  status: () => ({ currentReplicas: 0, desiredReplicas: 0 }),
  decode(hpa) {
    defaultTo(child(hpa, 'spec'), 'minReplicas', 1);
  },
  validateCreate: (hpa) => validateSpec(hpaFromV1(hpa), 1),
  validateUpdate: (next, current) => validateUpdate(hpaFromV1(next), hpaFromV1(current)),
  extra: { storage: hpaV1Storage },
});
