import { KubectlSession } from '@listwatch/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoClusterForFile, SkewedClock } from './testing/test-apiserver.js';

// What people try first on a cluster, with the real kubectl against the apiserver and the demo's
// controllers: a Job, a CronJob, the kubernetes Service, and what the demo cannot do.
describe('kubectl create job / cronjob against the demo control plane', () => {
  let kubectl: KubectlSession;
  const poll = { timeout: 60_000, interval: 200 };
  // The CronJob controller's now is ahead of real time, so its minute comes within seconds; the
  // kubelets run Jobs' pods for their real default (2 s).
  const clock = new SkewedClock();
  const demo = demoClusterForFile(['node-a'], { cronJobClock: clock });

  beforeAll(() => {
    kubectl = new KubectlSession(demo.api.server.url);
  });
  afterAll(() => {
    kubectl?.dispose();
  });

  const run = (args: string[]) => kubectl.run(args);
  const ok = async (args: string[]) => {
    const result = await run(args);
    expect(result.code, `kubectl ${args.join(' ')}: ${result.stderr}`).toBe(0);
    return result.stdout;
  };

  it('kubectl create job x --image=busybox -- echo hi completes: kubectl wait --for=condition=complete returns and get job says Complete 1/1', async () => {
    const ns = await demo.api.namespace();
    await ok(['create', 'job', 'hello', '-n', ns, '--image=busybox', '--', 'echo', 'hi']);
    expect(
      await ok(['wait', '--for=condition=complete', 'job/hello', '-n', ns, '--timeout=60s']),
    ).toMatch(/job.batch\/hello condition met/);
    const table = await ok(['get', 'job', 'hello', '-n', ns]);
    expect(table).toMatch(/^hello\s+Complete\s+1\/1\s+/m);
    const pods = await ok(['get', 'pods', '-n', ns, '-l', 'job-name=hello', '--no-headers']);
    expect(pods).toMatch(/^hello-\w{5}\s+0\/1\s+Completed\s+0\s+/m);
    // job_controller.go's Events, as kubectl describe job ends with them.
    await expect
      .poll(() => ok(['describe', 'job', 'hello', '-n', ns]), poll)
      .toMatch(
        /Normal\s+SuccessfulCreate\s+\S+\s+job-controller\s+Created pod: hello-\w{5}[\s\S]*Normal\s+Completed\s+\S+\s+job-controller\s+Job completed/,
      );
  });

  it("kubectl create cronjob x --schedule='*/1 * * * *' fires at its minute: a Job tick-<minute> that completes", async () => {
    const ns = await demo.api.namespace();
    const minute = clock.minuteIn(2000);
    await ok([
      'create',
      'cronjob',
      'tick',
      '-n',
      ns,
      '--image=busybox',
      '--schedule=*/1 * * * *',
      '--',
      'echo',
      'hi',
    ]);
    const job = `tick-${minute / 60_000}`;
    await expect
      .poll(async () => (await run(['get', 'jobs', '-n', ns, '-o', 'name'])).stdout.trim(), poll)
      .toBe(`job.batch/${job}`);
    await ok(['wait', '--for=condition=complete', `job/${job}`, '-n', ns, '--timeout=60s']);
    await expect
      .poll(() => ok(['describe', 'cronjob', 'tick', '-n', ns]), poll)
      .toMatch(
        new RegExp(
          `Normal\\s+SuccessfulCreate\\s+\\S+\\s+cronjob-controller\\s+Created job ${job}`,
        ),
      );
    await expect
      .poll(
        async () =>
          (
            await run([
              'get',
              'cronjob',
              'tick',
              '-n',
              ns,
              '-o',
              'jsonpath={.status.lastSuccessfulTime}',
            ])
          ).stdout,
        poll,
      )
      .toMatch(/Z$/);
  });

  it('kubectl get service kubernetes shows the apiserver Service: 10.96.0.1, 443/TCP', async () => {
    expect(await ok(['get', 'service', 'kubernetes', '-n', 'default', '--no-headers'])).toMatch(
      /^kubernetes\s+ClusterIP\s+10\.96\.0\.1\s+<none>\s+443\/TCP\s+/,
    );
  });

  it('kubectl exec and port-forward fail saying the demo has no container runtime (registry/core/pod/subresources.ts answers 400)', async () => {
    const ns = await demo.api.namespace();
    await ok(['run', 'shell', '-n', ns, '--image=busybox', '--', 'sleep', '3600']);
    await ok(['wait', '--for=condition=Ready', 'pod/shell', '-n', ns, '--timeout=60s']);
    const exec = await run(['exec', 'shell', '-n', ns, '--', 'ls']);
    expect(exec.code).not.toBe(0);
    expect(exec.stderr).toMatch(/no container runtime: pods\/exec is not available/);
    const forward = await run(['port-forward', 'pod/shell', '-n', ns, '18080:80']);
    expect(forward.code).not.toBe(0);
    expect(forward.stderr).toMatch(/no container runtime: pods\/portforward is not available/);
  });

  it('kubectl top says the Metrics API is not available (the demo has no metrics-server)', async () => {
    const result = await run(['top', 'pods', '-n', 'default']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/Metrics API not available/);
  });
});
