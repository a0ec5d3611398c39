import { fieldErrors, semanticEqual, type FieldError } from '@listwatch/api';
import type * as corev1 from 'kubernetes-types/core/v1.js';
import { kindStrategy, oneOf } from '../../kind-helpers.js';
import type { TypedObject } from '../../rest/typed-object.js';
import { VOLUME_MODES, validateAccessModes } from '../persistentvolume/strategy.js';

// PersistentVolumeClaims: pkg/registry/core/persistentvolumeclaim/strategy.go (status cleared on
// create), SetDefaults_PersistentVolumeClaim (pkg/apis/core/v1/defaults.go) and
// ValidatePersistentVolumeClaim(Update) (pkg/apis/core/validation).

/** A PersistentVolumeClaim as decoded (kubernetes-types' core/v1 PersistentVolumeClaim). */
export type PersistentVolumeClaim = TypedObject<corev1.PersistentVolumeClaim>;

function validateClaim(claim: PersistentVolumeClaim): FieldError[] {
  const spec = claim.spec ?? {};
  return [
    ...validateAccessModes(spec.accessModes ?? [], 'spec.accessModes'),
    ...(spec.resources?.requests?.['storage'] === undefined &&
    spec.dataSource == null &&
    spec.dataSourceRef == null
      ? [fieldErrors.required('spec.resources[storage]', '')]
      : []),
    ...oneOf(spec.volumeMode, 'spec.volumeMode', VOLUME_MODES),
  ];
}

export const persistentVolumeClaimStrategy = kindStrategy<PersistentVolumeClaim>({
  status: () => ({ phase: 'Pending' }),
  decode(claim) {
    (claim.spec ??= {}).volumeMode ??= 'Filesystem';
  },
  validate: validateClaim,
  validateUpdate(next, current) {
    // A claim's spec is frozen but for its requests and attributes class (and the volume name
    // the binder sets once).
    const frozen = (claim: PersistentVolumeClaim) => {
      const { volumeAttributesClassName: _class, ...spec } = claim.spec ?? {};
      const { requests: _requests, ...resources } = spec.resources ?? {};
      if (!current.spec?.volumeName) delete spec.volumeName;
      return { ...spec, resources };
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
