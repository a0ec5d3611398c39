import { semanticEqual, type FieldError } from '@listwatch/api';
import type * as appsv1 from 'kubernetes-types/apps/v1.js';
import {
  immutable,
  intOrPercent,
  kindStrategy,
  nonNegative,
  oneOf,
  selectorMatchesTemplate,
} from '../../kind-helpers.js';
import { defaultPodTemplate, validatePodTemplate } from '../../core/pod/template.js';
import type { TypedObject } from '../../rest/typed-object.js';

// The DaemonSet: pkg/registry/apps/daemonset/strategy.go (status cleared, generation, the template
// generation kept in the deprecated.daemonset.template.generation annotation by apps/v1
// conversion), pkg/apis/apps/v1/defaults.go SetDefaults_DaemonSet and ValidateDaemonSet.

const TEMPLATE_GENERATION = 'deprecated.daemonset.template.generation';

/** A DaemonSet as decoded (kubernetes-types' apps/v1 DaemonSet). */
export type DaemonSet = TypedObject<appsv1.DaemonSet>;

function decode(set: DaemonSet): void {
  const spec = (set.spec ??= {});
  const strategy = (spec.updateStrategy ??= {});
  strategy.type ??= 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    const rolling = (strategy.rollingUpdate ??= {});
    rolling.maxUnavailable ??= 1;
    rolling.maxSurge ??= 0;
  }
  spec.revisionHistoryLimit ??= 10;
  defaultPodTemplate((spec.template ??= {}));
}

function validate(set: DaemonSet): FieldError[] {
  const spec = set.spec ?? {};
  const strategy = spec.updateStrategy ?? {};
  const rolling = strategy.rollingUpdate ?? {};
  return [
    ...selectorMatchesTemplate(
      spec.selector,
      spec.template?.metadata?.labels,
      'spec',
      'spec.template',
    ),
    ...validatePodTemplate(spec.template, 'spec.template', ['Always']),
    ...oneOf(strategy.type, 'spec.updateStrategy.type', ['RollingUpdate', 'OnDelete'], true),
    ...intOrPercent(rolling.maxUnavailable, 'spec.updateStrategy.rollingUpdate.maxUnavailable'),
    ...intOrPercent(rolling.maxSurge, 'spec.updateStrategy.rollingUpdate.maxSurge'),
    ...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'),
    ...nonNegative(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit'),
  ];
}

function templateGeneration(o: DaemonSet): number {
  const value = Number.parseInt(o.metadata.annotations?.[TEMPLATE_GENERATION] ?? '', 10);
  return Number.isNaN(value) ? 0 : value;
}

function setTemplateGeneration(o: DaemonSet, generation: number): void {
  o.metadata.annotations = { ...o.metadata.annotations, [TEMPLATE_GENERATION]: String(generation) };
}

export const daemonSetStrategy = kindStrategy<DaemonSet>({
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
    immutable(next.spec?.selector, current.spec?.selector, 'spec.selector'),
  prepareForCreate(set) {
    if (templateGeneration(set) < 1) setTemplateGeneration(set, 1);
  },
  prepareForUpdate(next, current) {
    // A changed template is a new template generation; otherwise the stored one stays.
    let generation = templateGeneration(current);
    if (!semanticEqual(next.spec?.template, current.spec?.template)) generation += 1;
    setTemplateGeneration(next, Math.max(generation, 1));
  },
});
