import { fieldErrors, type FieldError } from '@listwatch/api';
import type * as coordinationv1 from 'kubernetes-types/coordination/v1.js';
import type { ResourceStrategy } from '../../rest/resource-strategy.js';
import type { TypedObject } from '../../rest/typed-object.js';

// Leases: pkg/registry/coordination/lease/strategy.go and ValidateLease / ValidateLeaseUpdate
// (pkg/apis/coordination/validation). The CoordinatedLeaderElection gate is off in v1.32, so
// spec.strategy and spec.preferredHolder are dropped as the strategy drops them.

/** A Lease as decoded: kubernetes-types' coordination/v1 Lease, with the v1.31 spec fields. */
export type Lease = TypedObject<coordinationv1.Lease> & {
  spec?: { strategy?: string; preferredHolder?: string };
};

/** ValidateLeaseSpec. */
export function validateLease(lease: Lease): FieldError[] {
  const errors: FieldError[] = [];
  const duration = lease.spec?.leaseDurationSeconds;
  if (duration !== undefined && duration <= 0)
    errors.push(
      fieldErrors.invalid('spec.leaseDurationSeconds', duration, 'must be greater than 0'),
    );
  const transitions = lease.spec?.leaseTransitions;
  if (transitions !== undefined && transitions < 0)
    errors.push(
      fieldErrors.invalid(
        'spec.leaseTransitions',
        transitions,
        'must be greater than or equal to 0',
      ),
    );
  return errors;
}

export const leaseStrategy: ResourceStrategy<Lease> = {
  prepareForCreate(lease) {
    if (!lease.spec) return;
    delete lease.spec.strategy;
    delete lease.spec.preferredHolder;
  },
  prepareForUpdate(next, current) {
    if (!next.spec) return;
    if (current.spec?.strategy === undefined) delete next.spec.strategy;
    if (current.spec?.preferredHolder === undefined) delete next.spec.preferredHolder;
  },
  // ValidateLeaseUpdate checks the spec as ValidateLease does, which `validate` runs on update.
  validate: validateLease,
};
