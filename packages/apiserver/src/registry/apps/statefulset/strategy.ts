import { fieldErrors, isRecord, type FieldError, type KubeObject } from '@listwatch/api';
import { semanticEqual } from '@listwatch/api';
import {
  child,
  defaultTo,
  kindStrategy,
  listAt,
  nonNegative,
  oneOf,
  recordAt,
  selectorMatchesTemplate,
} from '../../kind-helpers.js';
import { defaultPodTemplate, validatePodTemplate } from '../../core/pod/template.js';
import { replicasScale } from '../../autoscaling/scale.js';

// The StatefulSet: pkg/registry/apps/statefulset/strategy.go (status cleared on create, generation
// bumped by spec changes), pkg/apis/apps/v1/defaults.go SetDefaults_StatefulSet and
// pkg/apis/apps/validation ValidateStatefulSet/ValidateStatefulSetUpdate.

const POD_MANAGEMENT_POLICIES = ['OrderedReady', 'Parallel'];
const UPDATE_STRATEGIES = ['RollingUpdate', 'OnDelete'];
const RETENTION_POLICIES = ['Retain', 'Delete'];

function decode(set: KubeObject): void {
  const spec = child(set, 'spec');
  defaultTo(spec, 'podManagementPolicy', 'OrderedReady');
  const strategy = child(spec, 'updateStrategy');
  defaultTo(strategy, 'type', 'RollingUpdate');
  if (strategy['type'] === 'RollingUpdate')
    defaultTo(child(strategy, 'rollingUpdate'), 'partition', 0);
  defaultTo(spec, 'replicas', 1);
  defaultTo(spec, 'revisionHistoryLimit', 10);
  const retention = child(spec, 'persistentVolumeClaimRetentionPolicy');
  defaultTo(retention, 'whenDeleted', 'Retain');
  defaultTo(retention, 'whenScaled', 'Retain');
  defaultPodTemplate(child(spec, 'template'));
  // The claim templates get a claim's defaults (SetDefaults_PersistentVolumeClaim).
  for (const claim of listAt(spec, 'volumeClaimTemplates')) {
    if (!isRecord(claim)) continue;
    defaultTo(child(claim, 'spec'), 'volumeMode', 'Filesystem');
    defaultTo(child(claim, 'status'), 'phase', 'Pending');
  }
}

function validate(set: KubeObject): FieldError[] {
  const spec = recordAt(set, 'spec');
  const template = recordAt(spec, 'template');
  const strategy = recordAt(spec, 'updateStrategy');
  const retention = recordAt(spec, 'persistentVolumeClaimRetentionPolicy');
  return [
    ...oneOf(
      spec['podManagementPolicy'],
      'spec.podManagementPolicy',
      POD_MANAGEMENT_POLICIES,
      true,
    ),
    ...oneOf(strategy['type'], 'spec.updateStrategy.type', UPDATE_STRATEGIES, true),
    ...(strategy['type'] === 'OnDelete' && strategy['rollingUpdate'] !== undefined
      ? [
          fieldErrors.invalid(
            'spec.updateStrategy.rollingUpdate',
            strategy['rollingUpdate'],
            "only allowed for updateStrategy 'RollingUpdate'",
          ),
        ]
      : []),
    ...nonNegative(
      recordAt(strategy, 'rollingUpdate')['partition'],
      'spec.updateStrategy.rollingUpdate.partition',
    ),
    ...oneOf(
      retention['whenDeleted'],
      'spec.persistentVolumeClaimRetentionPolicy.whenDeleted',
      RETENTION_POLICIES,
      true,
    ),
    ...oneOf(
      retention['whenScaled'],
      'spec.persistentVolumeClaimRetentionPolicy.whenScaled',
      RETENTION_POLICIES,
      true,
    ),
    ...nonNegative(spec['replicas'], 'spec.replicas'),
    ...nonNegative(spec['minReadySeconds'], 'spec.minReadySeconds'),
    ...selectorMatchesTemplate(
      spec['selector'],
      recordAt(template, 'metadata')['labels'],
      'spec',
      'spec.template',
    ),
    ...validatePodTemplate(spec['template'], 'spec.template', ['Always']),
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

function validateUpdate(next: KubeObject, current: KubeObject): FieldError[] {
  const frozen = (o: KubeObject) =>
    Object.fromEntries(Object.entries(recordAt(o, 'spec')).filter(([k]) => !MUTABLE.includes(k)));
  return semanticEqual(frozen(next), frozen(current))
    ? []
    : [
        fieldErrors.forbidden(
          'spec',
          "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
        ),
      ];
}

export const statefulSetStrategy = kindStrategy({
  generation: true,
  // StatefulSetStatus{} as JSON: its two non-omitempty counts.
  status: () => ({ replicas: 0, availableReplicas: 0 }),
  decode,
  validate,
  validateUpdate,
  extra: { scale: replicasScale },
});
