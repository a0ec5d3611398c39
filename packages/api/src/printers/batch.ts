import { ageSince } from '../human-duration.js';
import type { KubeObject } from '../object-meta.js';
import type { TableColumn } from '../resource-definition.js';
import { nestedField as at } from '../unstructured.js';
import {
  AGE_COLUMN,
  array,
  column,
  containerCells,
  fieldDoc,
  fieldText,
  int,
  NAME_COLUMN,
  selector,
  selectorText,
  TEMPLATE_CONTAINERS,
  text,
} from './columns.js';

// The Table printers of the batch group (kubernetes pkg/printers/internalversion/printers.go:
// printJob, printCronJob).

interface Condition {
  type?: string;
  status?: string;
}

function hasCondition(o: KubeObject, type: string): boolean {
  return (array(o, 'status.conditions') as Condition[]).some(
    (c) => c.type === type && c.status === 'True',
  );
}

/** printJob's STATUS: the terminal condition, else Terminating, Suspended…, else Running. */
function jobStatus(o: KubeObject): string {
  if (hasCondition(o, 'Complete')) return 'Complete';
  if (hasCondition(o, 'Failed')) return 'Failed';
  if (o.metadata.deletionTimestamp) return 'Terminating';
  if (hasCondition(o, 'FailureTarget')) return 'FailureTarget';
  if (hasCondition(o, 'Suspended')) return 'Suspended';
  if (hasCondition(o, 'SuccessCriteriaMet')) return 'SuccessCriteriaMet';
  return 'Running';
}

/** printJob's COMPLETIONS: `succeeded/completions`, or `n/1 of p` for a work queue. */
function jobCompletions(o: KubeObject): string {
  const succeeded = int(o, 'status.succeeded');
  const completions = at(o, 'spec.completions');
  if (typeof completions === 'number') return `${succeeded}/${completions}`;
  const parallelism = at(o, 'spec.parallelism');
  if (typeof parallelism === 'number' && parallelism > 1) return `${succeeded}/1 of ${parallelism}`;
  return `${succeeded}/1`;
}

function jobDuration(o: KubeObject, now: number): string {
  const start = text(o, 'status.startTime', '');
  if (!start) return '';
  const end = text(o, 'status.completionTime', '');
  return ageSince(start, end ? Date.parse(end) : now);
}

export const batchTableColumns = {
  jobs: [
    NAME_COLUMN,
    column('Status', 'Status of the job.', jobStatus),
    column('Completions', fieldDoc('batch.v1.JobStatus', 'succeeded'), jobCompletions),
    column('Duration', 'Time required to complete the job.', jobDuration),
    AGE_COLUMN,
    ...containerCells(TEMPLATE_CONTAINERS),
    selector(fieldDoc('batch.v1.JobSpec', 'selector'), (o) => selectorText(at(o, 'spec.selector'))),
  ],
  cronjobs: [
    NAME_COLUMN,
    fieldText('Schedule', 'batch.v1.CronJob', 'spec.schedule', ''),
    fieldText('Timezone', 'batch.v1.CronJob', 'spec.timeZone'),
    column(
      'Suspend',
      fieldDoc('batch.v1.CronJobSpec', 'suspend'),
      (o) => {
        const suspend = at(o, 'spec.suspend');
        return typeof suspend === 'boolean' ? (suspend ? 'True' : 'False') : '<unset>';
      },
      { type: 'boolean' },
    ),
    column(
      'Active',
      fieldDoc('batch.v1.CronJobStatus', 'active'),
      (o) => array(o, 'status.active').length,
      {
        type: 'integer',
      },
    ),
    column('Last Schedule', fieldDoc('batch.v1.CronJobStatus', 'lastScheduleTime'), (o, now) => {
      const last = text(o, 'status.lastScheduleTime', '');
      return last ? ageSince(last, now) : '<none>';
    }),
    AGE_COLUMN,
    ...containerCells('spec.jobTemplate.spec.template.spec.containers'),
    selector(fieldDoc('batch.v1.JobSpec', 'selector'), (o) =>
      selectorText(at(o, 'spec.jobTemplate.spec.selector')),
    ),
  ],
} satisfies Record<string, TableColumn[]>;
