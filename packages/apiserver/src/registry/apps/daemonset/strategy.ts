import type { FieldError, KubeObject } from '@listwatch/api';
import { semanticEqual } from '@listwatch/api';
import {
  child,
  defaultTo,
  immutable,
  intOrPercent,
  kindStrategy,
  nonNegative,
  oneOf,
  recordAt,
  selectorMatchesTemplate,
} from '../../kind-helpers.js';
import { defaultPodTemplate, validatePodTemplate } from '../../core/pod/template.js';

// The DaemonSet: pkg/registry/apps/daemonset/strategy.go (status cleared, generation, the template
// generation kept in the deprecated.daemonset.template.generation annotation by apps/v1
// conversion), pkg/apis/apps/v1/defaults.go SetDefaults_DaemonSet and ValidateDaemonSet.

const TEMPLATE_GENERATION = 'deprecated.daemonset.template.generation';

function decode(set: KubeObject): void {
  const spec = child(set, 'spec');
  const strategy = child(spec, 'updateStrategy');
  defaultTo(strategy, 'type', 'RollingUpdate');
  if (strategy['type'] === 'RollingUpdate') {
    const rolling = child(strategy, 'rollingUpdate');
    defaultTo(rolling, 'maxUnavailable', 1);
    defaultTo(rolling, 'maxSurge', 0);
  }
  defaultTo(spec, 'revisionHistoryLimit', 10);
  defaultPodTemplate(child(spec, 'template'));
}

function validate(set: KubeObject): FieldError[] {
  const spec = recordAt(set, 'spec');
  const strategy = recordAt(spec, 'updateStrategy');
  const rolling = recordAt(strategy, 'rollingUpdate');
  return [
    ...selectorMatchesTemplate(
      spec['selector'],
      recordAt(recordAt(spec, 'template'), 'metadata')['labels'],
      'spec',
      'spec.template',
    ),
    ...validatePodTemplate(spec['template'], 'spec.template', ['Always']),
    ...oneOf(strategy['type'], 'spec.updateStrategy.type', ['RollingUpdate', 'OnDelete'], true),
    ...intOrPercent(rolling['maxUnavailable'], 'spec.updateStrategy.rollingUpdate.maxUnavailable'),
    ...intOrPercent(rolling['maxSurge'], 'spec.updateStrategy.rollingUpdate.maxSurge'),
    ...nonNegative(spec['minReadySeconds'], 'spec.minReadySeconds'),
    ...nonNegative(spec['revisionHistoryLimit'], 'spec.revisionHistoryLimit'),
  ];
}

function templateGeneration(o: KubeObject): number {
  const value = Number.parseInt(o.metadata.annotations?.[TEMPLATE_GENERATION] ?? '', 10);
  return Number.isNaN(value) ? 0 : value;
}

function setTemplateGeneration(o: KubeObject, generation: number): void {
  o.metadata.annotations = { ...o.metadata.annotations, [TEMPLATE_GENERATION]: String(generation) };
}

export const daemonSetStrategy = kindStrategy({
  generation: true,
  // DaemonSetStatus{} as JSON: its four non-omitempty counts.
  status: () => ({
    currentNumberScheduled: 0,
    numberMisscheduled: 0,
    desiredNumberScheduled: 0,
    numberReady: 0,
  }),
  decode,
  validate,
  validateUpdate: (next, current) =>
    immutable(
      recordAt(next, 'spec')['selector'],
      recordAt(current, 'spec')['selector'],
      'spec.selector',
    ),
  prepareForCreate(set) {
    if (templateGeneration(set) < 1) setTemplateGeneration(set, 1);
  },
  prepareForUpdate(next, current) {
    // A changed template is a new template generation; otherwise the stored one stays.
    let generation = templateGeneration(current);
    if (!semanticEqual(recordAt(next, 'spec')['template'], recordAt(current, 'spec')['template']))
      generation += 1;
    setTemplateGeneration(next, Math.max(generation, 1));
  },
});
