import { describe, expect, it } from 'vitest';
import { demoClusterForFile, listPods } from '../../testing/test-apiserver.js';
import { EXIT_CODE_ANNOTATION, RUN_SECONDS_ANNOTATION } from '../kubelet.js';
import { resources, type Pod } from '../objects.js';
import type { Job } from './job-controller.js';

// The rules of kubernetes pkg/controller/job/job_controller.go, against a real apiserver with
// the demo's scheduler and kubelets running the Job's pods to completion.
describe('the Job controller with the scheduler and two kubelets', () => {
  const demo = demoClusterForFile(['node-a', 'node-b'], { runToCompletionMs: 300 });
  const poll = { timeout: 20_000, interval: 100 };

  const jobs = () => demo.api.client.resource<Job>(resources.jobs);
  const pods = () => demo.api.client.resource<Pod>(resources.pods);

  const job = (
    name: string,
    spec: Record<string, unknown>,
    annotations: Record<string, string> = {},
    restartPolicy = 'Never',
  ): Job => ({
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name },
    spec: {
      ...spec,
      template: {
        metadata: { annotations },
        spec: {
          restartPolicy,
          containers: [{ name: 'main', image: 'busybox', command: ['echo', 'hi'] }],
        },
      },
    },
  });

  const conditionTypes = (j: Job) =>
    (j.status?.conditions ?? []).filter((c) => c.status === 'True').map((c) => c.type);

  it('a pod with restartPolicy Never runs to Succeeded: its container terminated with exit code 0, not ready', async () => {
    const ns = await demo.api.namespace();
    await pods()
      .namespace(ns)
      .create({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'once' },
        spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] },
      });
    await expect
      .poll(async () => (await pods().namespace(ns).get('once')).status?.phase, poll)
      .toBe('Succeeded');
    const pod = await pods().namespace(ns).get('once');
    expect(pod.status?.containerStatuses?.[0]).toMatchObject({
      ready: false,
      state: { terminated: { exitCode: 0, reason: 'Completed' } },
    });
  });

  it('a Job of 3 completions, 2 in parallel, never runs more than 2 pods and completes: SuccessCriteriaMet, then Complete with its completionTime', async () => {
    const ns = await demo.api.namespace();
    await jobs()
      .namespace(ns)
      .create(job('work', { completions: 3, parallelism: 2 }));
    let mostActive = 0;
    await expect
      .poll(async () => {
        const running = (await listPods(pods(), ns)).filter(
          (p) => p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed',
        );
        mostActive = Math.max(mostActive, running.length);
        return conditionTypes(await jobs().namespace(ns).get('work'));
      }, poll)
      .toEqual(['SuccessCriteriaMet', 'Complete']);
    expect(mostActive).toBeLessThanOrEqual(2);
    const done = await jobs().namespace(ns).get('work');
    expect(done.status).toMatchObject({ succeeded: 3, failed: 0, active: 0, ready: 0 });
    expect(done.status?.startTime).toMatch(/Z$/);
    expect(done.status?.completionTime).toMatch(/Z$/);
    expect(done.status?.conditions?.find((c) => c.type === 'Complete')).toMatchObject({
      reason: 'CompletionsReached',
      message: 'Reached expected number of succeeded pods',
    });
    const owned = await listPods(pods(), ns);
    expect(owned).toHaveLength(3);
    for (const pod of owned) {
      expect(pod.metadata.name).toMatch(/^work-[a-z0-9]{5}$/);
      expect(pod.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'Job', name: 'work' });
      expect(pod.metadata.labels?.['batch.kubernetes.io/job-name']).toBe('work');
      expect(pod.status?.phase).toBe('Succeeded');
    }
  });

  it('a Job whose pods fail more often than backoffLimit allows is Failed (BackoffLimitExceeded) after FailureTarget, with no pod left running', async () => {
    const ns = await demo.api.namespace();
    await jobs()
      .namespace(ns)
      .create(job('broken', { backoffLimit: 1 }, { [EXIT_CODE_ANNOTATION]: '1' }));
    await expect
      .poll(async () => conditionTypes(await jobs().namespace(ns).get('broken')), poll)
      .toEqual(['FailureTarget', 'Failed']);
    const failed = await jobs().namespace(ns).get('broken');
    expect(failed.status).toMatchObject({ failed: 2, succeeded: 0, active: 0 });
    expect(failed.status?.completionTime).toBeUndefined();
    expect(failed.status?.conditions?.find((c) => c.type === 'Failed')).toMatchObject({
      reason: 'BackoffLimitExceeded',
      message: 'Job has reached the specified backoff limit',
    });
    const phases = (await listPods(pods(), ns)).map((p) => p.status?.phase);
    expect(phases).toEqual(['Failed', 'Failed']);
  });

  it('restarts of an OnFailure pod count against backoffLimit: the Job fails, its running pod deleted', async () => {
    const ns = await demo.api.namespace();
    await jobs()
      .namespace(ns)
      .create(job('flaky', { backoffLimit: 2 }, { [EXIT_CODE_ANNOTATION]: '3' }, 'OnFailure'));
    await expect
      .poll(async () => conditionTypes(await jobs().namespace(ns).get('flaky')), poll)
      .toEqual(['FailureTarget', 'Failed']);
    await expect.poll(async () => (await listPods(pods(), ns)).length, poll).toBe(0);
  });

  it('a work-queue Job (parallelism 2, no completions) completes once a pod succeeded and none is left running', async () => {
    const ns = await demo.api.namespace();
    await jobs()
      .namespace(ns)
      .create(job('queue', { parallelism: 2 }, { [RUN_SECONDS_ANNOTATION]: '0.2' }));
    await expect
      .poll(async () => conditionTypes(await jobs().namespace(ns).get('queue')), poll)
      .toEqual(['SuccessCriteriaMet', 'Complete']);
    expect((await jobs().namespace(ns).get('queue')).status?.succeeded).toBe(2);
  });
});
