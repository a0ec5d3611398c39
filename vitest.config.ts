import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import {
  backendMatrices,
  TIER_ENV,
  tiers,
  unsuffixed,
  type Tier,
} from './packages/testing/src/tiers.ts';

// One vitest run from the root over every package. Workspace packages resolve to their sources
// through the `@listwatch/source` export condition, so tests never need a build first.
const conditions = ['@listwatch/source', 'node', 'import', 'default'];

// Paths from the repository root; package scripts run vitest from their own directory.
const repo = (path: string) => fileURLToPath(new URL(path, import.meta.url));

const workspaces = ['packages', 'apps'].flatMap((root) =>
  readdirSync(repo(root))
    .filter((dir) => existsSync(repo(`${root}/${dir}/package.json`)))
    .map((dir) => `${root}/${dir}`),
);

const testing = (file: string) => repo(`packages/testing/src/${file}`);

/** The entries of `paths` (from the repository root) that lie in `dir`, relative to it. */
const within = (dir: string, paths: readonly string[]): string[] =>
  paths.filter((path) => path.startsWith(`${dir}/`)).map((path) => path.slice(dir.length + 1));

const unsuffixedIn = (tier: Tier) =>
  Object.keys(unsuffixed).filter((path) => unsuffixed[path] === tier.name);

const startsPrograms = (dir: string, tier: Tier) =>
  tier.name === 'process' || (tier.name === 'etcd' && dir === 'apps/demo-cluster');

// One project per package and test tier (packages/testing/src/tiers.ts): `@listwatch/storage`
// holds its unit tests, `etcd:@listwatch/storage` those against a real etcd, and so on. A
// tier's global setup makes sure of its prerequisites; vitest runs it only when one of the
// tier's files is selected, so a unit run never looks for etcd, kubectl or Python.
function project(dir: string, tier: Tier): TestProjectInlineConfiguration {
  const manifest = readFileSync(repo(`${dir}/package.json`), 'utf8');
  const { name } = JSON.parse(manifest) as { name: string };
  const include = tier.suffix
    ? [
        `src/**/*.${tier.suffix}.test.ts`,
        ...within(dir, unsuffixedIn(tier)),
        ...(tier.name === 'etcd' ? within(dir, backendMatrices) : []),
      ]
    : ['src/**/*.test.ts'];
  const exclude = tier.suffix
    ? []
    : [
        ...tiers.flatMap((t) => (t.suffix ? [`src/**/*.${t.suffix}.test.ts`] : [])),
        ...within(dir, Object.keys(unsuffixed)),
      ];
  return {
    extends: true,
    test: {
      name: tier.suffix ? `${tier.name}:${name}` : name,
      root: repo(dir),
      include,
      exclude: [...configDefaults.exclude, ...exclude],
      env: { [TIER_ENV]: tier.name },
      // Unit files share their worker's module graph instead of importing the packages afresh
      // each (half the CPU of the unit tier is imports); they start nothing that outlives them.
      // The other tiers start processes and etcd, and keep a fresh module graph per file.
      ...(tier.name === 'unit' ? { isolate: false } : {}),
      // Files that start whole programs (node under tsx, a browser; the demo's etcd tests start
      // `pnpm demo`) against deadlines of their own: one at a time, after the others.
      ...(startsPrograms(dir, tier) ? { maxWorkers: 1 } : {}),
      ...(tier.needs.length > 0
        ? { globalSetup: [testing('global-setup.ts')], setupFiles: [testing('tier-setup.ts')] }
        : {}),
    },
  };
}

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: conditions } },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Every core, at least two: test files wait on servers, etcd, kubectl and child processes
    // as much as they compute, and vitest's default (one less than the cores) runs them one at
    // a time on CI's two cores. VITEST_MAX_WORKERS overrides it.
    maxWorkers: Math.max(2, availableParallelism()),
    projects: [
      ...workspaces.flatMap((dir) => tiers.map((tier) => project(dir, tier))),
      // The benchmark runner's own unit tests (bench/README.md).
      { extends: true, test: { name: 'bench', root: repo('bench'), include: ['*.test.ts'] } },
    ],
  },
});
