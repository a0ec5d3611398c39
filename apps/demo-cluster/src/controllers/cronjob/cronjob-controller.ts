import { isApiError, metaV1Time, objectKey, toApiError, type KubeObject } from '@listwatch/api';
import {
  deletedObject,
  enqueueKeys,
  realClock,
  splitMetaNamespaceKey,
  type Clock,
  type Controller,
  type DeletedFinalStateUnknown,
} from '@listwatch/client';
import { CronExpressionParser, type CronExpression } from 'cron-parser';
import { isDeepStrictEqual } from 'node:util';
import {
  cachedResource,
  recordEvent,
  workQueueController,
  type CachedResource,
  type ControllerOptions,
} from '../controller-options.js';
import { isJobFinished, jobCondition, type Job } from '../job/job-controller.js';
import { cachedObject, controllerOf, newControllerRef, resources } from '../objects.js';

// Follows kubernetes pkg/controller/cronjob/cronjob_controllerv2.go (syncCronJob,
// cleanupFinishedJobs) and utils.go (mostRecentScheduleTime, getJobName).

/** The annotation a Job made by a CronJob carries its scheduled time in (RFC 3339). */
export const SCHEDULED_TIMESTAMP_ANNOTATION = 'batch.kubernetes.io/cronjob-scheduled-timestamp';
/** kube requeues a little after the next schedule time, so that it has surely come. */
const NEXT_SCHEDULE_DELTA_MS = 100;

interface ObjectReference {
  apiVersion?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
}

export interface CronJob extends KubeObject {
  spec?: {
    schedule?: string;
    timeZone?: string;
    startingDeadlineSeconds?: number;
    concurrencyPolicy?: 'Allow' | 'Forbid' | 'Replace';
    suspend?: boolean;
    successfulJobsHistoryLimit?: number;
    failedJobsHistoryLimit?: number;
    jobTemplate?: {
      metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
      spec?: Job['spec'];
    };
  };
  status?: {
    active?: ObjectReference[];
    lastScheduleTime?: string;
    lastSuccessfulTime?: string;
  };
}

/** The schedule of a CronJob, in its time zone (UTC unless `spec.timeZone`). */
export function parseSchedule(cronJob: CronJob, currentDate: number): CronExpression {
  return CronExpressionParser.parse(cronJob.spec?.schedule ?? '', {
    currentDate: new Date(currentDate),
    tz: cronJob.spec?.timeZone ?? 'UTC',
  });
}

/** A Job's name for one scheduled time: `<cronjob>-<minutes since the epoch>` (utils.go getJobName). */
export function jobNameFor(cronJob: CronJob, scheduledMs: number): string {
  return `${cronJob.metadata.name ?? ''}-${Math.floor(scheduledMs / 60_000)}`;
}

/**
 * The latest schedule time after the last one run (or the CronJob's creation) and not after
 * `now`, if any; and the next one after `now` (utils.go mostRecentScheduleTime, nextScheduleTime).
 */
export function scheduleTimes(
  cronJob: CronJob,
  now: number,
): { mostRecent: number | undefined; next: number } {
  const earliest = Date.parse(
    cronJob.status?.lastScheduleTime ?? cronJob.metadata.creationTimestamp ?? '',
  );
  // A time exactly on the schedule counts as come: look from just after it.
  const recent = parseSchedule(cronJob, now + 1)
    .prev()
    .getTime();
  const next = parseSchedule(cronJob, now).next().getTime();
  return { mostRecent: recent > earliest ? recent : undefined, next };
}

export interface CronJobControllerOptions extends ControllerOptions {
  /** What the controller takes as now (the real clock unless a test skews it). */
  clock?: Clock;
}

/**
 * Runs every batch/v1 CronJob's Jobs: at each schedule time a Job from its jobTemplate, owned by
 * it and named `<cronjob>-<scheduled time in minutes>`, unless suspended, too late for
 * `startingDeadlineSeconds`, or held back by `concurrencyPolicy` (Forbid skips while one runs,
 * Replace deletes the running ones). It keeps `status.active`, `lastScheduleTime` and
 * `lastSuccessfulTime`, deletes the oldest finished Jobs beyond the history limits, and wakes
 * itself for the next schedule time.
 */
export class CronJobController {
  readonly controller: Controller<string>;
  private readonly cronJobs: CachedResource<CronJob>;
  private readonly jobs: CachedResource<Job>;
  private readonly clock: Clock;
  private readonly options: CronJobControllerOptions;

