import { isApiError, objectKey, toApiError, type ApiError, type KubeObject } from '@listwatch/api';
import {
  enqueueKeys,
  splitMetaNamespaceKey,
  type Controller,
  type DeletedFinalStateUnknown,
  type ResourceClient,
  type SharedIndexInformer,
} from '@listwatch/client';
import { isDeepStrictEqual } from 'node:util';
import { ControllerExpectations } from '../controller-expectations.js';
import { createPodFromTemplate, deletedControlledPod, type OwnerEvent } from '../pod-control.js';
import {
  cachedResource,
  recordEvent,
  workQueueController,
  type CachedResource,
  type ControllerOptions,
} from '../controller-options.js';
import {
  cachedObject,
  controllerOf,
  isPodActive,
  isPodReady,
  now,
  resolveControllerRef,
  resources,
  type Pod,
  type PodTemplate,
} from '../objects.js';
import { controlledPods, podsByController } from '../pod-indexes.js';
import { slowStartBatch } from '../replicaset-controller.js';

// Follows kubernetes pkg/controller/job/job_controller.go (syncJob, manageJob,
// trackJobStatusAndRemoveFinalizers) for NonIndexed jobs, without pod finalizers: the pods a Job
// owns stay until the Job goes, so its counts are read from them.

export interface JobCondition {
  /** Complete, Failed, SuccessCriteriaMet, FailureTarget, Suspended. */
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastProbeTime?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface Job extends KubeObject {
  spec?: {
    parallelism?: number;
    completions?: number | null;
    backoffLimit?: number;
    activeDeadlineSeconds?: number;
    suspend?: boolean;
    template?: PodTemplate;
  };
  status?: {
    startTime?: string;
    completionTime?: string;
    active?: number;
    succeeded?: number;
    failed?: number;
    ready?: number;
    terminating?: number;
    conditions?: JobCondition[];
  };
}

/** The condition of `type` that is True, if any. */
export function jobCondition(job: Job, type: string): JobCondition | undefined {
  return job.status?.conditions?.find((c) => c.type === type && c.status === 'True');
}

/** Complete or Failed: nothing more will run (job_controller.go IsJobFinished). */
export function isJobFinished(job: Job): boolean {
  return jobCondition(job, 'Complete') !== undefined || jobCondition(job, 'Failed') !== undefined;
}

/** What owns the pods this controller creates. */
const JOB_TYPE = { apiVersion: 'batch/v1', kind: 'Job' };

/**
 * Runs every batch/v1 Job to completion: creates pods from its template (owned by it, named by
 * generateName `<job>-`) up to `parallelism` and what `completions` still lacks, counts the pods
 * that Succeeded and Failed (container restarts of OnFailure pods count as failures, as kube's
 * backoff does), and finishes the Job: `SuccessCriteriaMet` then `Complete` with its
 * completionTime once `completions` pods succeeded, `FailureTarget` then `Failed` (its active pods
 * deleted) when failures pass `backoffLimit` or `activeDeadlineSeconds` passes.
 */
export class JobController {
  readonly controller: Controller<string>;
  private readonly jobs: CachedResource<Job>;
  private readonly pods: ResourceClient<Pod>;
  private readonly podInformer: SharedIndexInformer<Pod>;
  private readonly expectations = new ControllerExpectations();
  private readonly options: ControllerOptions;

  constructor(options: ControllerOptions) {
    this.options = options;
    this.jobs = cachedResource<Job>(options, resources.jobs);
    this.pods = options.client.resource<Pod>(resources.pods);
    this.podInformer = podsByController(options.factory);
    const enqueue = { add: (key: string) => this.controller.enqueue(key) };
    const jobRegistration = this.jobs.informer.addEventHandler(
      enqueueKeys(enqueue, { skipResyncs: true }),
    );
    const podRegistration = this.podInformer.addEventHandler({
      onAdd: (pod) => this.addPod(pod),
      onUpdate: (oldPod, newPod) => this.updatePod(oldPod, newPod),
      onDelete: (obj) => this.deletePod(obj),
    });
    this.controller = workQueueController(options, 'job', (key) => this.sync(key), [
      jobRegistration,
      podRegistration,
    ]);
  }

  run(signal: AbortSignal): Promise<void> {
    return this.controller.run(signal);
  }

