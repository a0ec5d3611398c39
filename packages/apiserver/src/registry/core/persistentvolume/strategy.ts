import { fieldErrors, metaV1Now, type FieldError, type KubeObject } from '@listwatch/api';
import { semanticEqual } from '@listwatch/api';
import { child, defaultTo, kindStrategy, listAt, oneOf, recordAt } from '../../kind-helpers.js';

// PersistentVolumeClaims and PersistentVolumes: pkg/registry/core/persistentvolumeclaim/strategy.go
// and persistentvolume/strategy.go (status cleared on create; a PV starts Pending with its phase
// transition time), SetDefaults_PersistentVolume(Claim) in pkg/apis/core/v1/defaults.go, and
// ValidatePersistentVolume(Claim)(Update) in pkg/apis/core/validation.

const ACCESS_MODES = ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod'];
const VOLUME_MODES = ['Block', 'Filesystem'];
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
];

function validateAccessModes(modes: unknown[], path: string): FieldError[] {
  if (modes.length === 0) return [fieldErrors.required(path, '')];
  const errors = modes.flatMap((mode) => oneOf(mode, path, ACCESS_MODES));
  if (modes.includes('ReadWriteOncePod') && modes.length > 1)
    errors.push(
      fieldErrors.forbidden(path, 'may not use ReadWriteOncePod with other access modes'),
    );
  return errors;
}

export const persistentVolumeClaimStrategy = kindStrategy({
  status: () => ({ phase: 'Pending' }),
  decode(claim) {
    defaultTo(child(claim, 'spec'), 'volumeMode', 'Filesystem');
  },
  validate(claim) {
    const spec = recordAt(claim, 'spec');
    const requests = recordAt(recordAt(spec, 'resources'), 'requests');
    return [
      ...validateAccessModes(listAt(spec, 'accessModes'), 'spec.accessModes'),
      ...(requests['storage'] === undefined &&
      spec['dataSource'] == null &&
      spec['dataSourceRef'] == null
        ? [fieldErrors.required('spec.resources[storage]', '')]
        : []),
      ...oneOf(spec['volumeMode'], 'spec.volumeMode', VOLUME_MODES),
    ];
  },
  validateUpdate(next, current) {
    // A claim's spec is frozen but for its requests and attributes class (and the volume name
    // the binder sets once).
    const frozen = (o: KubeObject) => {
      const spec = { ...recordAt(o, 'spec') };
      delete spec['volumeAttributesClassName'];
      const resources = { ...recordAt(spec, 'resources') };
      delete resources['requests'];
      spec['resources'] = resources;
      if (!recordAt(current, 'spec')['volumeName']) delete spec['volumeName'];
      return spec;
    };
    return semanticEqual(frozen(next), frozen(current))
      ? []
      : [
          fieldErrors.forbidden(
            'spec',
            'spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims',
          ),
        ];
  },
});

export const persistentVolumeStrategy = kindStrategy({
  status: () => ({ phase: 'Pending', lastPhaseTransitionTime: metaV1Now() }),
  decode(volume) {
    const spec = child(volume, 'spec');
    defaultTo(spec, 'persistentVolumeReclaimPolicy', 'Retain');
    defaultTo(spec, 'volumeMode', 'Filesystem');
    const hostPath = recordAt(spec, 'hostPath');
    if (spec['hostPath'] !== undefined) defaultTo(hostPath, 'type', '');
  },
  validate(volume) {
    const spec = recordAt(volume, 'spec');
    const errors = [
      ...validateAccessModes(listAt(spec, 'accessModes'), 'spec.accessModes'),
      ...oneOf(
        spec['persistentVolumeReclaimPolicy'],
        'spec.persistentVolumeReclaimPolicy',
        RECLAIM_POLICIES,
      ),
      ...oneOf(spec['volumeMode'], 'spec.volumeMode', VOLUME_MODES),
    ];
    const capacity = recordAt(spec, 'capacity');
    if (Object.keys(capacity).length === 0) errors.push(fieldErrors.required('spec.capacity', ''));
    else if (capacity['storage'] === undefined)
      errors.push(fieldErrors.notSupported('spec.capacity', Object.keys(capacity), ['storage']));
    const sources = PV_SOURCES.filter((s) => spec[s] != null);
    if (sources.length === 0)
      errors.push(fieldErrors.required('spec', 'must specify a volume type'));
    else if (sources.length > 1)
      errors.push(
        fieldErrors.forbidden(`spec.${sources[1]}`, 'may not specify more than 1 volume type'),
      );
    return errors;
  },
  prepareForUpdate(next, current) {
    // A new phase gets a new transition time (the strategy's PrepareForUpdateStatus).
    const phase = recordAt(next, 'status')['phase'];
    if (phase !== recordAt(current, 'status')['phase'] && typeof phase === 'string')
      next['status'] = { ...recordAt(next, 'status'), lastPhaseTransitionTime: metaV1Now() };
  },
});
