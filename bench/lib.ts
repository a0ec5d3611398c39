// The benchmark runner's vocabulary: what a scenario is, how rounds are summarised, how the
// command line is read and what bench/results/latest.json holds. Node built-ins only, so that the
// scenario modules in packages/*/bench can import it without a dependency.

/** What a scenario gets from the runner. */
export interface BenchContext {
  /** `--quick`: every size reduced so the whole suite runs in minutes. */
  quick: boolean;
  /** `--size <n>`: the scale of scenarios that take one (density: nodes), else their own. */
  size?: number;
  /** `--backend <name>`: the storage backends of scenarios that run on several, else all. */
  backends?: string[];
  /** One line on stderr, prefixed with the scenario's name. */
  progress(message: string): void;
}

/** One round's figures: metrics (any unit, named with it) and ratios (dimensionless). */
export interface Measurement {
  metrics: Record<string, number>;
  ratios?: Record<string, number>;
}

/** A scenario set up once (servers started, data loaded), measured in rounds, then closed. */
export interface ScenarioSession {
  round(index: number): Promise<Measurement>;
  close(): Promise<void>;
}

export interface Scenario {
  name: string;
  /** One line: what is measured. */
  title: string;
  /** Which processes shared the cores, e.g. "server (child) + 1000 watchers (child)". */
  processes(ctx: BenchContext): string;
  /** How many rounds in this mode (the runner's `--rounds` overrides it). */
  rounds(ctx: BenchContext): number;
  open(ctx: BenchContext): Promise<ScenarioSession>;
}

/** A scenario module exports `scenario`. */
export interface ScenarioModule {
  scenario: Scenario;
}

// --- arguments -----------------------------------------------------------------------------------

export interface BenchArgs {
  quick: boolean;
  /** The scenarios to run, in order; empty for all. */
  scenarios: string[];
  rounds?: number;
  /** `--size`: see BenchContext.size. */
  size?: number;
  /** `--backend`: see BenchContext.backends; empty for each scenario's own. */
  backends: string[];
  /** Where the JSON goes (default bench/results/latest.json). */
  out?: string;
  list: boolean;
  help: boolean;
}

export const USAGE = `usage: pnpm bench [--quick] [--scenario <name>]… [--rounds <n>] [--out <file>] [--list]
  --quick            every scenario at reduced size (CI runs this)
  --scenario <name>  run only this scenario (repeatable, or comma-separated)
  --rounds <n>       rounds per scenario (default: the scenario's own, fewer in --quick)
  --size <n>         scale of the scenarios that take one (density: simulated nodes, 30 pods each)
  --backend <name>   storage backends of the scenarios that run on several (repeatable, or
                     comma-separated: sqlite, etcd3, memory)
  --out <file>       where the JSON results go (default bench/results/latest.json)
  --list             print the scenario names and exit`;

export class UsageError extends Error {}

/** The storage backends `--backend` names (@listwatch/storage's; this file imports nothing). */
const BACKENDS = ['memory', 'sqlite', 'etcd3'];

/** Parses the runner's arguments; unknown scenarios are an error listing the known ones. */
export function parseArgs(argv: readonly string[], known: readonly string[]): BenchArgs {
  const args: BenchArgs = { quick: false, scenarios: [], backends: [], list: false, help: false };
  const value = (i: number, flag: string): string => {
    const v = argv[i];
    if (v === undefined || v.startsWith('--')) throw new UsageError(`${flag} needs a value`);
    return v;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? arg.split(/=(.*)/s) : [arg];
    const take = (): string => (inline !== undefined ? inline : value(++i, flag!));
    switch (flag) {
      case '--': // pnpm passes it through in some versions
        break;
      case '--quick':
        args.quick = true;
        break;
      case '--scenario':
      case '-s':
        for (const name of take().split(',')) {
          if (!known.includes(name))
            throw new UsageError(`unknown scenario "${name}"; known: ${known.join(', ')}`);
          if (!args.scenarios.includes(name)) args.scenarios.push(name);
        }
        break;
      case '--rounds': {
        const n = Number(take());
        if (!Number.isInteger(n) || n < 1)
          throw new UsageError('--rounds needs a positive integer');
        args.rounds = n;
        break;
      }
      case '--size': {
        const n = Number(take());
        if (!Number.isInteger(n) || n < 1) throw new UsageError('--size needs a positive integer');
        args.size = n;
        break;
      }
      case '--backend':
        for (const name of take().split(',')) {
          if (!BACKENDS.includes(name))
            throw new UsageError(`unknown backend "${name}"; known: ${BACKENDS.join(', ')}`);
          if (!args.backends.includes(name)) args.backends.push(name);
        }
        break;
      case '--out':
        args.out = take();
        break;
      case '--list':
        args.list = true;
        break;
      case '--help':
      case '-h':
        args.help = true;
        break;
      default:
        throw new UsageError(`unknown argument "${arg}"\n${USAGE}`);
    }
  }
  return args;
}

// --- statistics ----------------------------------------------------------------------------------

export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The `p`th percentile (0–100), nearest rank. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export interface Summary {
  median: number;
  min: number;
  max: number;
}

export function summarize(values: readonly number[]): Summary {
  return { median: median(values), min: Math.min(...values), max: Math.max(...values) };
}

