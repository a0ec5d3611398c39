import { ApiError } from '@listwatch/api';
import {
  commandArgs,
  jsonLogger,
  parseArgs,
  refuseAnonymousAdminOffLoopback,
  startApiServer,
  usage,
} from '@listwatch/apiserver';
import { jsonLineLogger, RestClient } from '@listwatch/client';
import { DEFAULT_ETCD_ENDPOINTS } from '@listwatch/storage';
import {
  ReplicaBalancer,
  startReplicas,
  stopReplicas,
  superviseReplicas,
} from './apiserver-replicas.js';
import { BreakIt, type BreakItOptions } from './break-it.js';
import { DashboardServer } from './dashboard-server.js';
import { DemoCluster } from './demo-cluster.js';
import { EventPrinter } from './event-printer.js';
import { ensureDeployment, ensureFoo, exampleFoo, webDeployment } from './web-workload.js';
import { formatSummary, runScenario } from './scenario.js';
import { createSecurePki, demoComponents, SecureClients } from './secure/secure-cluster.js';
import { SimulatedNodes } from './simulated-nodes.js';
import { TerminalSummary } from './terminal-summary.js';
import { Workload } from './workload.js';
import { resolve } from 'node:path';
import { chooseDataDir, resetDataDir } from './data-dir.js';
import { DEFAULT_RUN_TO_COMPLETION_MS, simulatedRun } from './controllers/kubelet.js';

// The demo cluster: a durable apiserver (SQLite in apps/demo-cluster/.data/<run>, see
// data-dir.ts, or --server's) and, against
// it, simulated kubelets, a scheduler, Deployment and ReplicaSet controllers, a garbage collector
// and a namespace controller (leader-elected) keeping the `web` Deployment's pods running, a
// workload writing ConfigMaps, the dashboard (dashboard-server.ts) and, on a terminal, a live
// summary (terminal-summary.ts) or else a line per event in namespace demo. --duration N runs the
// scripted scenario (scenario.ts) instead, exiting 0 only if every step converged within N s.
/** Removes `--name value` or `--name=value` from args and returns the value. */
function takeFlag(args: string[], name: string): string | undefined {
  const i = args.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (i < 0) return undefined;
  const arg = args[i]!;
  if (arg.includes('=')) {
    args.splice(i, 1);
    return arg.slice(arg.indexOf('=') + 1);
  }
  const value = args[i + 1];
  args.splice(i, 2);
  return value;
}

/**
 * --apiservers N: N apiserver processes on one etcd behind a balancer on --port (see
 * apiserver-replicas.ts). A replica that dies is restarted, as its supervisor would; meanwhile
 * the others serve.
 */
async function startReplicated(
  count: number,
  apiserverFlags: string[],
  bindAddress: string,
  say: (line: string) => void,
  report: (line: string) => void,
): Promise<{
  url: string;
  close(): Promise<void>;
  breakIt: NonNullable<BreakItOptions['replicas']>;
}> {
  const flags = [...apiserverFlags];
  const port = Number(takeFlag(flags, 'port') ?? 8080);
  takeFlag(flags, 'bind-address');
  // Printed before the wait, so a start-up that hangs (etcd unreachable) is visible.
  say(`starting ${count} apiserver replicas on etcd…`);
  const replicas = await startReplicas(count, flags);
  let closing = false;
  for (const r of replicas) say(`apiserver replica ${r.index} on ${r.url} (pid ${r.pid})`);
  superviseReplicas(replicas, flags, report, () => !closing);
  const balancer = await ReplicaBalancer.listen(replicas, bindAddress, port);
  const scheme = new URL(replicas[0]!.url).protocol;
  const host = bindAddress === '0.0.0.0' ? '127.0.0.1' : bindAddress;
  return {
    url: `${scheme}//${host.includes(':') ? `[${host}]` : host}:${balancer.port}`,
    breakIt: { replicas, balancer },
    close: async () => {
      closing = true;
      await balancer.close();
      await stopReplicas(replicas);
    },
  };
}

/** `--nodes` at most. */
const MAX_NODES = 5000;
/** Up to this many nodes, each is a full kubelet (logs, Jobs' pods run to completion, Events). */
const FULL_KUBELETS = 10;
/** Above it, this many full kubelets and hollow nodes for the rest. */
const FULL_KUBELET_MIN = 3;