  constructor(options: CronJobControllerOptions) {
    this.options = options;
    this.clock = options.clock ?? realClock;
    this.cronJobs = cachedResource<CronJob>(options, resources.cronjobs);
    this.jobs = cachedResource<Job>(options, resources.jobs);
    const enqueue = { add: (key: string) => this.controller.enqueue(key) };
    const cronJobRegistration = this.cronJobs.informer.addEventHandler(
      enqueueKeys(enqueue, { skipResyncs: true }),
    );
    const jobRegistration = this.jobs.informer.addEventHandler({
      onAdd: (job) => this.enqueueOwner(job),
      onUpdate: (_, job) => this.enqueueOwner(job),
      onDelete: (obj) => this.enqueueOwner(obj),
    });
    this.controller = workQueueController(options, 'cronjob', (key) => this.sync(key), [
      cronJobRegistration,
      jobRegistration,
    ]);
  }

  run(signal: AbortSignal): Promise<void> {
    return this.controller.run(signal);
  }

  /** A Job's change concerns the CronJob that made it. */
  private enqueueOwner(obj: Job | DeletedFinalStateUnknown<Job>): void {
    const job = deletedObject(obj);
    const ref = job && controllerOf(job);
    if (!ref || ref.kind !== 'CronJob') return;
    this.controller.enqueue(objectKey({ namespace: job.metadata.namespace ?? '', name: ref.name }));
  }

  /** One pass over one CronJob (cronjob_controllerv2.go syncCronJob). */
  private async sync(key: string): Promise<void> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    const cronJob = cachedObject(this.cronJobs.lister, namespace, name);
    if (!cronJob) return;
    const jobs = this.jobs.lister
      .namespace(namespace)
      .list()
      .filter((job) => {
        const ref = controllerOf(job);
        return ref?.kind === 'CronJob' && ref.uid === cronJob.metadata.uid;
      });
    const status: NonNullable<CronJob['status']> = structuredClone(cronJob.status ?? {});
    const active = new Map((status.active ?? []).map((ref) => [ref.uid ?? '', ref]));
    // The active list follows the Jobs: running ones are in it, finished and deleted ones leave.
    for (const job of jobs) {
      const uid = job.metadata.uid ?? '';
      if (!isJobFinished(job)) {
        if (!active.has(uid)) active.set(uid, jobReference(job));
        continue;
      }
      active.delete(uid);
      const completed = jobCondition(job, 'Complete') && job.status?.completionTime;
      if (
        completed &&
        Date.parse(completed) > Date.parse(status.lastSuccessfulTime ?? '1970-01-01T00:00:00Z')
      )
        status.lastSuccessfulTime = completed;
    }
    const uids = new Set(jobs.map((job) => job.metadata.uid));
    for (const uid of active.keys()) if (!uids.has(uid)) active.delete(uid);

