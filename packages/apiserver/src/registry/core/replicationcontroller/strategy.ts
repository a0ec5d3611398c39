import { fieldErrors, isRecord, type FieldError, type KubeObject } from '@listwatch/api';
import { child, defaultTo, kindStrategy, nonNegative, recordAt } from '../../kind-helpers.js';
import { defaultPodTemplate, validatePodTemplate } from '../pod/template.js';
import type { ScaleStrategy } from '../../autoscaling/scale.js';
import { replicasScale } from '../../autoscaling/scale.js';

// ReplicationControllers: pkg/registry/core/replicationcontroller/strategy.go,
// SetDefaults_ReplicationController (pkg/apis/core/v1/defaults.go) and
// ValidateReplicationController.

function templateLabels(spec: unknown): Record<string, string> | undefined {
  const labels = recordAt(recordAt(spec, 'template'), 'metadata')['labels'];
  return isRecord(labels) && Object.keys(labels).length > 0
    ? (labels as Record<string, string>)
    : undefined;
}

function decodeController(rc: KubeObject): void {
  const spec = child(rc, 'spec');
  // The selector and the labels default to the template's labels.
  const labels = templateLabels(spec);
  if (labels) {
    if (!isRecord(spec['selector']) || Object.keys(spec['selector']).length === 0)
      spec['selector'] = { ...labels };
    if (Object.keys(rc.metadata.labels ?? {}).length === 0) rc.metadata.labels = { ...labels };
  }
  defaultTo(spec, 'replicas', 1);
  if (isRecord(spec['template'])) defaultPodTemplate(spec['template']);
}

function validateController(rc: KubeObject): FieldError[] {
  const spec = recordAt(rc, 'spec');
  const selector = recordAt(spec, 'selector');
  const errors: FieldError[] = [
    ...nonNegative(spec['replicas'], 'spec.replicas'),
    ...nonNegative(spec['minReadySeconds'], 'spec.minReadySeconds'),
  ];
  if (Object.keys(selector).length === 0) errors.push(fieldErrors.required('spec.selector', ''));
  // ValidatePodTemplateSpecForRC: a template is required and must match the selector.
  if (!isRecord(spec['template'])) errors.push(fieldErrors.required('spec.template', ''));
  else {
    const labels = templateLabels(spec) ?? {};
    const matches = Object.entries(selector).every(([k, v]) => labels[k] === v);
    if (Object.keys(selector).length > 0 && !matches)
      errors.push(
        fieldErrors.invalid(
          'spec.template.metadata.labels',
          labels,
          '`selector` does not match template `labels`',
        ),
      );
    errors.push(...validatePodTemplate(spec['template'], 'spec.template', ['Always']));
  }
  return errors;
}

/** A ReplicationController's selector is a plain map: the Scale's selector string is `k=v,…`. */
const controllerScale: ScaleStrategy = {
  toScale(rc) {
    const spec = recordAt(rc, 'spec');
    const selector = Object.entries(recordAt(spec, 'selector'))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(',');
    const scale = replicasScale.toScale({ ...rc, spec: { replicas: spec['replicas'] } });
    const status = recordAt(scale, 'status');
    return {
      ...scale,
      status: { replicas: status['replicas'], ...(selector ? { selector } : {}) },
    };
  },
  withScale: (rc, scale) => replicasScale.withScale(rc, scale),
};

export const replicationControllerStrategy = kindStrategy({
  generation: true,
  // ReplicationControllerStatus{} as JSON: its non-omitempty replica count.
  status: () => ({ replicas: 0 }),
  decode: decodeController,
  validate: validateController,
  extra: { scale: controllerScale },
});
