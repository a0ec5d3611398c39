import { fieldErrors, type FieldError } from '@listwatch/api';
import type * as batchv1 from 'kubernetes-types/batch/v1.js';
import { kindStrategy, nonNegative, oneOf } from '../../kind-helpers.js';
import { defaultPodTemplate } from '../../core/pod/template.js';
import type { TypedObject } from '../../rest/typed-object.js';
import { validateJobSpec } from '../job/strategy.js';

// CronJobs: pkg/registry/batch/cronjob/strategy.go, SetDefaults_CronJob (pkg/apis/batch/v1/defaults.go)
// and ValidateCronJob (pkg/apis/batch/validation); its job template is validated as a Job's spec.

const CRON_FIELD =
  /^(\*|\?|[0-9A-Za-z]+(-[0-9A-Za-z]+)?)(\/[0-9]+)?(,(\*|\?|[0-9A-Za-z]+(-[0-9A-Za-z]+)?)(\/[0-9]+)?)*$/;
const CRON_MACROS = [
  '@yearly',
  '@annually',
  '@monthly',
  '@weekly',
  '@daily',
  '@midnight',
  '@hourly',
];

/** robfig/cron's standard parser, as far as its shape: five fields or a macro. */
function validSchedule(schedule: string): boolean {
  const text = schedule.replace(/^(CRON_)?TZ=\S+\s+/, '').trim();
  if (CRON_MACROS.includes(text) || /^@every\s+\S+$/.test(text)) return true;
  const fields = text.split(/\s+/);
  return fields.length === 5 && fields.every((f) => CRON_FIELD.test(f));
}

/** A CronJob as decoded (kubernetes-types' batch/v1 CronJob). */
export type CronJob = TypedObject<batchv1.CronJob>;

function decodeCronJob(cronJob: CronJob): void {
  const spec = (cronJob.spec ??= {});
  spec.concurrencyPolicy ??= 'Allow';
  spec.suspend ??= false;
  spec.successfulJobsHistoryLimit ??= 3;
  spec.failedJobsHistoryLimit ??= 1;
  defaultPodTemplate((((spec.jobTemplate ??= {}).spec ??= {}).template ??= {}));
}

/** A CronJob's name becomes its Jobs' names plus an 11-character suffix: 52 at most. */
const CRONJOB_NAME_MAX = 52;

function validateCronJob(cronJob: CronJob): FieldError[] {
  const spec = cronJob.spec ?? {};
  const schedule = spec.schedule ?? '';
  const errors: FieldError[] = [];
  const name = cronJob.metadata.name ?? '';
  if (name.length > CRONJOB_NAME_MAX)
    errors.push(
      fieldErrors.invalid(
        'metadata.name',
        name,
        `must be no more than ${CRONJOB_NAME_MAX} characters`,
      ),
    );
  if (schedule === '') errors.push(fieldErrors.required('spec.schedule', ''));
  else if (!validSchedule(schedule))
    errors.push(
      fieldErrors.invalid('spec.schedule', schedule, `unparseable schedule "${schedule}"`),
    );
  else if (/^(CRON_)?TZ=/.test(schedule))
    errors.push(
      fieldErrors.invalid(
        'spec.schedule',
        schedule,
        'cannot use TZ or CRON_TZ in schedule, use timeZone field instead',
      ),
    );
  errors.push(
    ...oneOf(
      spec.concurrencyPolicy,
      'spec.concurrencyPolicy',
      ['Allow', 'Forbid', 'Replace'],
      true,
    ),
    ...nonNegative(spec.startingDeadlineSeconds, 'spec.startingDeadlineSeconds'),
    ...nonNegative(spec.successfulJobsHistoryLimit, 'spec.successfulJobsHistoryLimit'),
    ...nonNegative(spec.failedJobsHistoryLimit, 'spec.failedJobsHistoryLimit'),
    ...validateJobSpec(spec.jobTemplate?.spec ?? {}, 'spec.jobTemplate.spec', false),
  );
  return errors;
}

export const cronJobStrategy = kindStrategy<CronJob>({
  generation: true,
  status: () => ({}),
  decode: decodeCronJob,
  validate: validateCronJob,
});
