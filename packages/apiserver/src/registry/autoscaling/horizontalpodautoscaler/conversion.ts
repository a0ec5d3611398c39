import { decodeTypedValue, goJsonMarshal, isRecord, type KubeObject } from '@listwatch/api';
import type * as autoscalingv1 from 'kubernetes-types/autoscaling/v1.js';
import type * as autoscalingv2 from 'kubernetes-types/autoscaling/v2.js';
import type * as metav1 from 'kubernetes-types/meta/v1.js';
import type { StorageConversion } from '../../generic/converting-storage.js';
import type { Decoded, TypedObject } from '../../rest/typed-object.js';

// autoscaling/v1 as a view of the stored autoscaling/v2 HorizontalPodAutoscalers: the conversion
// of pkg/apis/autoscaling/v1/conversion.go (what v1 cannot say travels in annotations,
// pkg/apis/autoscaling/annotations.go).

/** HPAScalingRules with its tolerance (Kubernetes 1.33, newer than kubernetes-types' 1.30). */
interface HPAScalingRules extends autoscalingv2.HPAScalingRules {
  tolerance?: string;
}

interface HorizontalPodAutoscalerSpec extends Omit<
  autoscalingv2.HorizontalPodAutoscalerSpec,
  'behavior'
> {
  behavior?: { scaleUp?: HPAScalingRules; scaleDown?: HPAScalingRules };
}

/** An autoscaling/v2 HorizontalPodAutoscaler as decoded: the stored form. */
export type HorizontalPodAutoscaler = TypedObject<
  Omit<autoscalingv2.HorizontalPodAutoscaler, 'spec'> & { spec?: HorizontalPodAutoscalerSpec }
>;
/** An autoscaling/v1 HorizontalPodAutoscaler as decoded. */
export type HorizontalPodAutoscalerV1 = TypedObject<autoscalingv1.HorizontalPodAutoscaler>;
export type ScalingRules = Decoded<HPAScalingRules>;
type Spec = NonNullable<HorizontalPodAutoscaler['spec']>;
type Status = NonNullable<HorizontalPodAutoscaler['status']>;

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

// --- v2 (internal) ⇄ v1 metric forms ----------------------------------------------------------

/** Which half of a metric: the spec's target or the status's current value. */
type Side = 'target' | 'current';

type Reference = Decoded<autoscalingv2.CrossVersionObjectReference>;

/**
 * A v2 metric source of a MetricSpec or a MetricStatus (the fields of all five kinds; `target`
 * on the spec's side, `current` on the status's).
 */
interface V2Source {
  describedObject?: Reference;
  metric?: Decoded<autoscalingv2.MetricIdentifier>;
  name?: string;
  container?: string;
  target?: Decoded<autoscalingv2.MetricTarget>;
  current?: Decoded<autoscalingv2.MetricTarget>;
}

/** A v2 MetricSpec or MetricStatus. */
interface V2Metric {
  type?: string;
  object?: V2Source;
  pods?: V2Source;
  resource?: V2Source;
  containerResource?: V2Source;
  external?: V2Source;
}

/**
 * A source of autoscaling/v1's MetricSpec or MetricStatus (k8s.io/api autoscaling/v1 types.go;
 * OpenAPI and so kubernetes-types leave them out, only the annotations hold them): the value
 * fields are named after the side.
 */
interface V1Source {
  target?: Reference;
  metricName?: string;
  selector?: Decoded<metav1.LabelSelector>;
  metricSelector?: Decoded<metav1.LabelSelector>;
  name?: string;
  container?: string;
  averageValue?: string;
  targetValue?: string;
  currentValue?: string;
  targetAverageValue?: string;
  currentAverageValue?: string;
  targetAverageUtilization?: number;
  currentAverageUtilization?: number;
}

interface V1Metric {
  type?: string;
  object?: V1Source;
  pods?: V1Source;
  resource?: V1Source;
  containerResource?: V1Source;
  external?: V1Source;
}

/** Copies the fields that are set (Go: non-nil pointers), in order. */
function withoutUnset<T extends object>(fields: { [K in keyof T]: T[K] | undefined }): T {
  return Object.fromEntries(
    Object.entries(fields).filter(([, v]) => v !== undefined && v !== null),
  ) as T;
}

