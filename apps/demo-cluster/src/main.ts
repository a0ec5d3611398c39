import { jsonLogger, parseArgs, startApiServer, usage } from '@listwatch/apiserver';
import { printEvents } from './event-printer.js';
import { Workload } from './workload.js';

// The demo cluster: a durable apiserver (SQLite in .data/ by default), a workload writing through
// its HTTP API, and a watch client printing every event it receives. Point kubectl at the printed
// URL to join in. Takes the apiserver's flags; --interval sets the write period (ms).
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
  const args = process.argv.slice(2);
  const interval = Number(takeFlag(args, 'interval') ?? 1000);
  if (!Number.isFinite(interval) || interval <= 0)
    throw new Error('--interval must be a positive number of milliseconds');
  const parsed = parseArgs(args);
  if (parsed.help) {
    process.stdout.write(`Usage: pnpm demo [--interval ms] [apiserver flags]\n\n${usage()}\n`);
    return;
  }
  const options = { dataDir: '.data', ...parsed.options, logger: jsonLogger('warn') };
  const server = await startApiServer(options);
  const say = (line: string) => process.stdout.write(`${line}\n`);
  say(
    `listwatch demo cluster: apiserver on ${server.url} (storage: ${options.storageBackend ?? 'sqlite'} ${options.dataDir})`,
  );
  say(`try: kubectl --server ${server.url} get configmaps -n demo -w`);
  const workload = new Workload(server.url);
  await workload.ensureNamespace();
  const abort = new AbortController();
  const printing = printEvents(server.url, '/api/v1/namespaces/demo/configmaps', abort.signal, say);
  workload.start(interval);
  const stop = () => {
    workload.stop();
    abort.abort();
    void server.close().then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  await printing.catch((err: unknown) => {
    if (!abort.signal.aborted) throw err;
  });
}

void main().catch((err: unknown) => {
  process.stderr.write(`Error: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
