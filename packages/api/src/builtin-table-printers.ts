import type { TableColumn } from './resource-definition.js';
import { appsTableColumns } from './printers/apps.js';
import { autoscalingTableColumns } from './printers/autoscaling.js';
import { batchTableColumns } from './printers/batch.js';
import { coordinationTableColumns } from './printers/coordination.js';
import { coreTableColumns } from './printers/core.js';
import { discoveryTableColumns } from './printers/discovery.js';
import { eventsTableColumns } from './printers/events.js';
import { networkingTableColumns } from './printers/networking.js';
import { policyTableColumns } from './printers/policy.js';
import { rbacTableColumns } from './printers/rbac.js';
import { AGE_COLUMN, NAME_COLUMN } from './printers/columns.js';

// The Table printers of the built-in resources (kubernetes pkg/printers/internalversion/
// printers.go), one file a group under printers/: each resource's columns and how a cell is read
// from an object. Column descriptions come from the schema source as kube's come from the Go
// types' SwaggerDoc, so this module loads generated/schemas.ts; discovery data and field labels
// stay apart from it.

export { AGE_COLUMN, NAME_COLUMN };

/** Each built-in resource's Table columns, by the resource (builtin-resources.ts names them). */
export const builtinTableColumns = {
  ...coreTableColumns,
  ...eventsTableColumns,
  ...appsTableColumns,
  ...batchTableColumns,
  ...autoscalingTableColumns,
  ...networkingTableColumns,
  ...discoveryTableColumns,
  ...policyTableColumns,
  ...coordinationTableColumns,
  ...rbacTableColumns,
  // TokenReview, SubjectAccessReview and the other reviews: the default Name and Age columns.
  review: [NAME_COLUMN, AGE_COLUMN],
} satisfies Record<string, TableColumn[]>;