function reference(ref: Reference | undefined): Reference {
  return withoutUnset<Reference>({
    kind: ref?.kind ?? '',
    name: ref?.name ?? '',
    apiVersion: ref?.apiVersion,
  });
}

/**
 * Convert_autoscaling_MetricSpec_To_v1_MetricSpec (`target`) and
 * Convert_autoscaling_MetricStatus_To_v1_MetricStatus (`current`): autoscaling/v1 names the
 * value's fields after the side (`targetAverageValue`, `currentAverageValue`); a quantity that
 * is not a pointer in the v1 struct is written `0` when unset, as Go does.
 */
function metricToV1(metric: V2Metric, side: Side): V1Metric {
  const out: V1Metric = { type: metric.type ?? '' };
  const status = side === 'current';
  const { object, pods, resource, containerResource, external } = metric;
  const value = `${side}Value` as const;
  const averageValue = `${side}AverageValue` as const;
  const averageUtilization = `${side}AverageUtilization` as const;
  if (object)
    out.object = withoutUnset<V1Source>({
      target: reference(object.describedObject),
      metricName: object.metric?.name ?? '',
      [value]: object[side]?.value ?? '0',
      selector: object.metric?.selector,
      averageValue: object[side]?.averageValue,
    });
  if (pods)
    out.pods = withoutUnset<V1Source>({
      metricName: pods.metric?.name ?? '',
      [averageValue]: pods[side]?.averageValue ?? '0',
      selector: pods.metric?.selector,
    });
  for (const key of ['resource', 'containerResource'] as const) {
    const source = key === 'resource' ? resource : containerResource;
    if (source)
      out[key] = withoutUnset<V1Source>({
        name: source.name ?? '',
        [averageUtilization]: source[side]?.averageUtilization,
        [averageValue]: source[side]?.averageValue ?? (status ? '0' : undefined),
        ...(key === 'containerResource' ? { container: source.container ?? '' } : {}),
      });
  }
  if (external)
    out.external = withoutUnset<V1Source>({
      metricName: external.metric?.name ?? '',
      metricSelector: external.metric?.selector,
      [value]: external[side]?.value ?? (status ? '0' : undefined),
      [averageValue]: external[side]?.averageValue,
    });
  return out;
}

/**
 * Convert_v1_MetricSpec_To_autoscaling_MetricSpec (`target`, whose MetricTarget also says its
 * type: the v1 fields that are set decide it) and Convert_v1_MetricStatus_To_autoscaling_MetricStatus
 * (`current`).
 */
function metricFromV1(metric: V1Metric, side: Side): V2Metric {
  const out: V2Metric = { type: metric.type ?? '' };
  const measured = (
    type: string,
    fields: { value?: string; averageValue?: string; averageUtilization?: number | undefined },
  ): V2Source => ({
    [side]: withoutUnset<Decoded<autoscalingv2.MetricTarget>>(
      side === 'target' ? { type, ...fields } : fields,
    ),
  });
  const { object, pods, resource, containerResource, external } = metric;
  if (object) {
    const { averageValue } = object;
    out.object = {
      describedObject: reference(object.target),
      ...measured(averageValue !== undefined ? 'AverageValue' : 'Value', {
        value: object[`${side}Value`] ?? '0',
        ...(averageValue !== undefined ? { averageValue } : {}),
      }),
      metric: withoutUnset({ name: object.metricName ?? '', selector: object.selector }),
    };
  }
  if (pods)
    out.pods = {
      metric: withoutUnset({ name: pods.metricName ?? '', selector: pods.selector }),
      ...measured('AverageValue', { averageValue: pods[`${side}AverageValue`] ?? '0' }),
    };
  for (const key of ['resource', 'containerResource'] as const) {
    const source = key === 'resource' ? resource : containerResource;
    if (!source) continue;
    const utilization = source[`${side}AverageUtilization`];
    const averageValue = source[`${side}AverageValue`];
    const shown = side === 'current' ? (averageValue ?? '0') : averageValue;
    out[key] = {
      name: source.name ?? '',
      ...measured(utilization !== undefined ? 'Utilization' : 'AverageValue', {
        averageUtilization: utilization,
        ...(shown !== undefined ? { averageValue: shown } : {}),
      }),
      ...(key === 'containerResource' ? { container: source.container ?? '' } : {}),
    };
  }
  if (external) {
    const value = external[`${side}Value`];
    const shown = side === 'current' ? (value ?? '0') : value;
    const averageValue = external[`${side}AverageValue`];
    out.external = {
      metric: withoutUnset({ name: external.metricName ?? '', selector: external.metricSelector }),
      ...measured(value !== undefined ? 'Value' : 'AverageValue', {
        ...(shown !== undefined ? { value: shown } : {}),
        ...(averageValue !== undefined ? { averageValue } : {}),
      }),
    };
  }
  return out;
}