  private ownerKey(pod: Pod): string | undefined {
    const ref = controllerOf(pod);
    const job =
      ref && resolveControllerRef(this.jobs.lister, 'Job', pod.metadata.namespace ?? '', ref);
    return job ? objectKey(job.metadata) : undefined;
  }

  private addPod(pod: Pod): void {
    const key = this.ownerKey(pod);
    if (key === undefined) return;
    this.expectations.creationObserved(key);
    this.controller.enqueue(key);
  }

  private updatePod(oldPod: Pod, newPod: Pod): void {
    if (oldPod.metadata.resourceVersion === newPod.metadata.resourceVersion) return;
    const key = this.ownerKey(newPod);
    if (key !== undefined) this.controller.enqueue(key);
  }

  private deletePod(obj: Pod | DeletedFinalStateUnknown<Pod>): void {
    const deleted = deletedControlledPod(obj, 'Job');
    if (!deleted) return;
    this.expectations.deletionObserved(deleted.ownerKey, deleted.podKey);
    this.controller.enqueue(deleted.ownerKey);
  }

  /** One pass over one Job (job_controller.go syncJob). */
  private async sync(key: string): Promise<void> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    const job = cachedObject(this.jobs.lister, namespace, name);
    if (!job) {
      this.expectations.delete(key);
      return;
    }
    if (isJobFinished(job) || job.metadata.deletionTimestamp) return;
    const pods = controlledPods(this.podInformer, job.metadata.uid ?? '');
    const active = pods.filter(isPodActive);
    const terminating = pods.filter(
      (p) => p.metadata.deletionTimestamp && p.status?.phase !== 'Succeeded',
    ).length;
    const succeeded = pods.filter((p) => p.status?.phase === 'Succeeded').length;
    const restarts = active.reduce(
      (sum, p) => sum + (p.status?.containerStatuses ?? []).reduce((n, c) => n + c.restartCount, 0),
      0,
    );
    const failed = pods.filter((p) => p.status?.phase === 'Failed').length;
    const spec = job.spec ?? {};
    const t = now();
    const status: NonNullable<Job['status']> = {
      ...job.status,
      succeeded,
      failed,
      ready: active.filter(isPodReady).length,
      terminating,
    };
    const conditions = [...(job.status?.conditions ?? [])];
    const setCondition = (type: string, reason: string, message: string) => {
      if (conditions.some((c) => c.type === type && c.status === 'True')) return;
      conditions.push({
        type,
        status: 'True',
        lastProbeTime: t,
        lastTransitionTime: t,
        reason,
        message,
      });
    };
    const suspended = spec.suspend === true;
    if (!suspended) status.startTime ??= t;

    // What decides the Job's end, first the failure (job_controller.go: backoff, then deadline).
    const backoffLimit = spec.backoffLimit ?? 6;
    const deadline = spec.activeDeadlineSeconds;
    const startMs = Date.parse(status.startTime ?? '');
    let failure: { reason: string; message: string } | undefined = jobCondition(
      job,
      'FailureTarget',
    ) as { reason: string; message: string } | undefined;
    if (!failure && failed + restarts > backoffLimit)
      failure = {
        reason: 'BackoffLimitExceeded',
        message: 'Job has reached the specified backoff limit',
      };
    else if (!failure && deadline !== undefined && Date.now() - startMs >= deadline * 1000)
      failure = {
        reason: 'DeadlineExceeded',
        message: 'Job was active longer than specified deadline',
      };
    const completions = spec.completions ?? null;
    const complete =
      !failure &&
      (jobCondition(job, 'SuccessCriteriaMet') !== undefined ||
        (completions !== null ? succeeded >= completions : succeeded > 0 && active.length === 0));