    let requeueAt: number | undefined;
    if (!cronJob.metadata.deletionTimestamp) {
      requeueAt = await this.schedule(cronJob, status, active);
      await this.cleanupFinishedJobs(cronJob, jobs);
    }
    status.active = [...active.values()];
    if (status.active.length === 0) delete status.active;
    await this.updateStatus(cronJob, status);
    if (requeueAt !== undefined)
      this.controller.queue.addAfter(
        key,
        Math.max(0, requeueAt - this.clock.now() + NEXT_SCHEDULE_DELTA_MS),
      );
  }

  /**
   * Starts the Job of the most recent schedule time not yet run, if it is due; returns when to
   * look again (the next schedule time), or undefined for never (a schedule that does not parse).
   */
  private async schedule(
    cronJob: CronJob,
    status: NonNullable<CronJob['status']>,
    active: Map<string, ObjectReference>,
  ): Promise<number | undefined> {
    const now = this.clock.now();
    let times: { mostRecent: number | undefined; next: number };
    try {
      times = scheduleTimes({ ...cronJob, status }, now);
    } catch {
      // Validation admits only schedules that parse; one that does not is never run.
      return undefined;
    }
    const spec = cronJob.spec ?? {};
    const scheduled = times.mostRecent;
    if (spec.suspend || scheduled === undefined) return times.next;
    // Too late for this one (a controller that was down): it is skipped, not run late.
    if (
      spec.startingDeadlineSeconds !== undefined &&
      scheduled + spec.startingDeadlineSeconds * 1000 < now
    )
      return times.next;
    if (spec.concurrencyPolicy === 'Forbid' && active.size > 0) return times.next;
    if (spec.concurrencyPolicy === 'Replace') {
      for (const [uid, ref] of active) {
        await this.deleteJob(cronJob, ref.name ?? '', uid);
        active.delete(uid);
      }
    }
    const job = await this.createJob(cronJob, scheduled);
    active.set(job.metadata.uid ?? '', jobReference(job));
    status.lastScheduleTime = metaV1Time(scheduled);
    return times.next;
  }

  /** The Job of one scheduled time (cronjob_controllerv2.go getJobFromTemplate2). */
  private async createJob(cronJob: CronJob, scheduled: number): Promise<Job> {
    const namespace = cronJob.metadata.namespace ?? '';
    const template = cronJob.spec?.jobTemplate ?? {};
    const name = jobNameFor(cronJob, scheduled);
    try {
      const job = await this.jobs.client.namespace(namespace).create({
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: {
          name,
          namespace,
          labels: { ...template.metadata?.labels },
          annotations: {
            ...template.metadata?.annotations,
            [SCHEDULED_TIMESTAMP_ANNOTATION]: metaV1Time(scheduled),
          },
          ownerReferences: [newControllerRef(cronJob, 'batch/v1', 'CronJob')],
        },
        spec: structuredClone(template.spec ?? {}),
      });
      this.event(cronJob, 'Normal', 'SuccessfulCreate', `Created job ${name}`);
      return job;
    } catch (err) {
      // Made already (our status write was lost): the Job of that time is the one there.
      if (!isApiError(err) || err.code !== 409) {
        this.event(
          cronJob,
          'Warning',
          'FailedCreate',
          `Error creating job: ${toApiError(err).message}`,
        );
        throw err;
      }
      return await this.jobs.client.namespace(namespace).get(name);
    }
  }

  /**
   * Deletes the oldest finished Jobs beyond `successfulJobsHistoryLimit` (Complete) and
   * `failedJobsHistoryLimit` (Failed), their pods with them (cleanupFinishedJobs).
   */
  private async cleanupFinishedJobs(cronJob: CronJob, jobs: readonly Job[]): Promise<void> {
    const spec = cronJob.spec ?? {};
    const started = (job: Job) =>
      Date.parse(job.status?.startTime ?? job.metadata.creationTimestamp ?? '');
    const limits = [
      ['Complete', spec.successfulJobsHistoryLimit ?? 3],
      ['Failed', spec.failedJobsHistoryLimit ?? 1],
    ] as const;
    for (const [type, limit] of limits) {
      const finished = jobs
        .filter((job) => jobCondition(job, type) && !job.metadata.deletionTimestamp)
        .sort((a, b) => started(a) - started(b));
      for (const job of finished.slice(0, Math.max(0, finished.length - limit)))
        await this.deleteJob(cronJob, job.metadata.name ?? '', job.metadata.uid ?? '');
    }
  }

  private async deleteJob(cronJob: CronJob, name: string, uid: string): Promise<void> {
    try {
      await this.jobs.client.namespace(cronJob.metadata.namespace ?? '').delete(name, {
        propagationPolicy: 'Background',
        ...(uid ? { preconditions: { uid } } : {}),
      });
      this.event(cronJob, 'Normal', 'SuccessfulDelete', `Deleted job ${name}`);
    } catch (err) {
      if (!isApiError(err) || (err.code !== 404 && err.code !== 409)) {
        this.event(cronJob, 'Warning', 'FailedDelete', `Deleted job: ${toApiError(err).message}`);
        throw toApiError(err);
      }
    }
  }

  /** cronjob_controllerv2.go's jm.recorder.Eventf on the CronJob. */
  private event(
    cronJob: CronJob,
    type: 'Normal' | 'Warning',
    reason: string,
    message: string,
  ): void {
    recordEvent(this.options.recorder, resources.cronjobs, cronJob, type, reason, message);
  }

  private async updateStatus(
    cronJob: CronJob,
    status: NonNullable<CronJob['status']>,
  ): Promise<void> {
    if (isDeepStrictEqual(cronJob.status ?? {}, status)) return;
    try {
      await this.cronJobs.client
        .namespace(cronJob.metadata.namespace ?? '')
        .updateStatus({ ...cronJob, status: status });
    } catch (err) {
      // 409: written from a cache that was behind; retried once it caught up. 404: gone.
      if (isApiError(err) && err.code === 404) return;
      throw err;
    }
  }
}

function jobReference(job: Job): ObjectReference {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    name: job.metadata.name ?? '',
    namespace: job.metadata.namespace ?? '',
    uid: job.metadata.uid ?? '',
    ...(job.metadata.resourceVersion ? { resourceVersion: job.metadata.resourceVersion } : {}),
  };
}
