import type { KubeObject } from '../object-meta.js';
import type { TableColumn } from '../resource-definition.js';
import { nestedField as at } from '../unstructured.js';
import { AGE_COLUMN, column, intColumn, NAME_COLUMN } from './columns.js';

// The Table printer of policy PodDisruptionBudgets (kubernetes pkg/printers/internalversion/
// printers.go printPodDisruptionBudget).

/** An IntOrString cell: the number or the string, `N/A` when unset. */
function intOrString(o: KubeObject, path: string): string {
  const value = at(o, path);
  return typeof value === 'number' || typeof value === 'string' ? String(value) : 'N/A';
}

export const policyTableColumns = {
  poddisruptionbudgets: [
    NAME_COLUMN,
    column('Min Available', 'The minimum number of pods that must be available.', (o) =>
      intOrString(o, 'spec.minAvailable'),
    ),
    column('Max Unavailable', 'The maximum number of pods that may be unavailable.', (o) =>
      intOrString(o, 'spec.maxUnavailable'),
    ),
    intColumn(
      'Allowed Disruptions',
      'Calculated number of pods that may be disrupted at this time.',
      'status.disruptionsAllowed',
    ),
    AGE_COLUMN,
  ],
} satisfies Record<string, TableColumn[]>;
