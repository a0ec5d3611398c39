import { fieldErrors } from '@listwatch/api';
import type * as appsv1 from 'kubernetes-types/apps/v1.js';
import { immutable, kindStrategy, nonNegative } from '../../kind-helpers.js';
import type { TypedObject } from '../../rest/typed-object.js';

// The ControllerRevision: pkg/registry/apps/controllerrevision/strategy.go (no status, no
// generation) and ValidateControllerRevision(Update): data is required and never changes.

/** A ControllerRevision as decoded (kubernetes-types' apps/v1 ControllerRevision). */
export type ControllerRevision = TypedObject<appsv1.ControllerRevision>;

export const controllerRevisionStrategy = kindStrategy<ControllerRevision>({
  validate: (revision) => [
    ...(revision.data == null ? [fieldErrors.required('data', 'data is mandatory')] : []),
    ...nonNegative(revision.revision, 'revision'),
  ],
  validateUpdate: (next, current) => immutable(next.data, current.data, 'data'),
});
