import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { demoClusterForFile, SkewedClock } from '../../testing/test-apiserver.js';
import type { Job } from '../job/job-controller.js';
import { resources } from '../objects.js';
import {
  jobNameFor,
  scheduleTimes,
  SCHEDULED_TIMESTAMP_ANNOTATION,
  type CronJob,
} from './cronjob-controller.js';

// The rules of kubernetes pkg/controller/cronjob/cronjob_controllerv2.go and utils.go. The
// controller's clock is real time moved ahead, so a schedule time comes within seconds.
describe('the CronJob controller', () => {
  const clock = new SkewedClock();
  const demo = demoClusterForFile(['node-a'], { cronJobClock: clock, runToCompletionMs: 200 });
  const poll = { timeout: 20_000, interval: 100 };

  const cronJobs = () => demo.api.client.resource<CronJob>(resources.cronjobs);
  const jobs = () => demo.api.client.resource<Job>(resources.jobs);

  const cronJob = (name: string, spec: Partial<NonNullable<CronJob['spec']>> = {}): CronJob => ({
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name },
    spec: {
      schedule: '*/1 * * * *',
      jobTemplate: {
        metadata: { labels: { app: name } },
        spec: {
          template: {
            spec: {
              restartPolicy: 'Never',
              containers: [{ name: 'main', image: 'busybox' }],
            },
          },
        },
      },
      ...spec,
    },
  });

  it('fires at its schedule time: a Job <cronjob>-<minutes> from its template, owned by it, that completes; then lastScheduleTime, lastSuccessfulTime and no active Job', async () => {
    const ns = await demo.api.namespace();
    const minute = clock.minuteIn(1500);
    const created = await cronJobs().namespace(ns).create(cronJob('tick'));
    const name = `tick-${minute / 60_000}`;
    await expect
      .poll(async () => (await jobs().namespace(ns).list()).items.map((j) => j.metadata.name), poll)
      .toEqual([name]);
    const job = await jobs().namespace(ns).get(name);
    expect(job.metadata.labels?.['app']).toBe('tick');
    expect(job.metadata.annotations?.[SCHEDULED_TIMESTAMP_ANNOTATION]).toBe(
      new Date(minute).toISOString().replace('.000Z', 'Z'),
    );
    expect(job.metadata.ownerReferences).toEqual([
      {
        apiVersion: 'batch/v1',
        kind: 'CronJob',
        name: 'tick',
        uid: created.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    await expect
      .poll(async () => {
        const s = (await cronJobs().namespace(ns).get('tick')).status ?? {};
        return [s.lastScheduleTime, s.lastSuccessfulTime !== undefined, s.active ?? []];
      }, poll)
      .toEqual([new Date(minute).toISOString().replace('.000Z', 'Z'), true, []]);
  });

  it('keeps successfulJobsHistoryLimit finished Jobs: the oldest goes when a newer one completes', async () => {
    const ns = await demo.api.namespace();
    const first = clock.minuteIn(1000);
    await cronJobs()
      .namespace(ns)
      .create(cronJob('keep', { successfulJobsHistoryLimit: 1 }));
    const names = async () =>
      (await jobs().namespace(ns).list()).items
        .filter((j) => !j.metadata.deletionTimestamp)
        .map((j) => j.metadata.name);
    await expect.poll(names, poll).toEqual([`keep-${first / 60_000}`]);
    await expect
      .poll(
        async () => (await cronJobs().namespace(ns).get('keep')).status?.lastSuccessfulTime,
        poll,
      )
      .toBeDefined();
    // The next minute: the controller sleeps until the one it computed, so a change wakes it.
    const second = clock.minuteIn(1000);
    await cronJobs()
      .namespace(ns)
      .patch('keep', { metadata: { labels: { wake: 'up' } } });
    await expect.poll(names, poll).toEqual([`keep-${second / 60_000}`]);
  });

  it('concurrencyPolicy Forbid skips a schedule time while its Job runs; Allow, beside it, starts a second', async () => {
    const ns = await demo.api.namespace();
    clock.minuteIn(1000);
    const longRunning = (name: string, concurrencyPolicy: 'Forbid' | 'Allow'): CronJob => {
      const spec = cronJob(name, { concurrencyPolicy });
      // Runs far longer than the test.
      spec.spec!.jobTemplate!.spec!.template = {
        metadata: { annotations: { 'demo.listwatch.dev/run-seconds': '600' } },
        spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] },
      };
      return spec;
    };
    await cronJobs().namespace(ns).create(longRunning('solo', 'Forbid'));
    await cronJobs().namespace(ns).create(longRunning('many', 'Allow'));
    const active = async (name: string) =>
      (await cronJobs().namespace(ns).get(name)).status?.active?.length ?? 0;
    await expect
      .poll(async () => [await active('solo'), await active('many')], poll)
      .toEqual([1, 1]);
    const lastScheduled = (await cronJobs().namespace(ns).get('solo')).status?.lastScheduleTime;
    clock.minuteIn(1000);
    for (const name of ['solo', 'many'])
      await cronJobs()
        .namespace(ns)
        .patch(name, { metadata: { labels: { wake: 'up' } } });
    // The Allow one passing the minute shows the controller did; the Forbid one let it go.
    await expect.poll(() => active('many'), poll).toBe(2);
    await expect
      .poll(
        async () => (await jobs().namespace(ns).list({ labelSelector: 'app=solo' })).items.length,
        poll,
      )
      .toBe(1);
    expect((await cronJobs().namespace(ns).get('solo')).status?.lastScheduleTime).toBe(
      lastScheduled,
    );
  });

  it('the most recent schedule time is after the last one run and not after now; a Job name is <cronjob>-<minutes> (utils.go)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1_600_000_000, max: 2_000_000_000 }),
        fc.integer({ min: 1, max: 30 }),
        (seconds, every) => {
          const now = seconds * 1000;
          const created = new Date(now - 3_600_000).toISOString();
          const cj: CronJob = {
            metadata: { name: 'x', creationTimestamp: created },
            spec: { schedule: `*/${every} * * * *` },
          };
          const { mostRecent, next } = scheduleTimes(cj, now);
          expect(mostRecent).toBeDefined();
          expect(mostRecent!).toBeLessThanOrEqual(now);
          expect(next).toBeGreaterThan(now);
          expect(new Date(mostRecent!).getUTCMinutes() % every).toBe(0);
          expect(next - mostRecent!).toBeLessThanOrEqual(60 * 60_000);
          expect(jobNameFor(cj, mostRecent!)).toBe(`x-${mostRecent! / 60_000}`);
          // Already run: nothing until the next one.
          const ran = { ...cj, status: { lastScheduleTime: new Date(mostRecent!).toISOString() } };
          expect(scheduleTimes(ran, now).mostRecent).toBeUndefined();
        },
      ),
    );
  });
});
