import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  formatTable,
  parseArgs,
  percentile,
  REQUIRED_FIGURES,
  scenarioResult,
  UsageError,
  validateResults,
} from './lib.js';
import { REPO_ROOT } from './proc.js';
import { SCENARIO_NAMES } from './scenarios.js';

const known = ['fanout', 'write-path', 'codec'];

describe('pnpm bench arguments', () => {
  it('no arguments run every scenario at full size', () => {
    expect(parseArgs([], known)).toEqual({
      quick: false,
      scenarios: [],
      backends: [],
      list: false,
      help: false,
    });
  });

  it('--quick, --scenario (repeated, comma-separated or with =) and --rounds are read', () => {
    const args = parseArgs(
      ['--quick', '--scenario', 'fanout', '--scenario=codec,fanout', '--rounds', '2'],
      known,
    );
    expect(args).toMatchObject({ quick: true, scenarios: ['fanout', 'codec'], rounds: 2 });
  });

  it('--size and --backend (repeated or comma-separated) are read; an unknown backend is an error', () => {
    expect(
      parseArgs(['--size', '5000', '--backend', 'etcd3', '--backend=sqlite,etcd3'], known),
    ).toMatchObject({ size: 5000, backends: ['etcd3', 'sqlite'] });
    expect(() => parseArgs(['--size', '0'], known)).toThrow(/positive integer/);
    expect(() => parseArgs(['--backend', 'mysql'], known)).toThrow(/known: memory, sqlite, etcd3/);
  });

  it('the -- that pnpm may pass through is ignored', () => {
    expect(parseArgs(['--', '--quick'], known).quick).toBe(true);
  });

  it('an unknown scenario is a usage error naming the known ones', () => {
    expect(() => parseArgs(['--scenario', 'nope'], known)).toThrow(UsageError);
    expect(() => parseArgs(['--scenario', 'nope'], known)).toThrow(/fanout, write-path, codec/);
  });

  it('an unknown flag, a missing value or a bad round count is a usage error', () => {
    expect(() => parseArgs(['--fast'], known)).toThrow(UsageError);
    expect(() => parseArgs(['--scenario'], known)).toThrow(/needs a value/);
    expect(() => parseArgs(['--rounds', '0'], known)).toThrow(/positive integer/);
    expect(() => parseArgs(['--rounds', 'x'], known)).toThrow(/positive integer/);
  });

  it('the issue names every scenario of the suite, the other helpers’ included', () => {
    for (const name of [
      'fanout',
      'transports',
      'informer-sync',
      'list-memory',
      'slow-watchers',
      'write-path',
      'idle-watchers',
      'storage-shield',
      'cold-start',
      'density',
    ])
      expect(SCENARIO_NAMES).toContain(name);
    expect(new Set(SCENARIO_NAMES).size).toBe(SCENARIO_NAMES.length);
  });
});

describe('results', () => {
  const rounds = [
    { metrics: { events_per_s: 100, p99_ms: 5 }, ratios: { vs_ceiling: 0.5 } },
    { metrics: { events_per_s: 300, p99_ms: 9 }, ratios: { vs_ceiling: 0.9 } },
    { metrics: { events_per_s: 200, p99_ms: NaN }, ratios: { vs_ceiling: 0.7 } },
  ];

  it('a scenario’s figures are the medians of its rounds, with their min and max', () => {
    const r = scenarioResult(rounds, 'server + watchers', 12.5);
    expect(r.metrics).toEqual({ events_per_s: 200, p99_ms: 7 });
    expect(r.ratios).toEqual({ vs_ceiling: 0.7 });
    expect(r.range).toEqual({ events_per_s: [100, 300], p99_ms: [5, 9], vs_ceiling: [0.5, 0.9] });
    expect(r).toMatchObject({ rounds: 3, processes: 'server + watchers', seconds: 12.5 });
  });

  it('the JSON has the issue’s shape: scenarios.<name>.metrics and .ratios of numbers', () => {
    const json = JSON.parse(
      JSON.stringify({ scenarios: { fanout: scenarioResult(rounds, 'p', 1) } }),
    ) as unknown;
    expect(validateResults(json, ['fanout'])).toEqual([]);
    expect(validateResults(json, ['fanout', 'write-path'])).toEqual([
      'scenario "write-path" missing',
    ]);
    expect(
      validateResults({ scenarios: { fanout: { metrics: {}, ratios: { a: 'x' } } } }, ['fanout']),
    ).toEqual(['fanout.ratios.a is not a number', 'fanout: no metrics measured']);
    expect(validateResults({}, ['fanout'])).toEqual(['no "scenarios" object']);
  });

  it('CI counts density as run only with its SLO ratios for sqlite and etcd3, whatever their values', () => {
    const figures = (backends: string[]) =>
      Object.fromEntries(
        REQUIRED_FIGURES['density']!.filter((f) => backends.some((b) => f.includes(b))).map((f) => [
          f,
          123,
        ]),
      );
    const json = (backends: string[]) => ({
      scenarios: { density: { metrics: figures(backends), ratios: {} } },
    });
    expect(validateResults(json(['sqlite', 'etcd3']), ['density'])).toEqual([]);
    expect(validateResults(json(['sqlite']), ['density'])).toContain(
      'density: "slo_pod_startup_p99_etcd3" not reported',
    );
  });

  it('the table shows each figure’s median and range and which processes shared the cores', () => {
    const table = formatTable(
      'fanout',
      'watch fan-out',
      scenarioResult(rounds, 'server + watchers', 1),
    );
    expect(table).toContain('cores shared by: server + watchers');
    expect(table).toMatch(/events_per_s\s+200\s+100–300/);
    expect(table).toMatch(/ratio vs_ceiling\s+0\.700\s+0\.500–0\.900/);
  });

  it('percentiles are nearest-rank', () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile([3], 99)).toBe(3);
  });
});

describe('the runner', () => {
  const run = promisify(execFile);
  const bench = (args: string[]) =>
    run(
      process.execPath,
      ['--conditions=@listwatch/source', '--import', 'tsx', 'bench/run.ts', ...args],
      { cwd: REPO_ROOT },
    );

  it('--list prints every scenario name', async () => {
    const { stdout } = await bench(['--list']);
    expect(stdout.trim().split('\n')).toEqual(SCENARIO_NAMES);
  });

  it('an unknown scenario exits 2 with the known names', async () => {
    await expect(bench(['--scenario', 'nope'])).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('known: fanout'),
    });
  });

  it('one scenario, quick, prints its table and writes the JSON', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-'));
    try {
      const out = join(dir, 'latest.json');
      const { stdout, stderr } = await bench(['--quick', '--scenario', 'codec', '--out', out]);
      expect(stderr).toMatch(/\[1\/1 codec\] round 1\/1/);
      expect(stdout).toContain('cores shared by:');
      const json = JSON.parse(readFileSync(out, 'utf8')) as { quick: boolean };
      expect(validateResults(json, ['codec'])).toEqual([]);
      expect(json.quick).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
