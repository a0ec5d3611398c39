// `pnpm bench [--quick] [--scenario <name>]`: runs the scenarios (bench/scenarios.ts) one after
// another, each in rounds, prints a table per scenario and writes every figure to
// bench/results/latest.json. See bench/README.md.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  formatTable,
  parseArgs,
  scenarioResult,
  UsageError,
  USAGE,
  type BenchContext,
  type BenchResults,
  type Measurement,
  type ScenarioModule,
} from './lib.js';
import { REPO_ROOT } from './proc.js';
import { SCENARIOS, SCENARIO_NAMES } from './scenarios.js';

let args;
try {
  args = parseArgs(process.argv.slice(2), SCENARIO_NAMES);
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  console.error(error.message);
  process.exit(2);
}
if (args.help) {
  console.log(USAGE);
  process.exit(0);
}
if (args.list) {
  console.log(SCENARIO_NAMES.join('\n'));
  process.exit(0);
}

const selected = args.scenarios.length
  ? SCENARIOS.filter((s) => args.scenarios.includes(s.name))
  : SCENARIOS;
const out = resolve(REPO_ROOT, args.out ?? 'bench/results/latest.json');
const results: BenchResults = {
  version: 1,
  date: new Date().toISOString(),
  quick: args.quick,
  machine: {
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    cpus: cpus().length,
    loadavg: loadavg().map((l) => Math.round(l * 100) / 100),
  },
  scenarios: {},
};
const save = () => {
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
};

const started = performance.now();
const elapsed = () => `${((performance.now() - started) / 1000).toFixed(0)}s`;
console.error(
  `bench: ${selected.length} scenario(s)${args.quick ? ', quick' : ''}, ` +
    `${cpus().length} cores, load ${loadavg()[0]!.toFixed(1)}`,
);
for (const [index, entry] of selected.entries()) {
  const tag = `[${index + 1}/${selected.length} ${entry.name}]`;
  const ctx: BenchContext = {
    quick: args.quick,
    ...(args.size !== undefined ? { size: args.size } : {}),
    ...(args.backends.length ? { backends: args.backends } : {}),
    progress: (message) => console.error(`${tag} ${message} (+${elapsed()})`),
  };
  const t0 = performance.now();
  try {
    const { scenario } = (await import(
      pathToFileURL(resolve(REPO_ROOT, entry.module)).href
    )) as ScenarioModule;
    const rounds = args.rounds ?? scenario.rounds(ctx);
    ctx.progress(`setting up: ${scenario.title}`);
    const session = await scenario.open(ctx);
    const measured: Measurement[] = [];
    try {
      for (let r = 0; r < rounds; r++) {
        ctx.progress(`round ${r + 1}/${rounds}`);
        measured.push(await session.round(r));
      }
    } finally {
      await session.close();
    }
    const result = scenarioResult(
      measured,
      scenario.processes(ctx),
      Math.round((performance.now() - t0) / 100) / 10,
    );
    results.scenarios[entry.name] = result;
    console.log(formatTable(entry.name, scenario.title, result));
  } catch (error) {
    console.error(`${tag} FAILED: ${(error as Error).stack ?? String(error)}`);
    (results.failed ??= {})[entry.name] = (error as Error).message;
  }
  save();
}
save();
console.error(`bench: done in ${elapsed()}; results in ${out}`);
const failed = Object.keys(results.failed ?? {});
if (failed.length) {
  console.error(`bench: failed: ${failed.join(', ')}`);
  process.exit(1);
}
process.exit(0);