// --- results -------------------------------------------------------------------------------------

/** One scenario in latest.json: medians under metrics and ratios (the shape), plus detail. */
export interface ScenarioResult {
  metrics: Record<string, number>;
  ratios: Record<string, number>;
  range: Record<string, [number, number]>;
  rounds: number;
  processes: string;
  seconds: number;
}

export interface BenchResults {
  version: 1;
  date: string;
  quick: boolean;
  machine: { node: string; platform: string; cpus: number; loadavg: number[] };
  scenarios: Record<string, ScenarioResult>;
  /** Scenarios that threw: their name and the error's message. */
  failed?: Record<string, string>;
}

/** Folds the rounds of one scenario into its result: the median of each figure and its range. */
export function scenarioResult(
  rounds: readonly Measurement[],
  processes: string,
  seconds: number,
): ScenarioResult {
  const fold = (pick: (m: Measurement) => Record<string, number> | undefined) => {
    const names = [...new Set(rounds.flatMap((m) => Object.keys(pick(m) ?? {})))];
    const medians: Record<string, number> = {};
    const range: Record<string, [number, number]> = {};
    for (const name of names) {
      const values = rounds
        .map((m) => pick(m)?.[name])
        .filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
      if (values.length === 0) continue;
      const s = summarize(values);
      medians[name] = s.median;
      range[name] = [s.min, s.max];
    }
    return { medians, range };
  };
  const metrics = fold((m) => m.metrics);
  const ratios = fold((m) => m.ratios);
  return {
    metrics: metrics.medians,
    ratios: ratios.medians,
    range: { ...metrics.range, ...ratios.range },
    rounds: rounds.length,
    processes,
    seconds,
  };
}

/** A number as a table shows it: three significant digits, thousands grouped. */
export function formatNumber(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const abs = Math.abs(n);
  if (abs >= 1000) return Math.round(n).toLocaleString('en-US');
  if (abs >= 100) return n.toFixed(0);
  if (abs >= 10) return n.toFixed(1);
  if (abs >= 1) return n.toFixed(2);
  return n.toPrecision(3);
}

/** The table a scenario prints: one row per metric and ratio, median and min–max. */
export function formatTable(name: string, title: string, result: ScenarioResult): string {
  const rows: [string, string, string][] = [];
  const add = (kind: string, values: Record<string, number>) => {
    for (const [key, value] of Object.entries(values)) {
      const [lo, hi] = result.range[key] ?? [value, value];
      rows.push([`${kind}${key}`, formatNumber(value), `${formatNumber(lo)}–${formatNumber(hi)}`]);
    }
  };
  add('', result.metrics);
  add('ratio ', result.ratios);
  const header: [string, string, string] = ['', `median of ${result.rounds}`, 'min–max'];
  const widths = [0, 1, 2].map((c) => Math.max(...[header, ...rows].map((r) => r[c]!.length)));
  const line = (r: [string, string, string]) =>
    `  ${r[0].padEnd(widths[0]!)}  ${r[1].padStart(widths[1]!)}  ${r[2].padStart(widths[2]!)}`;
  return [
    `\n${name}: ${title}`,
    `  cores shared by: ${result.processes}`,
    line(header),
    ...rows.map(line),
  ].join('\n');
}

/**
 * Figures a scenario must report for CI to count it as run (names, never values): density's
 * SLO ratios for each backend it ran on.
 */
export const REQUIRED_FIGURES: Readonly<Record<string, readonly string[]>> = {
  density: ['sqlite', 'etcd3'].flatMap((b) => [
    `${b}_pods`,
    `${b}_pods_not_running`,
    `slo_mutating_p99_${b}`,
    `slo_read_resource_p99_${b}`,
    `slo_read_cluster_p99_${b}`,
    `slo_pod_startup_p99_${b}`,
  ]),
};

/** Checks that `value` has the shape of latest.json; returns what is wrong, or nothing. */
export function validateResults(
  value: unknown,
  expected: readonly string[],
  required: Readonly<Record<string, readonly string[]>> = REQUIRED_FIGURES,
): string[] {
  const problems: string[] = [];
  const scenarios = (value as { scenarios?: unknown } | null)?.scenarios;
  if (!scenarios || typeof scenarios !== 'object') return ['no "scenarios" object'];
  for (const name of expected) {
    const s = (scenarios as Record<string, unknown>)[name] as
      { metrics?: unknown; ratios?: unknown } | undefined;
    if (!s) {
      problems.push(`scenario "${name}" missing`);
      continue;
    }
    for (const key of ['metrics', 'ratios'] as const) {
      const values = s[key];
      if (!values || typeof values !== 'object') problems.push(`${name}: no "${key}" object`);
      else
        for (const [k, v] of Object.entries(values))
          if (typeof v !== 'number') problems.push(`${name}.${key}.${k} is not a number`);
    }
    if (Object.keys(s.metrics ?? {}).length === 0) problems.push(`${name}: no metrics measured`);
    const figures = { ...(s.metrics as object | undefined), ...(s.ratios as object | undefined) };
    for (const figure of required[name] ?? [])
      if (!(figure in figures)) problems.push(`${name}: "${figure}" not reported`);
  }
  return problems;
}