async function main(): Promise<void> {
  const args = commandArgs(process.argv.slice(2));
  const interval = Number(takeFlag(args, 'interval') ?? 1000);
  if (!Number.isFinite(interval) || interval <= 0)
    throw ApiError.badRequest('--interval must be a positive number of milliseconds');
  const durationFlag = takeFlag(args, 'duration');
  const duration = durationFlag === undefined ? undefined : Number(durationFlag);
  if (duration !== undefined && (!Number.isFinite(duration) || duration <= 0))
    throw ApiError.badRequest('--duration must be a positive number of seconds');
  const nodeCount = Number(takeFlag(args, 'nodes') ?? 3);
  if (!Number.isInteger(nodeCount) || nodeCount < 1 || nodeCount > MAX_NODES)
    throw ApiError.badRequest(`--nodes must be a whole number from 1 to ${MAX_NODES}`);
  // Up to FULL_KUBELETS full kubelets; beyond, the rest are hollow nodes (simulated-nodes.ts).
  const fullNodes = nodeCount <= FULL_KUBELETS ? nodeCount : FULL_KUBELET_MIN;
  const hollowNodes = nodeCount - fullNodes;
  const secureIndex = args.indexOf('--secure');
  if (secureIndex >= 0) args.splice(secureIndex, 1);
  const resetIndex = args.indexOf('--reset');
  if (resetIndex >= 0) args.splice(resetIndex, 1);
  const eventsIndex = args.indexOf('--events');
  if (eventsIndex >= 0) args.splice(eventsIndex, 1);
  // On a terminal a live one-screen summary, elsewhere (or with --events) a line per event.
  const summaryScreen = eventsIndex < 0 && process.stdout.isTTY;
  const external = takeFlag(args, 'server');
  if (external !== undefined && !/^https?:\/\/[^/]+\/?$/.test(external))
    throw ApiError.badRequest('--server must be an http(s) URL such as http://127.0.0.1:8080');
  const dashboardFlag = takeFlag(args, 'dashboard-port');
  const dashboardPort = dashboardFlag === undefined ? undefined : Number(dashboardFlag);
  if (
    dashboardPort !== undefined &&
    (!Number.isInteger(dashboardPort) || dashboardPort < 0 || dashboardPort > 65535)
  )
    throw ApiError.badRequest('--dashboard-port must be a port number (0: any free port)');
  const apiserversFlag = takeFlag(args, 'apiservers');
  const apiservers = apiserversFlag === undefined ? undefined : Number(apiserversFlag);
  if (
    apiservers !== undefined &&
    (!Number.isInteger(apiservers) || apiservers < 1 || apiservers > 9)
  )
    throw ApiError.badRequest('--apiservers must be a whole number from 1 to 9');
  const parsed = parseArgs(args);
  if (apiservers !== undefined && !parsed.help && parsed.options.storageBackend !== 'etcd3')
    throw ApiError.badRequest(
      '--apiservers needs --storage-backend etcd3 (the replicas share etcd)',
    );
  if (apiservers !== undefined && external)
    throw ApiError.badRequest('--apiservers and --server do not go together');
  if (parsed.help) {
    process.stdout.write(
      [
        'Usage: pnpm demo [--interval ms] [--nodes n] [--duration s] [--dashboard-port p]',
        '                 [--events] [--secure] [--reset] [--server url] [--apiservers n]',
        '                 [apiserver flags]',
        '',
        '  --interval ms        period of the ConfigMap writes of the workload (default 1000)',
        '  --nodes n            simulated nodes (default 3, at most 5000): up to 10 full kubelets;',
        '                       beyond, 3 full kubelets and hollow nodes (a Node, its Lease',
        '                       renewed every 10 s and a pod watch each, as the density bench)',
        '  --duration s         run the scripted scenario (a namespace, two Deployments, scaling,',
        '                       a rollout, a pod and a Deployment deleted, a Foo, a Job and a',
        "                       CronJob's run to Complete, the namespace deleted),",
        "                       print each step's time to converge and exit 0 only if all",
        '                       converged within s',
        '  --dashboard-port p   port of the dashboard on 127.0.0.1 (default: the apiserver port',
        '                       + 1, or any free port if that is taken; 0: any free port)',
        '  --reset              start afresh: empty the data directory of this kind of run',
        '                       (apps/demo-cluster/.data/cluster, .data/secure; --duration runs',
        '                       use .data/cluster-scenario, .data/secure-scenario, always afresh)',
        '  --events             print a line per event in namespace demo instead of the live',
        '                       summary drawn on a terminal (without one, lines are printed)',
        '  --secure             serve TLS only with a CA made at start in <data-dir>/secure,',
        '                       RBAC, and a client certificate per component (kubelets as',
        '                       system:node:<name>, system:kube-scheduler, each controller as',
        '                       its kube-system service account) bound to least-privilege',
        '                       roles; writes and prints an admin kubeconfig for kubectl',
        '  --server url         run against an apiserver already running (e.g. `pnpm',
        '                       apiserver`) instead of starting one; apiserver flags are ignored',
        '  --apiservers n       with --storage-backend etcd3: run n apiserver processes on the',
        '                       same etcd (--etcd-servers) behind a TCP balancer on --port, which',
        '                       hands each connection to the next live replica, so controllers,',
        '                       kubelets and the dashboard spread across them; when a replica',
        '                       dies its clients reconnect to another and resume their watches',
        '',
        usage(),
        '',
      ].join('\n'),
    );
    return;
  }
  // On a terminal, what was said stays on screen above the live summary (its header).
  const said: string[] = [];
  const say = (line: string) => {
    said.push(line);
    process.stdout.write(`${line}\n`);
  };
  // Notes that come at any time (leadership, a replica restarted): under the live summary once
  // it runs, else a line.
  let note = say;
  const dataDir = chooseDataDir({
    dataDir: parsed.options.dataDir,
    secure: secureIndex >= 0,
    scenario: duration !== undefined,
    reset: resetIndex >= 0,
  });
  if (!external) {
    resetDataDir(dataDir);
    const backend = parsed.options.storageBackend ?? 'sqlite';
    const holds =
      backend === 'sqlite'
        ? ''
        : backend === 'etcd3'
          ? ' (the objects are in etcd)'
          : ' (the objects are in memory only)';
    say(`data: ${dataDir.path}${dataDir.reset ? ' (started afresh)' : ''}${holds}`);
  }
  const options = { ...parsed.options, dataDir: dataDir.path, logger: jsonLogger('warn') };
  if (secureIndex >= 0 && external)
    throw ApiError.badRequest('--secure starts its own apiserver: it cannot be used with --server');
  const pki =
    secureIndex >= 0
      ? await createSecurePki(
          resolve(options.dataDir, 'pki'),
          demoComponents(Array.from({ length: fullNodes }, (_, i) => `node-${i + 1}`)),
        )
      : undefined;
  if (pki) Object.assign(options, pki.serverOptions);
  if (summaryScreen && !external) say('starting the apiserver…');
  // The balancer serves the API on --bind-address as an apiserver would: the same refusal to be
  // an anonymous cluster-admin off loopback (the replicas themselves listen on loopback).
  if (apiservers !== undefined) refuseAnonymousAdminOffLoopback(options, options.logger);
  const server = external
    ? { url: external.replace(/\/$/, ''), close: () => Promise.resolve() }
    : apiservers !== undefined
      ? await startReplicated(
          apiservers,
          [...args, ...(pki?.serverFlags ?? [])],
          options.bindAddress ?? '127.0.0.1',
          say,
          (line) => note(line),
        )
      : await startApiServer(options);
  say(
    external
      ? `listwatch demo cluster: apiserver on ${server.url} (external)`
      : apiservers !== undefined
        ? `listwatch demo cluster: apiserver on ${server.url} (storage: etcd3 ${(options.etcdServers ?? DEFAULT_ETCD_ENDPOINTS).join(',')}; a balancer over ${apiservers} replicas)`
        : `listwatch demo cluster: apiserver on ${server.url} (storage: ${options.storageBackend ?? 'sqlite'} ${options.dataDir})`,
  );
  const logger = jsonLineLogger({ level: 'error', name: 'demo' });
  const secure = pki ? new SecureClients(pki, server.url, logger) : undefined;
  const client =
    secure?.admin ?? new RestClient({ server: server.url, userAgent: 'listwatch-demo', logger });
  // How kubectl reaches this cluster: as the admin over TLS, or plainly.
  const target = secure ? `--kubeconfig ${secure.adminKubeconfig}` : `--server ${server.url}`;
  if (secure) {
    await secure.ensurePolicy();
    say(`secure: TLS and RBAC; admin kubeconfig: ${secure.adminKubeconfig}`);
    say(`try: kubectl ${target} get pods -A`);
  }
  const clientFor = secure ? { clientFor: secure.clientFor } : {};
  if (duration !== undefined) {
    const nodes = Array.from({ length: fullNodes }, (_, i) => `node-${i + 1}`);
    const cluster = new DemoCluster({ client, ...clientFor, nodes, report: say, logger });
    await cluster.start();
    say(`scenario: ${nodes.length} nodes, at most ${duration} s`);
    const summary = await runScenario({ client, nodes, durationMs: duration * 1000, report: say });
    for (const line of formatSummary(summary)) say(line);
    await cluster.stop();
    await client.close();
    await secure?.close();
    await server.close();
    process.exit(summary.ok ? 0 : 1);
  }
  const breakIt = new BreakIt(
    'breakIt' in server
      ? {
          replicas: server.breakIt,
          ...(parsed.options.storageBackend === 'etcd3'
            ? { etcdServers: options.etcdServers ?? DEFAULT_ETCD_ENDPOINTS }
            : {}),
        }
      : 'storage' in server
        ? { storage: server.storage }
        : {},
  );
  const dashboard = new DashboardServer(server.url, secure?.tls('dashboard'), breakIt);
  const apiPort = Number(new URL(server.url).port || 80);
  const dashboardUrl = await dashboard.listen(
    '127.0.0.1',
    dashboardPort ?? (apiPort > 0 && apiPort < 65535 ? apiPort + 1 : 0),
    dashboardPort === undefined,
  );
  say(`dashboard on ${dashboardUrl}`);
  say(`try: kubectl ${target} get pods -n demo -o wide -w`);
  say(`     kubectl ${target} get nodes,deploy,rs -A`);
  say(`     kubectl ${target} scale deployment web -n demo --replicas=5`);
  say(
    `     kubectl ${target} set image deployment/web -n demo nginx=nginx:1.28 && kubectl ${target} rollout status deployment/web -n demo`,
  );
  say(`     kubectl ${target} delete pod -n demo <name>   (its ReplicaSet replaces it)`);
  say(`     kubectl ${target} logs -f -n demo <name>   (from its node's kubelet)`);
  say(`     kubectl ${target} get foos -A   (sample-controller; try patching spec.replicas)`);
  say(
    `     kubectl ${target} create job hello --image=busybox -- echo hi && kubectl ${target} wait --for=condition=complete job/hello   (pods run 2 s)`,
  );
  say(
    `     kubectl ${target} create cronjob tick --image=busybox --schedule='*/1 * * * *' -- date   (a Job each minute)`,
  );
  say(`     kubectl ${target} get services,endpointslices -A   (Services get endpoints)`);
  say(
    `     no container runtime: exec, attach and port-forward are refused; no metrics: top fails`,
  );

  const summary = summaryScreen
    ? new TerminalSummary(client, {
        apiserver: server.url,
        dashboard: dashboardUrl,
        stats: () => dashboard.stats(),
        write: (text) => process.stdout.write(text),
        // Everything said before it, but for the progress lines the summary replaces.
        header: () => said.filter((line) => !/…$/.test(line)),
        logger,
      })
    : undefined;
  const report = summary ? (line: string) => summary.note(line) : say;
  note = report;

  const workload = new Workload(client);
  await workload.ensureNamespace();
  await workload.resume();
  const nodes = Array.from({ length: fullNodes }, (_, i) => `node-${i + 1}`);
  if (summary) say(`registering ${nodeCount} nodes…`);
  const cluster = new DemoCluster({ client, ...clientFor, nodes, report, logger });
  await cluster.start();
  say(`nodes: ${nodes.join(', ')} (one simulated kubelet each)`);
  // kubemark's hollow nodes: a Node, its Lease renewed every 10 s and a watch of its pods each,
  // reporting them Running (no logs; a Job's pod placed there runs on and does not complete).
  const hollow =
    hollowNodes > 0
      ? new SimulatedNodes({
          client,
          count: hollowNodes,
          namePrefix: 'hollow-node-',
          // A Job's pod scheduled onto a hollow node completes as on a full kubelet.
          runToCompletion: (pod) => simulatedRun(pod, DEFAULT_RUN_TO_COMPLETION_MS),
          logger,
        })
      : undefined;
  if (hollow) {
    const started = performance.now();
    await hollow.register();
    hollow.start();
    await hollow.waitForSync();
    say(
      `nodes: ${hollowNodes} hollow nodes hollow-node-0…${hollowNodes - 1} (Node, Lease, pod watch each), ready in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
  }
  await ensureDeployment(client, webDeployment('demo'));
  await ensureFoo(client, exampleFoo('demo'));
  const printer = summary ? undefined : new EventPrinter(client, 'demo', say, logger);
  printer?.start();
  summary?.start();
  workload.start(interval);

  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    workload.stop();
    // Clients first, so the server has no watches left to end, then the server.
    void (async () => {
      await printer?.stop();
      await summary?.stop();
      await dashboard.close();
      await hollow?.stop();
      await cluster.stop();
      await client.close();
      await secure?.close();
      await server.close();
    })().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(
          `Error while stopping: ${err instanceof Error ? err.message : String(err)}\n`,
        );
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

void main().catch((err: unknown) => {
  process.stderr.write(`Error: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
