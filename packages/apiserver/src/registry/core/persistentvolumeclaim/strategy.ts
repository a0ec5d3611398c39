import { fieldErrors, type KubeObject } from '@listwatch/api';
import { semanticEqual } from '@listwatch/api';
import { child, defaultTo, kindStrategy, listAt, oneOf, recordAt } from '../../kind-helpers.js';
import { VOLUME_MODES, validateAccessModes } from '../persistentvolume/strategy.js';

// PersistentVolumeClaims: pkg/registry/core/persistentvolumeclaim/strategy.go (status cleared on
// create), SetDefaults_PersistentVolumeClaim (pkg/apis/core/v1/defaults.go) and
// ValidatePersistentVolumeClaim(Update) (pkg/apis/core/validation).

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
