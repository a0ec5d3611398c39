// The installed packages' test entry points under vitest: the storage contract suite against
// the memory backend and the reconciler example's envtest tests.
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { attempt, check } from './report.js';

/** Runs `contract.test.ts` and `reconciler/web-controller.test.ts` of `project` (written by
 * compileExamples) in one vitest run: a run's start-up is most of its time. */
export async function checkVitestSuites(project: string): Promise<void> {
  const vitest = await attempt(
    process.execPath,
    [
      join(project, 'node_modules', 'vitest', 'vitest.mjs'),
      'run',
      'contract.test.ts',
      'reconciler/web-controller.test.ts',
    ],
    { cwd: project, env: { ...process.env, NO_COLOR: '1', NODE_OPTIONS: '' } },
  );
  const vitestOutput = stripVTControlCharacters(vitest.output);
  /** Whether vitest reports `file` passed, every one of its tests (`✓ file (n tests)`). */
  const passed = (file: string) =>
    new RegExp(`✓ ${file.replace(/[.]/g, '\\.')} \\(\\d+ tests?\\)`).test(vitestOutput);
  check(
    '@listwatch/storage/testing: the contract suite runs under vitest and the memory backend passes it',
    passed('contract.test.ts') ? [] : vitestOutput.trim().split('\n').slice(-30),
  );
  check(
    "@listwatch/apiserver/envtest: the client README's reconciler (owns Deployments, records Events, requeues after a delay) passes its vitest tests",
    passed('reconciler/web-controller.test.ts') &&
      /✓ reconciler\/web-controller\.test\.ts \(3 tests\)/.test(vitestOutput)
      ? []
      : vitestOutput.trim().split('\n').slice(-30),
  );
}
