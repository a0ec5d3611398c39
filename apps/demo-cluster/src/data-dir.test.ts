import { expect, it } from 'vitest';
import { chooseDataDir, DEMO_DATA_ROOT } from './data-dir.js';

it('pnpm demo keeps its state in apps/demo-cluster/.data whatever the working directory, one directory per kind of run, so plain, --secure and --duration runs never share it', () => {
  expect(DEMO_DATA_ROOT).toMatch(/apps\/demo-cluster\/\.data$/);
  const dirs = [false, true].flatMap((secure) =>
    [false, true].map(
      (scenario) => chooseDataDir({ secure, scenario, reset: false, dataDir: undefined }).path,
    ),
  );
  expect(dirs).toEqual([
    `${DEMO_DATA_ROOT}/cluster`,
    `${DEMO_DATA_ROOT}/cluster-scenario`,
    `${DEMO_DATA_ROOT}/secure`,
    `${DEMO_DATA_ROOT}/secure-scenario`,
  ]);
});

it('a scripted run always starts afresh, a plain one only with --reset; --reset never empties a directory the user named', () => {
  expect(chooseDataDir({ secure: false, scenario: true, reset: false }).reset).toBe(true);
  expect(chooseDataDir({ secure: false, scenario: false, reset: false }).reset).toBe(false);
  expect(chooseDataDir({ secure: true, scenario: false, reset: true }).reset).toBe(true);
  expect(chooseDataDir({ secure: false, scenario: false, reset: false, dataDir: '/x' })).toEqual({
    path: '/x',
    reset: false,
  });
  expect(() =>
    chooseDataDir({ secure: false, scenario: false, reset: true, dataDir: '/x' }),
  ).toThrow(/remove \/x yourself/);
});
