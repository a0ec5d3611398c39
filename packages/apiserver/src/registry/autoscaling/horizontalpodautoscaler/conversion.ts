import { decodeTypedValue, goJsonMarshal, isRecord, type KubeObject } from '@listwatch/api';
import type { StorageConversion } from '../../generic/converting-storage.js';
import { listAt, recordAt, type Json } from '../../kind-helpers.js';

// autoscaling/v1 as a view of the stored autoscaling/v2 HorizontalPodAutoscalers: the conversion
// of pkg/apis/autoscaling/v1/conversion.go (what v1 cannot say travels in annotations,
// pkg/apis/autoscaling/annotations.go).

/** autoscaling.DefaultCPUUtilization. */
export const DEFAULT_CPU_UTILIZATION = 80;

// pkg/apis/autoscaling/annotations.go: what autoscaling/v1 keeps of a v2 object it cannot show.
const METRIC_SPECS = 'autoscaling.alpha.kubernetes.io/metrics';
const METRIC_STATUSES = 'autoscaling.alpha.kubernetes.io/current-metrics';
const CONDITIONS = 'autoscaling.alpha.kubernetes.io/conditions';
const BEHAVIOR = 'autoscaling.alpha.kubernetes.io/behavior';
const ROUND_TRIP = [METRIC_SPECS, METRIC_STATUSES, CONDITIONS, BEHAVIOR];

/** DropRoundTripHorizontalPodAutoscalerAnnotations: the annotations without the four above. */
export function dropRoundTrip(object: KubeObject): Record<string, string> | undefined {
  const annotations = object.metadata.annotations;
  if (!annotations || !ROUND_TRIP.some((key) => key in annotations)) return annotations;
  const kept = Object.fromEntries(
    Object.entries(annotations).filter(([key]) => !ROUND_TRIP.includes(key)),
  );
  return kept;
}

/** Present (Go: a non-nil pointer). */
export const set = (value: unknown) => value !== undefined && value !== null;

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
