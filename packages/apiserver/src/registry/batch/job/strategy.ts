import { fieldErrors, type FieldError } from '@listwatch/api';
import type * as batchv1 from 'kubernetes-types/batch/v1.js';
import {
  immutable,
  kindStrategy,
  nonNegative,
  oneOf,
  selectorMatchesTemplate,
} from '../../kind-helpers.js';
import { defaultPodTemplate, validatePodTemplate } from '../../core/pod/template.js';
import type { TypedObject } from '../../rest/typed-object.js';

// Jobs: pkg/registry/batch/job/strategy.go (status cleared, generation, the selector
// the server generates from the uid in Validate),
// pkg/apis/batch/v1/defaults.go and pkg/apis/batch/validation.

const JOB_RESTART_POLICIES = ['OnFailure', 'Never'];
const CONTROLLER_UID = 'batch.kubernetes.io/controller-uid';
const JOB_NAME = 'batch.kubernetes.io/job-name';
const LEGACY_CONTROLLER_UID = 'controller-uid';
const LEGACY_JOB_NAME = 'job-name';

/** A Job as decoded (kubernetes-types' batch/v1 Job). */
export type Job = TypedObject<batchv1.Job>;
export type JobSpec = NonNullable<Job['spec']>;

/** SetDefaults_Job's spec part (a CronJob's jobTemplate gets its pod defaults only). */
function defaultJobSpec(spec: JobSpec): void {
  if (spec.completions == null && spec.parallelism == null) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  spec.parallelism ??= 1;
  spec.backoffLimit ??= spec.backoffLimitPerIndex != null ? 2147483647 : 6;
  spec.completionMode ??= 'NonIndexed';
  spec.suspend ??= false;
  spec.podReplacementPolicy ??= spec.podFailurePolicy != null ? 'Failed' : 'TerminatingOrFailed';
  defaultPodTemplate((spec.template ??= {}));
}

function decodeJob(job: Job): void {
  const spec = (job.spec ??= {});
  defaultJobSpec(spec);
  // A job without labels takes its template's.
  const templateLabels = spec.template?.metadata?.labels;
  if (templateLabels && Object.keys(job.metadata.labels ?? {}).length === 0)
    job.metadata.labels = { ...templateLabels };
}

/**
 * generateSelector: unless the user picked the selector (manualSelector), the job selects its
 * pods by its uid, and its template carries the uid and the job's name as labels.
 */
function generateSelector(job: Job): void {
  const spec = (job.spec ??= {});
  if (spec.manualSelector === true) return;
  const uid = job.metadata.uid ?? '';
  const metadata = ((spec.template ??= {}).metadata ??= {});
  const labels = { ...metadata.labels };
  labels[LEGACY_CONTROLLER_UID] ??= uid;
  labels[LEGACY_JOB_NAME] ??= job.metadata.name ?? '';
  labels[CONTROLLER_UID] ??= uid;
  labels[JOB_NAME] ??= job.metadata.name ?? '';
  metadata.labels = labels;
  spec.selector ??= { matchLabels: { [CONTROLLER_UID]: uid } };
}

export function validateJobSpec(spec: JobSpec, path: string, generated: boolean): FieldError[] {
  const errors: FieldError[] = [
    ...nonNegative(spec.parallelism, `${path}.parallelism`),
    ...nonNegative(spec.completions, `${path}.completions`),
    ...nonNegative(spec.activeDeadlineSeconds, `${path}.activeDeadlineSeconds`),
    ...nonNegative(spec.backoffLimit, `${path}.backoffLimit`),
    ...nonNegative(spec.ttlSecondsAfterFinished, `${path}.ttlSecondsAfterFinished`),
    ...oneOf(spec.completionMode, `${path}.completionMode`, ['NonIndexed', 'Indexed']),
    ...oneOf(spec.podReplacementPolicy, `${path}.podReplacementPolicy`, [
      'TerminatingOrFailed',
      'Failed',
    ]),
    ...validatePodTemplate(spec.template, `${path}.template`, JOB_RESTART_POLICIES),
  ];
  if (spec.completionMode === 'Indexed' && spec.completions === undefined)
    errors.push(fieldErrors.required(`${path}.completions`, 'when completion mode is Indexed'));
  // A CronJob's template has no selector yet; a Job's is required (generated or the user's).
  if (generated || spec.selector !== undefined)
    errors.push(
      ...selectorMatchesTemplate(
        spec.selector,
        spec.template?.metadata?.labels,
        path,
        `${path}.template`,
      ),
    );
  return errors;
}

export const jobStrategy = kindStrategy<Job>({
  generation: true,
  status: () => ({}),
  decode: decodeJob,
  validate(job) {
    generateSelector(job);
    return validateJobSpec(job.spec ?? {}, 'spec', true);
  },
  validateUpdate(next, current) {
    const spec = next.spec ?? {};
    const old = current.spec ?? {};
    // ValidateJobSpecUpdate: the selector, the template (but for a suspended job's scheduling
    // directives) and the completion mode never change.
    return [
      ...immutable(spec.selector, old.selector, 'spec.selector'),
      ...immutable(spec.completionMode, old.completionMode, 'spec.completionMode'),
      ...(spec.completionMode !== 'Indexed'
        ? immutable(spec.completions, old.completions, 'spec.completions')
        : []),
      ...immutable(spec.template, old.template, 'spec.template'),
    ];
  },
});
