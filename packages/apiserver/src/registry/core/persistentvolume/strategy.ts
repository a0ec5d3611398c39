import { fieldErrors, metaV1Now, type FieldError } from '@listwatch/api';
import type * as corev1 from 'kubernetes-types/core/v1.js';
import { kindStrategy, oneOf } from '../../kind-helpers.js';
import type { TypedObject } from '../../rest/typed-object.js';

// PersistentVolumes: pkg/registry/core/persistentvolume/strategy.go (status cleared on create; a
// PV starts Pending with its phase transition time), SetDefaults_PersistentVolume in
// pkg/apis/core/v1/defaults.go, and ValidatePersistentVolume(Update) in pkg/apis/core/validation;
// the access and volume modes a claim shares with it.

/** A PersistentVolume as decoded (kubernetes-types' core/v1 PersistentVolume). */
export type PersistentVolume = TypedObject<corev1.PersistentVolume>;
type PersistentVolumeSpec = NonNullable<PersistentVolume['spec']>;

const ACCESS_MODES = ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod'];
export const VOLUME_MODES = ['Block', 'Filesystem'];
const RECLAIM_POLICIES = ['Delete', 'Recycle', 'Retain'];

/** The volume sources of a PersistentVolumeSpec (exactly one must be set). */
const PV_SOURCES = [
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'hostPath',
  'glusterfs',
  'nfs',
  'rbd',
  'iscsi',
  'cinder',
  'cephfs',
  'fc',
  'flocker',
  'flexVolume',
  'azureFile',
  'vsphereVolume',
  'quobyte',
  'azureDisk',
  'photonPersistentDisk',
  'portworxVolume',
  'scaleIO',
  'local',
  'storageos',
  'csi',
] as const satisfies readonly (keyof PersistentVolumeSpec)[];

export function validateAccessModes(modes: readonly string[], path: string): FieldError[] {
  if (modes.length === 0) return [fieldErrors.required(path, '')];
  const errors = modes.flatMap((mode) => oneOf(mode, path, ACCESS_MODES));
  if (modes.includes('ReadWriteOncePod') && modes.length > 1)
    errors.push(
      fieldErrors.forbidden(path, 'may not use ReadWriteOncePod with other access modes'),
    );
  return errors;
}

function validatePersistentVolume(volume: PersistentVolume): FieldError[] {
  const spec = volume.spec ?? {};
  const errors = [
    ...validateAccessModes(spec.accessModes ?? [], 'spec.accessModes'),
    ...oneOf(
      spec.persistentVolumeReclaimPolicy,
      'spec.persistentVolumeReclaimPolicy',
      RECLAIM_POLICIES,
    ),
    ...oneOf(spec.volumeMode, 'spec.volumeMode', VOLUME_MODES),
  ];
  const capacity = spec.capacity ?? {};
  if (Object.keys(capacity).length === 0) errors.push(fieldErrors.required('spec.capacity', ''));
  else if (capacity['storage'] === undefined)
    errors.push(fieldErrors.notSupported('spec.capacity', Object.keys(capacity), ['storage']));
  const sources = PV_SOURCES.filter((s) => spec[s] != null);
  if (sources.length === 0) errors.push(fieldErrors.required('spec', 'must specify a volume type'));
  else if (sources.length > 1)
    errors.push(
      fieldErrors.forbidden(`spec.${sources[1]}`, 'may not specify more than 1 volume type'),
    );
  return errors;
}

export const persistentVolumeStrategy = kindStrategy<PersistentVolume>({
  status: () => ({ phase: 'Pending', lastPhaseTransitionTime: metaV1Now() }),
  decode(volume) {
    const spec = (volume.spec ??= {});
    spec.persistentVolumeReclaimPolicy ??= 'Retain';
    spec.volumeMode ??= 'Filesystem';
    if (spec.hostPath) spec.hostPath.type ??= '';
  },
  validate: validatePersistentVolume,
  prepareForUpdate(next, current) {
    // A new phase gets a new transition time (the strategy's PrepareForUpdateStatus).
    const phase = next.status?.phase;
    if (phase !== current.status?.phase && typeof phase === 'string')
      next.status = { ...next.status, lastPhaseTransitionTime: metaV1Now() };
  },
});
