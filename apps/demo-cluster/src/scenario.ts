import { isApiError, metaV1Time, type KubeObject } from '@listwatch/api';
import {
  ConnectionError,
  SharedInformerFactory,
  type ListerWatcher,
  type Logger,
  type ResourceRef,
  type RestClient,
} from '@listwatch/client';
import { randomBytes } from 'node:crypto';
import {
  isPodReady,
  resources,
  type Deployment,
  type Node,
  type Pod,
  type ReplicaSet,
} from './controllers/objects.js';
import { foos, newDeployment, type Foo } from './controllers/samplecontroller/foo-controller.js';
import { jobNameFor, type CronJob } from './controllers/cronjob/cronjob-controller.js';
import { isJobFinished, jobCondition, type Job } from './controllers/job/job-controller.js';
import { RUN_SECONDS_ANNOTATION } from './controllers/kubelet.js';
import { exampleFoo, webDeployment } from './web-workload.js';
import { countingListerWatcher, type ListWatchCounts } from './list-watch-counts.js';

// `pnpm demo --duration N`: a scripted run through the API, as a user with kubectl would do it,
// each step waited for until the cluster has converged (checked through the API, not the
// controllers' caches), with a summary of what the watches delivered.

export interface StepResult {
  name: string;
  converged: boolean;
  ms: number;
  /** Why it did not converge: the last unmet condition, or the error. */
  reason?: string;
}

export interface ScenarioSummary {
  namespace: string;
  steps: StepResult[];
  /** Notifications the scenario's informers handed to their handlers. */
  eventsDelivered: number;
  /** Watches opened again after the first, over all informers. */
  watchRestarts: number;
  /** LISTs after the first, over all informers (pages of one list count once). */
  relists: number;
  ok: boolean;
}

export interface ScenarioOptions {
  client: RestClient;
  /** The nodes the cluster runs; the first step waits for all of them to be Ready. */
  nodes: readonly string[];
  /** The whole run must converge within this. */
  durationMs: number;
  logger?: Logger;
  /** One line per finished step. */
  report?: (line: string) => void;
}

/** Not converged yet: why. */
type Check = () => Promise<true | string>;

const POLL_MS = 100;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function notFound(get: () => Promise<unknown>): Promise<boolean> {
  try {
    await get();
    return false;
  } catch (err) {
    if (isApiError(err) && err.code === 404) return true;
    throw err;
  }
}

/**
 * Runs a step's action; one cut off by a broken connection (its apiserver died mid-request, as
 * with `--apiservers N`) is sent again — every action is idempotent in its effect, and its check
 * judges the outcome.
 */
async function actOnce(act: () => Promise<Check> | Check, deadline: number): Promise<Check> {
  for (;;) {
    try {
      return await act();
    } catch (err) {
      if (!(err instanceof ConnectionError) || Date.now() >= deadline) throw err;
      await sleep(POLL_MS);
    }
  }
}

