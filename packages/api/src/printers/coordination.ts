import type { TableColumn } from '../resource-definition.js';
import { AGE_COLUMN, column, NAME_COLUMN, text } from './columns.js';

// The Table printer of coordination.k8s.io Leases (kubernetes pkg/printers/internalversion/
// printers.go printLease).

export const coordinationTableColumns = {
  leases: [
    NAME_COLUMN,
    column('Holder', 'The holder of the lease', (o) => text(o, 'spec.holderIdentity', '')),
    AGE_COLUMN,
  ],
} satisfies Record<string, TableColumn[]>;