    let manageError: ApiError | undefined;
    if (failure) {
      setCondition('FailureTarget', failure.reason, failure.message);
      // The pods still running are deleted; the Job fails once none is left.
      try {
        await this.deletePods(job, key, active);
      } catch (err) {
        manageError = toApiError(err);
      }
      if (active.length === 0 && terminating === 0) {
        setCondition('Failed', failure.reason, failure.message);
        delete status.completionTime;
      }
      status.active = active.length;
    } else if (complete) {
      const message = 'Reached expected number of succeeded pods';
      setCondition('SuccessCriteriaMet', 'CompletionsReached', message);
      // Extra pods of a work-queue Job are no longer needed.
      try {
        await this.deletePods(job, key, active);
      } catch (err) {
        manageError = toApiError(err);
      }
      if (active.length === 0 && terminating === 0) {
        setCondition('Complete', 'CompletionsReached', message);
        status.completionTime = t;
      }
      status.active = active.length;
    } else if (!suspended && this.expectations.satisfied(key)) {
      // manageJob: what parallelism allows and completions still lack.
      const parallelism = spec.parallelism ?? 1;
      const wanted =
        completions !== null
          ? Math.min(parallelism, Math.max(0, completions - succeeded))
          : // A work-queue Job: once one succeeded, the rest finish, none starts.
            succeeded > 0
            ? active.length
            : parallelism;
      const diff = wanted - active.length;
      try {
        if (diff > 0) {
          this.expectations.expectCreations(key, diff);
          const { successes, error } = await slowStartBatch(diff, 1, () => this.createPod(job));
          for (let i = successes; i < diff; i++) this.expectations.creationObserved(key);
          if (error !== undefined) throw toApiError(error);
        } else if (diff < 0) {
          await this.deletePods(job, key, active.slice(diff));
        }
      } catch (err) {
        manageError = toApiError(err);
      }
      status.active = Math.max(active.length, wanted);
    } else {
      status.active = active.length;
    }
    status.conditions = conditions;
    await this.updateStatus(job, status);
    // Once, as the Job finishes (a finished Job returned above; job_controller.go syncJob).
    if (failure && conditions.some((c) => c.type === 'Failed'))
      this.event(job, 'Warning', failure.reason, failure.message);
    else if (complete && conditions.some((c) => c.type === 'Complete'))
      this.event(job, 'Normal', 'Completed', 'Job completed');
    if (manageError !== undefined) throw manageError;
    // activeDeadlineSeconds passes with nothing else happening: look again then.
    if (!failure && !complete && deadline !== undefined && !Number.isNaN(startMs))
      this.controller.queue.addAfter(key, Math.max(0, startMs + deadline * 1000 - Date.now()));
  }

  /** A pod from the template, owned by the Job (job_controller.go manageJob, GetPodFromTemplate). */
  private async createPod(job: Job): Promise<void> {
    const event: OwnerEvent = (type, reason, message) => this.event(job, type, reason, message);
    await createPodFromTemplate(this.pods, job, JOB_TYPE, event);
  }

  /** controller_utils.go RealPodControl's and job_controller.go's recorder.Event on the Job. */
  private event(job: Job, type: 'Normal' | 'Warning', reason: string, message: string): void {
    recordEvent(this.options.recorder, resources.jobs, job, type, reason, message);
  }

  private async deletePods(job: Job, key: string, pods: readonly Pod[]): Promise<void> {
    if (pods.length === 0) return;
    this.expectations.expectDeletions(
      key,
      pods.map((p) => objectKey(p.metadata)),
    );
    const errors: ApiError[] = [];
    await Promise.all(
      pods.map(async (pod) => {
        try {
          await this.pods.namespace(pod.metadata.namespace ?? '').delete(pod.metadata.name ?? '', {
            ...(pod.metadata.uid ? { preconditions: { uid: pod.metadata.uid } } : {}),
          });
          this.event(job, 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata.name ?? ''}`);
        } catch (err) {
          this.expectations.deletionObserved(key, objectKey(pod.metadata));
          if (!isApiError(err) || err.code !== 404) errors.push(toApiError(err));
        }
      }),
    );
    const [first] = errors;
    if (first) throw first;
  }

  /** Writes the status when it changed, on the cached resourceVersion (UpdateStatus). */
  private async updateStatus(job: Job, status: NonNullable<Job['status']>): Promise<void> {
    const clean = JSON.parse(JSON.stringify(status)) as NonNullable<Job['status']>;
    if (isDeepStrictEqual(job.status ?? {}, clean)) return;
    try {
      await this.jobs.client
        .namespace(job.metadata.namespace ?? '')
        .updateStatus({ ...job, status: clean });
    } catch (err) {
      // 409: written from a cache that was behind; retried once it caught up. 404: gone.
      if (isApiError(err) && err.code === 404) return;
      throw err;
    }
  }
}
