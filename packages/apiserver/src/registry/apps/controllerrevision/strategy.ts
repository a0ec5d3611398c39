import { fieldErrors } from '@listwatch/api';
import { immutable, kindStrategy, nonNegative } from '../../kind-helpers.js';

// The ControllerRevision: pkg/registry/apps/controllerrevision/strategy.go (no status, no
// generation) and ValidateControllerRevision(Update): data is required and never changes.

export const controllerRevisionStrategy = kindStrategy({
  validate: (revision) => [
    ...(revision['data'] === undefined || revision['data'] === null
      ? [fieldErrors.required('data', 'data is mandatory')]
      : []),
    ...nonNegative(revision['revision'], 'revision'),
  ],
  validateUpdate: (next, current) => immutable(next['data'], current['data'], 'data'),
});
