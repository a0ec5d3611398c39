import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { backendMatrices, tiers, unsuffixed } from './tiers.js';

// The tier table against the test files of the repository: what it lists exists, and what a file
// does matches the tier its name (or the table) gives it.

const repo = fileURLToPath(new URL('../../../', import.meta.url));

/** Every `*.test.ts` under a workspace's src/, as a path from the repository root. */
function testFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(repo, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.test.ts')) files.push(path);
    }
  };
  for (const root of ['packages', 'apps'])
    for (const workspace of readdirSync(join(repo, root)))
      if (existsSync(join(repo, root, workspace, 'src'))) walk(`${root}/${workspace}/src`);
  return files;
}

/** The vitest glob `pattern` (`*`, `**\/`) as a RegExp over paths. */
function globRegExp(pattern: string): RegExp {
  const escape = (s: string) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  const body = pattern
    .split('**/')
    .map((part) => part.split('*').map(escape).join('[^/]*'))
    .join('(?:.*/)?');
  return new RegExp(`^${body}$`);
}

const files = testFiles();
const suffixes = tiers.flatMap((tier) => (tier.suffix ? [`.${tier.suffix}.test.ts`] : []));
const listed = (path: string) =>
  Object.keys(unsuffixed).some((pattern) => globRegExp(pattern).test(path));
const unitFiles = files.filter(
  (path) => !suffixes.some((suffix) => path.endsWith(suffix)) && !listed(path),
);

describe('the test tiers', () => {
  it('list only test files that exist and whose names do not say their tier yet', () => {
    for (const pattern of [...Object.keys(unsuffixed), ...backendMatrices]) {
      const matches = files.filter((path) => globRegExp(pattern).test(path));
      expect(matches, `${pattern} names no test file: drop it from tiers.ts`).not.toEqual([]);
      for (const path of matches)
        expect(
          suffixes.filter((suffix) => path.endsWith(suffix)),
          path,
        ).toEqual([]);
    }
  });

  it('give a file that runs a storage-backend matrix its etcd3 run', () => {
    for (const path of files) {
      const source = readFileSync(join(repo, path), 'utf8');
      if (!/\bstorageBackends\(|describe\.each\(backends\b/.test(source)) continue;
      const etcd = path.endsWith('.etcd.test.ts') || unsuffixed[path] === 'etcd';
      expect(etcd || backendMatrices.includes(path) || listed(path), path).toBe(true);
    }
  });

  it('keep etcd, kubectl, curl and the Python client out of the unit tier', () => {
    const outside =
      /\bEtcdCluster\b|\bKUBECTL\b|\bKubectlSession\b|\bPYTHON\b|\bspawnCurl\(|\bcurl\(/;
    const offending = unitFiles.filter(
      (path) =>
        !backendMatrices.includes(path) && outside.test(readFileSync(join(repo, path), 'utf8')),
    );
    expect(offending, 'unit test files using etcd, kubectl, curl or Python: rename them').toEqual(
      [],
    );
  });
});
