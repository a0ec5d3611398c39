import { commandArgs } from '@listwatch/apiserver';
import { formatReport, runChaos } from './chaos.js';

// `pnpm test:chaos [--seed n] [--duration s] [--apiservers n]`: see chaos.ts. Exits 1 on any
// violation; the seed printed first replays the same fault schedule and operations.
function flag(args: string[], name: string): string | undefined {
  const i = args.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (i < 0) return undefined;
  const arg = args[i]!;
  return arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : args[i + 1];
}

function whole(name: string, value: string | undefined, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) {
    process.stderr.write(`--${name} must be a whole number of at least ${min}\n`);
    process.exit(2);
  }
  return n;
}

const args = commandArgs(process.argv.slice(2));
if (args.includes('--help') || args.includes('-h')) {
  process.stdout.write(
    [
      'Usage: pnpm test:chaos [--seed n] [--duration s] [--apiservers n] [--etcd-test-flags]',
      '',
      '  --seed n        the fault schedule and writes to replay (default: a fresh one, printed)',
      '  --duration s    how long faults are injected (default 60)',
      '  --apiservers n  apiserver replicas on the 3-member etcd cluster (default 2)',
      '  --etcd-test-flags  start etcd with the test flags (progress notifications every 1 s)',
      '                  instead of its default flags, as a user runs it (the default)',
      '',
    ].join('\n'),
  );
  process.exit(0);
}
const seed = whole('seed', flag(args, 'seed'), Math.floor(Math.random() * 2 ** 31), 0);
const duration = whole('duration', flag(args, 'duration'), 60, 1);
const apiservers = whole('apiservers', flag(args, 'apiservers'), 2, 2);
const started = Date.now();
const report = await runChaos({
  seed,
  durationMs: duration * 1000,
  apiservers,
  etcdTestFlags: args.includes('--etcd-test-flags'),
  log: (line) => process.stdout.write(`${line}\n`),
});
for (const line of formatReport(report)) process.stdout.write(`${line}\n`);
process.stdout.write(`chaos: ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
process.exit(report.violations.length === 0 ? 0 : 1);
