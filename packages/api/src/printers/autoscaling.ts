import type { KubeObject } from '../object-meta.js';
import type { TableColumn } from '../resource-definition.js';
import { nestedField as at } from '../unstructured.js';
import {
  abbreviated,
  AGE_COLUMN,
  array,
  column,
  fieldDoc,
  int,
  NAME_COLUMN,
  text,
} from './columns.js';

// The Table printers of HorizontalPodAutoscalers (kubernetes pkg/printers/internalversion/
// printers.go printHorizontalPodAutoscaler). autoscaling/v2 is kube's storage version
// (autoscaling/v1 is a view of the same objects); each version prints its own Targets.

/** printHorizontalPodAutoscaler's columns, `targets` printing the metrics of the version. */
function hpaColumns(targets: (o: KubeObject) => string): TableColumn[] {
  return [
    NAME_COLUMN,
    column(
      'Reference',
      fieldDoc('autoscaling.v2.HorizontalPodAutoscalerSpec', 'scaleTargetRef'),
      (o) =>
        `${text(o, 'spec.scaleTargetRef.kind', '')}/${text(o, 'spec.scaleTargetRef.name', '')}`,
    ),
    column(
      'Targets',
      'metrics contains the specifications for which to use to calculate the desired replica count (the maximum replica count across all metrics will be used).  The desired replica count is calculated multiplying the ratio between the target value and the current value by the current number of pods.  Ergo, metrics used must decrease as the pod count is increased, and vice-versa.  See the individual metric source types for more information about how each type of metric must respond.',
      targets,
    ),
    column(
      'MinPods',
      'minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down. It defaults to 1 pod.  minReplicas is allowed to be 0 if the alpha feature gate HPAScaleToZero is enabled and at least one Object or External metric is configured.  Scaling is active as long as at least one metric value is available.',
      (o) => {
        const min = at(o, 'spec.minReplicas');
        return typeof min === 'number' ? String(min) : '<unset>';
      },
    ),
    column('MaxPods', fieldDoc('autoscaling.v2.HorizontalPodAutoscalerSpec', 'maxReplicas'), (o) =>
      String(int(o, 'spec.maxReplicas')),
    ),
    column(
      'Replicas',
      fieldDoc('autoscaling.v2.HorizontalPodAutoscalerStatus', 'currentReplicas'),
      (o) => String(int(o, 'status.currentReplicas')),
    ),
    AGE_COLUMN,
  ];
}

/** printHorizontalPodAutoscaler for autoscaling/v1: the CPU target as its only metric. */
function hpaTargets(o: KubeObject): string {
  const target = at(o, 'spec.targetCPUUtilizationPercentage');
  if (typeof target !== 'number') return '<none>';
  const current = at(o, 'status.currentCPUUtilizationPercentage');
  return `cpu: ${typeof current === 'number' ? `${current}%` : '<unknown>'}/${target}%`;
}

/**
 * formatHPAMetrics (kubernetes pkg/printers/internalversion/printers.go): each metric as
 * `current/target`, resource metrics named, at most two and how many more.
 */
function hpaMetrics(o: KubeObject): string {
  const specs = array(o, 'spec.metrics') as Record<string, unknown>[];
  if (specs.length === 0) return '<none>';
  const statuses = array(o, 'status.currentMetrics') as Record<string, unknown>[];
  // A Quantity's String(): the canonical text the decode stored, `0` when unset.
  const str = (value: unknown) =>
    typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '0';
  const list = specs.map((spec, i) => {
    const status = statuses[i];
    const source = (key: string) =>
      at(spec, `${key}.target`) as Record<string, unknown> | undefined;
    const current = (key: string, field: string): unknown =>
      status ? at(status, `${key}.current.${field}`) : undefined;
    const has = (key: string) => status !== undefined && typeof status[key] === 'object';
    switch (spec['type']) {
      case 'External':
      case 'Object': {
        const key = spec['type'] === 'External' ? 'external' : 'object';
        const target = source(key) ?? {};
        if (target['averageValue'] != null) {
          const now = current(key, 'averageValue');
          return `${now != null ? str(now) : '<unknown>'}/${str(target['averageValue'])} (avg)`;
        }
        return `${has(key) ? str(current(key, 'value')) : '<unknown>'}/${str(target['value'])}`;
      }
      case 'Pods':
        return `${has('pods') ? str(current('pods', 'averageValue')) : '<unknown>'}/${str(source('pods')?.['averageValue'])}`;
      case 'Resource':
      case 'ContainerResource': {
        const key = spec['type'] === 'Resource' ? 'resource' : 'containerResource';
        const name = text(spec, `${key}.name`, '');
        const target = source(key) ?? {};
        if (target['averageValue'] != null)
          return `${name}: ${has(key) ? str(current(key, 'averageValue')) : '<unknown>'}/${str(target['averageValue'])}`;
        const now = current(key, 'averageUtilization');
        const utilization = target['averageUtilization'];
        return `${name}: ${typeof now === 'number' ? `${now}%` : '<unknown>'}/${typeof utilization === 'number' ? `${utilization}%` : '<auto>'}`;
      }
      default:
        return '<unknown type>';
    }
  });
  return abbreviated(list, 2, ', ');
}

export const autoscalingTableColumns = {
  horizontalpodautoscalers: hpaColumns(hpaTargets),
  horizontalpodautoscalersV2: hpaColumns(hpaMetrics),
} satisfies Record<string, TableColumn[]>;
