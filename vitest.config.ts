import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// One vitest run from the root over every package. Workspace packages resolve to their sources
// through the `@listwatch/source` export condition, so tests never need a build first.
const conditions = ['@listwatch/source', 'node', 'import', 'default'];

const workspaces = ['packages', 'apps'].flatMap((root) =>
  readdirSync(root)
    .filter((dir) => existsSync(`${root}/${dir}/package.json`))
    .map((dir) => `${root}/${dir}`),
);

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: conditions } },
  test: {
    globalSetup: [fileURLToPath(new URL('packages/testing/src/global-setup.ts', import.meta.url))],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: workspaces.map((dir) => ({
      extends: true,
      test: {
        name: (JSON.parse(readFileSync(`${dir}/package.json`, 'utf8')) as { name: string }).name,
        root: dir,
        include: ['src/**/*.test.ts'],
      },
    })),
  },
});
