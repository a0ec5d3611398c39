// CI's check of `pnpm bench --quick`: the JSON exists and holds every scenario with metrics and
// ratios of numbers. Never a timing: figures on a shared CI machine are not a pass/fail signal.
//   node --import tsx bench/check-results.ts [bench/results/latest.json]
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { validateResults } from './lib.js';
import { REPO_ROOT } from './proc.js';
import { SCENARIO_NAMES } from './scenarios.js';

const file = resolve(REPO_ROOT, process.argv[2] ?? 'bench/results/latest.json');
let json: unknown;
try {
  json = JSON.parse(readFileSync(file, 'utf8'));
} catch (error) {
  console.error(`bench: no results at ${file}: ${(error as Error).message}`);
  process.exit(1);
}
const problems = validateResults(json, SCENARIO_NAMES);
if (problems.length) {
  console.error(`bench: ${file} is incomplete:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(`bench: ${SCENARIO_NAMES.length} scenarios in ${file}`);