export async function runScenario(options: ScenarioOptions): Promise<ScenarioSummary> {
  const { client } = options;
  const report = options.report ?? (() => undefined);
  const deadline = Date.now() + options.durationMs;
  const namespace = `scenario-${randomBytes(3).toString('hex')}`;
  const deployments = client.resource<Deployment>(resources.deployments).namespace(namespace);
  const replicaSets = client.resource<ReplicaSet>(resources.replicasets).namespace(namespace);
  const pods = client.resource<Pod>(resources.pods).namespace(namespace);
  const jobs = client.resource<Job>(resources.jobs).namespace(namespace);
  const cronJobs = client.resource<CronJob>(resources.cronjobs).namespace(namespace);

  // The scenario's own informers: what a watching client receives while it runs.
  const counts: ListWatchCounts = { lists: 0, watches: 0 };
  let informers = 0;
  let eventsDelivered = 0;
  const factory = new SharedInformerFactory({
    namespace,
    ...(options.logger ? { logger: options.logger } : {}),
    listerWatcherFor: (resource: ResourceRef, ns: string): ListerWatcher => {
      informers++;
      return countingListerWatcher(client.resource(resource).namespace(ns).listerWatcher(), counts);
    },
  });
  const count = {
    onAdd: () => eventsDelivered++,
    onUpdate: () => eventsDelivered++,
    onDelete: () => eventsDelivered++,
  };
  for (const resource of [resources.deployments, resources.replicasets, resources.pods])
    factory.informerFor<KubeObject>(resource).addEventHandler(count);
  factory.start();

  const podsOf = async (app: string) => (await pods.list({ labelSelector: `app=${app}` })).items;

  /** Rolled out as kubectl rollout status judges it, with exactly `replicas` Running, Ready pods. */
  const rolledOut =
    (name: string, replicas: number, image?: string): Check =>
    async () => {
      const d = await deployments.get(name);
      const s = d.status ?? {};
      if ((s.observedGeneration ?? 0) < (d.metadata.generation ?? 0))
        return `${name}: generation not observed`;
      for (const [field, value] of [
        ['replicas', s.replicas],
        ['updatedReplicas', s.updatedReplicas],
        ['readyReplicas', s.readyReplicas],
        ['availableReplicas', s.availableReplicas],
      ] as const)
        if ((value ?? 0) !== replicas)
          return `${name}: status.${field} ${value ?? 0}, want ${replicas}`;
      const list = await podsOf(name);
      if (list.length !== replicas) return `${name}: ${list.length} pods, want ${replicas}`;
      for (const pod of list) {
        if (pod.metadata.deletionTimestamp)
          return `${name}: pod ${pod.metadata.name ?? ''} terminating`;
        if (pod.status?.phase !== 'Running' || !isPodReady(pod))
          return `${name}: pod ${pod.metadata.name ?? ''} ${pod.status?.phase ?? 'Pending'}`;
        if (!pod.spec?.nodeName) return `${name}: pod ${pod.metadata.name ?? ''} unscheduled`;
        if (image && pod.spec.containers?.[0]?.image !== image)
          return `${name}: pod ${pod.metadata.name ?? ''} runs ${pod.spec.containers?.[0]?.image ?? ''}`;
        const owner = pod.metadata.ownerReferences?.find((r) => r.controller);
        if (owner?.kind !== 'ReplicaSet')
          return `${name}: pod ${pod.metadata.name ?? ''} has no ReplicaSet owner`;
      }
      return true;
    };
  const fooClient = client.resource<Foo>(foos).namespace(namespace);
  /** sample-controller converged: the Foo's Deployment runs `replicas` pods and its status says so. */
  const fooSynced =
    (name: string, replicas: number): Check =>
    async () => {
      const foo = await fooClient.get(name);
      const deploymentName = foo.spec?.deploymentName ?? '';
      const d = await deployments.get(deploymentName).catch(() => undefined);
      if (!d) return `Foo ${name}: no Deployment ${deploymentName}`;
      const owner = d.metadata.ownerReferences?.find((r) => r.controller);
      if (owner?.kind !== 'Foo' || owner.uid !== foo.metadata.uid)
        return `Deployment ${deploymentName} not owned by Foo ${name}`;
      if ((d.spec?.replicas ?? 1) !== replicas)
        return `Deployment ${deploymentName}: replicas ${d.spec?.replicas ?? 1}, want ${replicas}`;
      const selector = newDeployment(foo).spec?.selector?.matchLabels ?? {};
      const labelSelector = Object.entries(selector)
        .map(([k, v]) => `${k}=${v}`)
        .join(',');
      const running = (await pods.list({ labelSelector })).items.filter(
        (p) => p.status?.phase === 'Running' && isPodReady(p) && !p.metadata.deletionTimestamp,
      );
      if (running.length !== replicas)
        return `Foo ${name}: ${running.length} pods Running, want ${replicas}`;
      const available = foo.status?.availableReplicas ?? 0;
      return available === replicas || `Foo ${name}: status.availableReplicas ${available}`;
    };
  /** A Job that ran to Complete with `succeeded` pods, as kubectl wait --for=condition=complete. */
  const jobComplete =
    (name: string, succeeded: number): Check =>
    async () => {
      const job = await jobs.get(name).catch(() => undefined);
      if (!job) return `no Job ${name}`;
      if (jobCondition(job, 'Failed')) return `Job ${name} Failed`;
      if (!isJobFinished(job))
        return `Job ${name}: ${job.status?.active ?? 0} active, ${job.status?.succeeded ?? 0} succeeded`;
      return (
        job.status?.succeeded === succeeded ||
        `Job ${name}: ${job.status?.succeeded ?? 0} succeeded, want ${succeeded}`
      );
    };
  /** A Job's pod template that runs `seconds` (the simulated kubelet's annotation) and exits 0. */
  const jobTemplate = (seconds: number) => ({
    metadata: { annotations: { [RUN_SECONDS_ANNOTATION]: String(seconds) } },
    spec: {
      restartPolicy: 'Never',
      containers: [{ name: 'main', image: 'busybox', command: ['echo', 'hi'] }],
    },
  });
  const all =
    (...checks: Check[]): Check =>
    async () => {
      for (const check of checks) {
        const result = await check();
        if (result !== true) return result;
      }
      return true;
    };

  const steps: { name: string; act: () => Promise<Check> | Check }[] = [
    {
      name: `nodes Ready (${options.nodes.length})`,
      act: () => async () => {
        const nodes = (await client.resource<Node>(resources.nodes).list()).items;
        const ready = nodes.filter(
          (n) =>
            options.nodes.includes(n.metadata.name ?? '') &&
            n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
        );
        return (
          ready.length === options.nodes.length ||
          `${ready.length} of ${options.nodes.length} nodes Ready`
        );
      },
    },
    {
      name: `create namespace ${namespace}`,
      act: async () => {
        await client
          .resource(resources.namespaces)
          .create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
        return async () => {
          const ns = await client.resource(resources.namespaces).get(namespace);
          return (
            (ns['status'] as { phase?: string } | undefined)?.phase === 'Active' || 'not Active'
          );
        };
      },
    },
    {
      name: 'create Deployments web (3) and api (2)',
      act: async () => {
        await deployments.create(webDeployment(namespace, 'web', 3));
        await deployments.create(webDeployment(namespace, 'api', 2));
        return all(rolledOut('web', 3), rolledOut('api', 2));
      },
    },
    {
      name: 'scale web up to 5',
      act: async () => {
        await deployments.patch('web', { spec: { replicas: 5 } });
        return rolledOut('web', 5);
      },
    },
    {
      name: 'scale web down to 2',
      act: async () => {
        await deployments.patch('web', { spec: { replicas: 2 } });
        return rolledOut('web', 2);
      },
    },
    {
      name: 'roll out api with nginx:1.28',
      act: async () => {
        await deployments.patch('api', {
          spec: { template: { spec: { containers: [{ name: 'nginx', image: 'nginx:1.28' }] } } },
        });
        return all(rolledOut('api', 2, 'nginx:1.28'), async () => {
          const owned = (await replicaSets.list({ labelSelector: 'app=api' })).items;
          const old = owned.filter((rs) => (rs.spec?.replicas ?? 1) === 0);
          return (
            (owned.length === 2 && old.length === 1) ||
            `api: ${owned.length} ReplicaSets, ${old.length} scaled to 0`
          );
        });
      },
    },
    {
      name: 'delete a web pod (it comes back)',
      act: async () => {
        const [victim] = await podsOf('web');
        const name = victim?.metadata.name ?? '';
        await pods.delete(name);
        return all(
          async () => {
            const names = (await podsOf('web')).map((p) => p.metadata.name);
            return !names.includes(name) || `pod ${name} still there`;
          },
          rolledOut('web', 2),
        );
      },
    },
    {
      name: 'delete Deployment api (its ReplicaSets and pods go)',
      act: async () => {
        await deployments.delete('api');
        return async () => {
          if (!(await notFound(() => deployments.get('api')))) return 'Deployment api still there';
          const rss = (await replicaSets.list({ labelSelector: 'app=api' })).items.length;
          const left = (await podsOf('api')).length;
          return (rss === 0 && left === 0) || `api: ${rss} ReplicaSets, ${left} pods left`;
        };
      },
    },
    {
      name: 'create Foo shop (2): sample-controller runs its Deployment',
      act: async () => {
        await fooClient.create(exampleFoo(namespace, 'shop', 2));
        return fooSynced('shop', 2);
      },
    },
    {
      name: 'scale Foo shop to 3 (its Deployment follows)',
      act: async () => {
        await fooClient.patch('shop', { spec: { replicas: 3 } });
        return fooSynced('shop', 3);
      },
    },
    {
      name: 'run Job batch (3 completions, 2 at a time) to Complete',
      act: async () => {
        await jobs.create({
          apiVersion: 'batch/v1',
          kind: 'Job',
          metadata: { name: 'batch' },
          spec: { completions: 3, parallelism: 2, template: jobTemplate(1) },
        });
        return jobComplete('batch', 3);
      },
    },
    {
      // A minute-granular schedule cannot be waited for in a short run: the CronJob is told its
      // last run was two minutes ago (status.lastScheduleTime, as after the controller was down),
      // so the run it missed a minute ago is due at once (cronjob_controllerv2.go catches up the
      // most recent missed time within startingDeadlineSeconds).
      name: 'CronJob tick (*/1): its missed run starts at once, completes',
      act: async () => {
        const cronJob = await cronJobs.create({
          apiVersion: 'batch/v1',
          kind: 'CronJob',
          metadata: { name: 'tick' },
          spec: {
            schedule: '*/1 * * * *',
            startingDeadlineSeconds: 120,
            jobTemplate: { spec: { template: jobTemplate(1) } },
          },
        });
        const minute = Math.floor(Date.now() / 60_000) * 60_000;
        const lastScheduleTime = metaV1Time(minute - 60_000);
        await cronJobs.patch('tick', { status: { lastScheduleTime } }, 'merge', {
          subresource: 'status',
        });
        // Named after the minute it was due: this one's, or the next if it came meanwhile.
        const due = async (): Promise<string | undefined> =>
          (await jobs.list()).items
            .map((j) => j.metadata.name ?? '')
            .find(
              (name) =>
                name === jobNameFor(cronJob, minute) ||
                name === jobNameFor(cronJob, minute + 60_000),
            );
        return all(
          async () => {
            const job = await due();
            return job ? jobComplete(job, 1)() : 'CronJob tick: no Job yet';
          },
          async () => {
            const status = (await cronJobs.get('tick')).status ?? {};
            return (
              (status.lastSuccessfulTime !== undefined && (status.active ?? []).length === 0) ||
              `CronJob tick: lastSuccessfulTime ${status.lastSuccessfulTime ?? 'unset'}, ${(status.active ?? []).length} active`
            );
          },
        );
      },
    },
    {
      name: `delete namespace ${namespace}`,
      act: async () => {
        await client.resource(resources.namespaces).delete(namespace);
        return async () =>
          (await notFound(() => client.resource(resources.namespaces).get(namespace))) ||
          'namespace still there';
      },
    },
  ];

  const results: StepResult[] = [];
  try {
    for (const step of steps) {
      const started = Date.now();
      let reason = 'not started';
      let converged = false;
      try {
        const check = await actOnce(step.act, deadline);
        for (;;) {
          const result = await check();
          if (result === true) {
            converged = true;
            break;
          }
          reason = result;
          if (Date.now() >= deadline) break;
          await sleep(POLL_MS);
        }
      } catch (err) {
        reason = err instanceof Error ? err.message : String(err);
      }
      const result: StepResult = {
        name: step.name,
        converged,
        ms: Date.now() - started,
        ...(converged ? {} : { reason }),
      };
      results.push(result);
      report(
        `${converged ? 'ok  ' : 'FAIL'} ${step.name.padEnd(52)} ${(result.ms / 1000).toFixed(1).padStart(5)} s${converged ? '' : `  (${reason})`}`,
      );
      if (!converged) break;
    }
  } finally {
    await factory.shutdown();
  }
  return {
    namespace,
    steps: results,
    eventsDelivered,
    watchRestarts: Math.max(0, counts.watches - informers),
    relists: Math.max(0, counts.lists - informers),
    ok: results.length === steps.length && results.every((r) => r.converged),
  };
}

/** The summary's closing lines. */
export function formatSummary(summary: ScenarioSummary): string[] {
  const failed = summary.steps.find((s) => !s.converged);
  const total = summary.steps.reduce((sum, s) => sum + s.ms, 0);
  return [
    `events delivered: ${summary.eventsDelivered}   watch restarts: ${summary.watchRestarts}   relists: ${summary.relists}   total: ${(total / 1000).toFixed(1)} s`,
    summary.ok
      ? `scenario: every step converged (${summary.steps.length} steps)`
      : `scenario: FAILED at step "${failed?.name ?? 'unknown'}": ${failed?.reason ?? 'not converged'}`,
  ];
}
