import { ApiError } from '@listwatch/api';
import { commandArgs, jsonLogger, parseArgs, startApiServer, usage } from '@listwatch/apiserver';
import { jsonLineLogger, RestClient } from '@listwatch/client';
import { DemoCluster } from './demo-cluster.js';
import { EventPrinter } from './event-printer.js';
import { ensureReplicaSet, webReplicaSet } from './web-replicaset.js';
import { Workload } from './workload.js';

// The demo cluster: a durable apiserver (SQLite in .data/ by default) and, against it, simulated
// kubelets, a scheduler and a ReplicaSet controller (leader-elected) keeping the `web` ReplicaSet's
// pods running, a workload writing ConfigMaps, and informers printing every event in namespace
// demo. Point kubectl at the printed URL to join in. Takes the apiserver's flags; --interval sets
// the ConfigMap write period (ms), --nodes the number of nodes.
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

async function main(): Promise<void> {
  const args = commandArgs(process.argv.slice(2));
  const interval = Number(takeFlag(args, 'interval') ?? 1000);
  if (!Number.isFinite(interval) || interval <= 0)
    throw ApiError.badRequest('--interval must be a positive number of milliseconds');
  const nodeCount = Number(takeFlag(args, 'nodes') ?? 3);
  if (!Number.isInteger(nodeCount) || nodeCount < 1 || nodeCount > 250)
    throw ApiError.badRequest('--nodes must be a whole number from 1 to 250');
  const parsed = parseArgs(args);
  if (parsed.help) {
    process.stdout.write(
      `Usage: pnpm demo [--interval ms] [--nodes n] [apiserver flags]\n\n${usage()}\n`,
    );
    return;
  }
  const options = { dataDir: '.data', ...parsed.options, logger: jsonLogger('warn') };
  const server = await startApiServer(options);
  const say = (line: string) => process.stdout.write(`${line}\n`);
  say(
    `listwatch demo cluster: apiserver on ${server.url} (storage: ${options.storageBackend ?? 'sqlite'} ${options.dataDir})`,
  );
  say(`try: kubectl --server ${server.url} get pods -n demo -o wide -w`);
  say(`     kubectl --server ${server.url} get nodes,rs -A`);
  say(
    `     kubectl --server ${server.url} patch rs web -n demo --type=merge -p '{"spec":{"replicas":5}}'`,
  );
  say(
    `     kubectl --server ${server.url} delete pod -n demo <name>   (the ReplicaSet replaces it)`,
  );
  say(`     kubectl --server ${server.url} logs -f -n demo <name>   (from its node's kubelet)`);

  const logger = jsonLineLogger({ level: 'error', name: 'demo' });
  const client = new RestClient({ server: server.url, userAgent: 'listwatch-demo', logger });
  const workload = new Workload(server.url);
  await workload.ensureNamespace();
  const nodes = Array.from({ length: nodeCount }, (_, i) => `node-${i + 1}`);
  const cluster = new DemoCluster({ client, nodes, report: say, logger });
  await cluster.start();
  say(`nodes: ${nodes.join(', ')} (one simulated kubelet each)`);
  await ensureReplicaSet(client, webReplicaSet('demo'));
  const printer = new EventPrinter(client, 'demo', say, logger);
  printer.start();
  workload.start(interval);

  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    workload.stop();
    // Clients first, so the server has no watches left to end, then the server.
    void (async () => {
      await printer.stop();
      await cluster.stop();
      await client.close();
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