/**
 * The behavior annotation holds the internal HorizontalPodAutoscalerBehavior as encoding/json
 * writes a struct without json tags: Go field names, nil pointers as null.
 */
function behaviorToAnnotation(behavior: NonNullable<Spec['behavior']>): string {
  const rules = (value: ScalingRules | undefined) =>
    value
      ? {
          StabilizationWindowSeconds: value.stabilizationWindowSeconds ?? null,
          SelectPolicy: value.selectPolicy ?? null,
          Policies:
            value.policies?.map((policy) => ({
              Type: policy.type ?? '',
              Value: policy.value ?? 0,
              PeriodSeconds: policy.periodSeconds ?? 0,
            })) ?? null,
          Tolerance: value.tolerance ?? null,
        }
      : null;
  return goJsonMarshal({ ScaleUp: rules(behavior.scaleUp), ScaleDown: rules(behavior.scaleDown) });
}

/** json.Unmarshal into the internal type matches keys case-insensitively; nulls are unset. */
function fromGoNames(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(fromGoNames);
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
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

/**
 * An annotation's JSON decoded as a value of `typeName` (Go's json.Unmarshal into the v1 or
 * internal type), or undefined when it is not JSON of that type: such an annotation is ignored,
 * as text that is not JSON is.
 */
function decodeAnnotation<T>(text: string | undefined, typeName: string): T | undefined {
  const value = parseAnnotation(text);
  if (value === undefined || value === null) return undefined;
  return decodeTypedValue(value, typeName) === undefined ? (value as T) : undefined;
}

/** A list annotation (`[]typeName`), its null items Go's zero struct. */
function decodeAnnotationList<T>(text: string | undefined, typeName: string): T[] | undefined {
  const value = parseAnnotation(text);
  if (!Array.isArray(value)) return undefined;
  const items = value.map((item: unknown) => item ?? {});
  return items.every((item) => decodeTypedValue(item, typeName) === undefined)
    ? (items as T[])
    : undefined;
}

const isCpu = (metric: V2Metric) => metric.type === 'Resource' && metric.resource?.name === 'cpu';

/** A stored (autoscaling/v2) HPA as autoscaling/v1 serves it. */
export function hpaToV1(hpa: HorizontalPodAutoscaler): HorizontalPodAutoscalerV1 {
  const spec = hpa.spec ?? {};
  const status: Status = hpa.status ?? {};
  const metrics: V2Metric[] = spec.metrics ?? [];
  const annotations: Record<string, string> = { ...(dropRoundTrip(hpa) ?? {}) };
  const targetCPU = metrics.find(isCpu)?.resource?.target?.averageUtilization;
  const others = metrics.filter(
    (m) => !(isCpu(m) && m.resource?.target?.averageUtilization !== undefined),
  );
  const current: V2Metric[] = status.currentMetrics ?? [];
  let currentCPU: number | undefined;
  for (const m of current)
    if (isCpu(m)) currentCPU = m.resource?.current?.averageUtilization ?? currentCPU;
  const conditions = status.conditions ?? [];
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
  if (spec.behavior) annotations[BEHAVIOR] = behaviorToAnnotation(spec.behavior);
  if (conditions.length) annotations[CONDITIONS] = goJsonMarshal(conditions);
  const { annotations: _dropped, ...metadata } = hpa.metadata;
  return {
    ...hpa,
    apiVersion: 'autoscaling/v1',
    metadata: { ...metadata, ...(Object.keys(annotations).length ? { annotations } : {}) },
    spec: withoutUnset<NonNullable<HorizontalPodAutoscalerV1['spec']>>({
      scaleTargetRef: spec.scaleTargetRef ?? { kind: '', name: '' },
      minReplicas: spec.minReplicas,
      maxReplicas: spec.maxReplicas ?? 0,
      targetCPUUtilizationPercentage: targetCPU,
    }),
    ...('status' in hpa
      ? {
          status: withoutUnset<NonNullable<HorizontalPodAutoscalerV1['status']>>({
            observedGeneration: status.observedGeneration,
            lastScaleTime: status.lastScaleTime,
            currentReplicas: status.currentReplicas ?? 0,
            desiredReplicas: status.desiredReplicas ?? 0,
            currentCPUUtilizationPercentage: currentCPU,
          }),
        }
      : {}),
  };
}

/** JSON of a list of autoscaling/v1 structs as encoding/json writes them (zero fields kept). */
function goJson(items: V1Metric[], type: string): string {
  for (const item of items) decodeTypedValue(item, `io.k8s.api.autoscaling.v1.${type}`);
  return goJsonMarshal(items);
}

/** An autoscaling/v1 HPA as it is stored (autoscaling/v2). */
export function hpaFromV1(hpa: HorizontalPodAutoscalerV1): HorizontalPodAutoscaler {
  const spec = hpa.spec ?? {};
  const status = hpa.status ?? {};
  const given = hpa.metadata.annotations ?? {};
  const metrics: V2Metric[] = [];
  const cpuMetric = (averageUtilization: number, side: Side): V2Metric => ({
    type: 'Resource',
    resource: {
      name: 'cpu',
      [side]:
        side === 'target' ? { type: 'Utilization', averageUtilization } : { averageUtilization },
    },
  });
  if (spec.targetCPUUtilizationPercentage !== undefined)
    metrics.push(cpuMetric(spec.targetCPUUtilizationPercentage, 'target'));
  const others = decodeAnnotationList<V1Metric>(
    given[METRIC_SPECS],
    'io.k8s.api.autoscaling.v1.MetricSpec',
  );
  if (others) metrics.push(...others.map((m) => metricFromV1(m, 'target')));
  // autoscaling/v1 once had an implicit default in the controller, applied here explicitly.
  if (metrics.length === 0) metrics.push(cpuMetric(DEFAULT_CPU_UTILIZATION, 'target'));
  let currentMetrics: V2Metric[] | undefined;
  if (status.currentCPUUtilizationPercentage !== undefined)
    currentMetrics = [cpuMetric(status.currentCPUUtilizationPercentage, 'current')];
  const current = decodeAnnotationList<V1Metric>(
    given[METRIC_STATUSES],
    'io.k8s.api.autoscaling.v1.MetricStatus',
  );
  // The annotation says more than currentCPUUtilizationPercentage: it wins.
  if (current) currentMetrics = current.map((m) => metricFromV1(m, 'current'));
  const behaviorJson = parseAnnotation(given[BEHAVIOR]);
  const behavior = isRecord(behaviorJson)
    ? decodeAnnotation<Spec['behavior']>(
        JSON.stringify(fromGoNames(behaviorJson)),
        'io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerBehavior',
      )
    : undefined;
  const conditions = decodeAnnotationList<Decoded<autoscalingv2.HorizontalPodAutoscalerCondition>>(
    given[CONDITIONS],
    'io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerCondition',
  );
  const annotations = dropRoundTrip(hpa);
  const { annotations: _given, ...metadata } = hpa.metadata;
  return {
    ...hpa,
    apiVersion: 'autoscaling/v2',
    metadata: {
      ...metadata,
      ...(annotations && Object.keys(annotations).length ? { annotations } : {}),
    },
    spec: withoutUnset<Spec>({
      scaleTargetRef: spec.scaleTargetRef ?? { kind: '', name: '' },
      minReplicas: spec.minReplicas,
      maxReplicas: spec.maxReplicas ?? 0,
      metrics,
      behavior,
    }),
    ...('status' in hpa
      ? {
          status: withoutUnset<Status>({
            observedGeneration: status.observedGeneration,
            lastScaleTime: status.lastScaleTime,
            currentReplicas: status.currentReplicas || undefined,
            desiredReplicas: status.desiredReplicas ?? 0,
            currentMetrics,
            conditions: conditions?.length ? conditions : undefined,
          }),
        }
      : {}),
  };
}

export const hpaV1Storage: StorageConversion = { toStored: hpaFromV1, fromStored: hpaToV1 };
