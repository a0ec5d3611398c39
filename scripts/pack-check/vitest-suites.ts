// The installed packages' test entry points under vitest: the storage contract suite against
// the memory backend and the reconciler example's envtest tests.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { attempt, check } from './report.js';

/** Writes `contract.test.ts` and runs it with `reconciler/web-controller.test.ts` of `project`
 * (written by compileExamples) in one vitest run: a run's start-up is most of its time. */
export async function checkVitestSuites(project: string): Promise<void> {
  // The storage contract suite, as someone writing a backend runs it (vitest, the optional peer).
  writeFileSync(
    join(project, 'contract.test.ts'),
    [
      "import { MemoryStorage } from '@listwatch/storage';",
      "import { storageContract } from '@listwatch/storage/testing';",
      "storageContract('memory, from the tarball', {",
      '  open: (options) => Promise.resolve(new MemoryStorage({ compactionInterval: 0, ...options })),',
      '});',
      '',
    ].join('\n'),
  );
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
