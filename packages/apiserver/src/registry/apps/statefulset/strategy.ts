import { fieldErrors, semanticEqual, type FieldError } from '@listwatch/api';
import type * as appsv1 from 'kubernetes-types/apps/v1.js';
import { kindStrategy, nonNegative, oneOf, selectorMatchesTemplate } from '../../kind-helpers.js';
import { defaultPodTemplate, validatePodTemplate } from '../../core/pod/template.js';
import { replicasScale } from '../../autoscaling/scale.js';
import type { TypedObject } from '../../rest/typed-object.js';

// The StatefulSet: pkg/registry/apps/statefulset/strategy.go (status cleared on create, generation
// bumped by spec changes), pkg/apis/apps/v1/defaults.go SetDefaults_StatefulSet and
// pkg/apis/apps/validation ValidateStatefulSet/ValidateStatefulSetUpdate.

const POD_MANAGEMENT_POLICIES = ['OrderedReady', 'Parallel'];
const UPDATE_STRATEGIES = ['RollingUpdate', 'OnDelete'];
const RETENTION_POLICIES = ['Retain', 'Delete'];

/** A StatefulSet as decoded (kubernetes-types' apps/v1 StatefulSet). */
export type StatefulSet = TypedObject<appsv1.StatefulSet>;

function decode(set: StatefulSet): void {
  const spec = (set.spec ??= {});
  spec.podManagementPolicy ??= 'OrderedReady';
  const strategy = (spec.updateStrategy ??= {});
  strategy.type ??= 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') (strategy.rollingUpdate ??= {}).partition ??= 0;
  spec.replicas ??= 1;
  spec.revisionHistoryLimit ??= 10;
  const retention = (spec.persistentVolumeClaimRetentionPolicy ??= {});
  retention.whenDeleted ??= 'Retain';
  retention.whenScaled ??= 'Retain';
  defaultPodTemplate((spec.template ??= {}));
  // The claim templates get a claim's defaults (SetDefaults_PersistentVolumeClaim).
  for (const claim of spec.volumeClaimTemplates ?? []) {
    (claim.spec ??= {}).volumeMode ??= 'Filesystem';
    (claim.status ??= {}).phase ??= 'Pending';
  }
}

function validate(set: StatefulSet): FieldError[] {
  const spec = set.spec ?? {};
  const strategy = spec.updateStrategy ?? {};
  const retention = spec.persistentVolumeClaimRetentionPolicy ?? {};
  return [
    ...oneOf(spec.podManagementPolicy, 'spec.podManagementPolicy', POD_MANAGEMENT_POLICIES, true),
    ...oneOf(strategy.type, 'spec.updateStrategy.type', UPDATE_STRATEGIES, true),
    ...(strategy.type === 'OnDelete' && strategy.rollingUpdate !== undefined
      ? [
          fieldErrors.invalid(
            'spec.updateStrategy.rollingUpdate',
            strategy.rollingUpdate,
            "only allowed for updateStrategy 'RollingUpdate'",
          ),
        ]
      : []),
    ...nonNegative(
      strategy.rollingUpdate?.partition,
      'spec.updateStrategy.rollingUpdate.partition',
    ),
    ...oneOf(
      retention.whenDeleted,
      'spec.persistentVolumeClaimRetentionPolicy.whenDeleted',
      RETENTION_POLICIES,
      true,
    ),
    ...oneOf(
      retention.whenScaled,
      'spec.persistentVolumeClaimRetentionPolicy.whenScaled',
      RETENTION_POLICIES,
      true,
    ),
    ...nonNegative(spec.replicas, 'spec.replicas'),
    ...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'),
    ...selectorMatchesTemplate(
      spec.selector,
      spec.template?.metadata?.labels,
      'spec',
      'spec.template',
    ),
    ...validatePodTemplate(spec.template, 'spec.template', ['Always']),
  ];
}

/** The spec fields an update may change (ValidateStatefulSetUpdate); the rest is frozen. */
const MUTABLE = [
  'replicas',
  'ordinals',
  'template',
  'updateStrategy',
  'persistentVolumeClaimRetentionPolicy',
  'minReadySeconds',
];

function validateUpdate(next: StatefulSet, current: StatefulSet): FieldError[] {
  const frozen = (o: StatefulSet) =>
    Object.fromEntries(Object.entries(o.spec ?? {}).filter(([k]) => !MUTABLE.includes(k)));
  return semanticEqual(frozen(next), frozen(current))
    ? []
    : [
        fieldErrors.forbidden(
          'spec',
          "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
        ),
      ];
}

export const statefulSetStrategy = kindStrategy<StatefulSet>({
  generation: true,
  // StatefulSetStatus{} as JSON: its two non-omitempty counts.
  status: () => ({ replicas: 0, availableReplicas: 0 }),
  decode,
  validate,
  validateUpdate,
  extra: { scale: replicasScale },
});
