// Test tiers: what a test file needs besides node, read from its file name. vitest.config.ts makes
// one vitest project per package and tier from this table, and the global setup of a tier's
// projects (global-setup.ts) makes sure of the tier's prerequisites — so it runs only when a
// selected file needs them. `pnpm test:unit` runs the unit tier, `pnpm test` every tier.
import type { PrerequisiteName } from './prerequisites.js';

export type TierName = 'unit' | 'etcd' | 'e2e' | 'process';

export interface Tier {
  name: TierName;
  /** Files named `*.<suffix>.test.ts` are in this tier; every other `*.test.ts` is a unit test. */
  suffix?: string;
  /** What its tests do that unit tests do not. */
  does: string;
  /** What it needs installed. */
  needs: readonly PrerequisiteName[];
}

export const tiers: readonly Tier[] = [
  {
    name: 'unit',
    does: 'only in-process work: code, and servers on loopback the test starts itself',
    needs: [],
  },
  {
    name: 'etcd',
    suffix: 'etcd',
    does: 'run against a real etcd (EtcdCluster)',
    needs: ['etcd'],
  },
  {
    name: 'e2e',
    suffix: 'e2e',
    does: 'run real clients as programs: kubectl, curl, the Python client',
    needs: ['kubectl', 'curl', 'openssl', 'python3-kubernetes'],
  },
  {
    name: 'process',
    suffix: 'process',
    does: 'start more processes: a CLI as users start it, a crash, several candidates, a browser',
    needs: ['chromium'],
  },
];

/**
 * Test files whose names do not say their tier yet, or that mix unit tests with tests of a tier
 * (paths from the repository root, globs allowed): rename each to `<name>.<suffix>.test.ts`, or
 * move its tier's tests into one, then drop it from here.
 */
export const unsuffixed: Readonly<Record<string, Exclude<TierName, 'unit'>>> = {
  'packages/storage/src/cacher/cacher.test.ts': 'etcd',
  'packages/storage/src/cacher/cacher.etcd-faults.test.ts': 'etcd',
  'packages/client/src/**/shared-informer.http.test.ts': 'etcd',
  'packages/client/src/**/leader-election.test.ts': 'process',
  'packages/client/src/**/readme-example.test.ts': 'process',
};

/**
 * Unit test files that run a storage-backend matrix (storageBackends()): in the unit tier on
 * memory and sqlite, and again in the etcd tier on etcd3.
 */
export const backendMatrices: readonly string[] = [
  'packages/apiserver/src/handlers/handlers.test.ts',
  'packages/storage/src/cacher/list-snapshots.test.ts',
  'packages/storage/src/value/encryption-at-rest.test.ts',
];

/** The environment variable that tells a test process its tier (set by vitest.config.ts). */
export const TIER_ENV = 'LISTWATCH_TEST_TIER';

/** The tier of the running test file; undefined outside a tier project (a bench, a script). */
export function currentTier(): TierName | undefined {
  const name = process.env[TIER_ENV];
  return tiers.find((tier) => tier.name === name)?.name;
}
