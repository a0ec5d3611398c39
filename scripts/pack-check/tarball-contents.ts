// What each tarball holds: no test files, the repository's LICENSE, a complete package.json,
// export targets that exist, source maps with their sources, and imports only of dependencies.
import { mkdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { readManifest, type Manifest } from '../release.js';
import { check, run, walk } from './report.js';

/** A tarball unpacked: its directory, its package.json and its files (relative paths). */
export interface Extracted {
  dir: string;
  manifest: Manifest;
  files: string[];
}

/** What the rules compare a tarball with: the repository's manifest, LICENSE and packages. */
export interface Workspace {
  rootManifest: Manifest;
  license: string;
  /** Each workspace package's version, by name. */
  versions: Map<string, string>;
  /** The workspace packages that are not published. */
  privates: Set<string>;
}

/** Unpacks each tarball into `work/extracted/<name>`. */
export async function extractTarballs(
  tarballs: Map<string, string>,
  work: string,
): Promise<Map<string, Extracted>> {
  const extracted = new Map<string, Extracted>();
  for (const [name, tarball] of tarballs) {
    const dir = join(work, 'extracted', name);
    mkdirSync(dir, { recursive: true });
    await run('tar', ['-xzf', tarball, '-C', dir, '--strip-components=1']);
    const files = walk(dir).map((f) => relative(dir, f));
    extracted.set(name, { dir, manifest: readManifest(dir), files });
  }
  return extracted;
}

/** The package a bare import specifier names (`@scope/name/sub` → `@scope/name`). */
const packageOf = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

const builtins = new Set(builtinModules);

/** Module specifiers in a JavaScript or TypeScript (declaration) file: imports, exports,
 * `import()`, `require()` and `import("…")` types, as TypeScript's scanner finds them. */
const specifiers = (source: string): string[] =>
  ts.preProcessFile(source, true, true).importedFiles.map((f) => f.fileName);

const TEST_ONLY = [
  /\.test\./,
  /\.test-helper\./,
  /(^|\/)testing\//,
  /(^|\/)testdata\//,
  /(^|\/)e2e\//,
  /\.tsbuildinfo$/,
];

/** The export targets of an `exports` value, every condition included. */
function exportTargets(value: unknown, conditions: string[] = []): [string[], string][] {
  if (typeof value === 'string') return [[conditions, value]];
  if (value && typeof value === 'object')
    return Object.entries(value).flatMap(([key, v]) => exportTargets(v, [...conditions, key]));
  return [];
}

/** The rules on one unpacked tarball, one line each. */
export function checkTarballContents(
  name: string,
  { dir, manifest, files }: Extracted,
  { rootManifest, license, versions, privates }: Workspace,
): void {
  const has = new Set(files);
  const targets = [
    ...exportTargets(manifest.exports),
    [['main'], manifest.main as string] as [string[], string],
    [['types'], manifest.types as string] as [string[], string],
    ...Object.entries((manifest.bin as Record<string, string> | undefined) ?? {}).map(
      ([bin, path]) => [[`bin ${bin}`], path] as [string[], string],
    ),
  ];
  // Exported on purpose (@listwatch/storage/testing, the contract suite), with its map and source.
  const onPurpose = new Set<string>();
  for (const [, target] of exportTargets(manifest.exports)) {
    const file = target.replace(/^\.\//, '');
    onPurpose.add(file);
    if (!has.has(`${file}.map`)) continue;
    onPurpose.add(`${file}.map`);
    const { sources } = JSON.parse(readFileSync(join(dir, `${file}.map`), 'utf8')) as {
      sources: string[];
    };
    for (const s of sources) onPurpose.add(relative(dir, resolve(dir, dirname(file), s)));
  }
  check(
    `${name}: no test, test helper, fixture or build-info file is published, but what it exports`,
    files.filter((f) => !onPurpose.has(f) && TEST_ONLY.some((p) => p.test(f))),
  );
  check(
    `${name}: LICENSE is the repository's Apache-2.0 text`,
    has.has('LICENSE') && readFileSync(join(dir, 'LICENSE'), 'utf8') === license
      ? []
      : ['LICENSE missing or different'],
  );
  const fields = ['license', 'repository', 'homepage', 'bugs', 'keywords', 'types', 'main'];
  check(
    `${name}: package.json names license, repository, homepage, bugs, keywords, main and types, and engines as the repository's`,
    [
      ...fields.filter((f) => manifest[f] === undefined).map((f) => `no ${f}`),
      ...(JSON.stringify(manifest.engines) === JSON.stringify(rootManifest.engines)
        ? []
        : [`engines ${JSON.stringify(manifest.engines)}`]),
      ...(manifest.version === '0.0.0' ? ['version 0.0.0'] : []),
    ],
  );
  check(
    `${name}: package.json carries no monorepo scripts and no devDependencies (.pnpmfile.cjs beforePacking)`,
    ['scripts', 'devDependencies'].filter((f) => manifest[f] !== undefined).map((f) => `has ${f}`),
  );
  const deps = {
    ...(manifest.dependencies as Record<string, string> | undefined),
    ...(manifest.peerDependencies as Record<string, string> | undefined),
  };
  check(
    `${name}: dependencies on the other packages are their released versions, not workspace: or ^0.0.0`,
    Object.entries(deps)
      .filter(([dep]) => versions.has(dep))
      .filter(
        ([dep, range]) =>
          range.startsWith('workspace:') ||
          privates.has(dep) ||
          range.replace(/^[\^~]/, '') !== versions.get(dep),
      )
      .map(([dep, range]) => `${dep}@${range}`),
  );
  check(
    `${name}: every export condition, main, types and bin points at a published file, and no workspace-only condition is published`,
    targets.flatMap(([conditions, target]) => [
      ...(has.has(target.replace(/^\.\//, ''))
        ? []
        : [`${conditions.join('>')} → ${target} is not in the tarball`]),
      ...(conditions.includes('@listwatch/source')
        ? [`the @listwatch/source condition is published`]
        : []),
    ]),
  );
  check(
    `${name}: bin files start with a node shebang`,
    Object.values((manifest.bin as Record<string, string> | undefined) ?? {}).flatMap((bin) =>
      readFileSync(join(dir, bin), 'utf8').startsWith('#!/usr/bin/env node\n')
        ? []
        : [`${bin} has no shebang`],
    ),
  );
  check(
    `${name}: every source map's sources are published with it`,
    files
      .filter((f) => f.endsWith('.map'))
      .flatMap((map) => {
        const { sources } = JSON.parse(readFileSync(join(dir, map), 'utf8')) as {
          sources: string[];
        };
        return sources
          .map((s) => relative(dir, resolve(dirname(join(dir, map)), s)))
          .filter((s) => !has.has(s))
          .map((s) => `${map} → ${s}`);
      }),
  );
  check(
    `${name}: published files import only dependencies and peers (no devDependency, no private package); the declarations the types entry reaches no optional peer`,
    importProblems(name, { dir, manifest, files }, targets, privates),
  );
}

/** Imports of a package's files that its consumers could not resolve or should not load. */
function importProblems(
  name: string,
  { dir, manifest, files }: Extracted,
  targets: [string[], string][],
  privates: Set<string>,
): string[] {
  const has = new Set(files);
  const dependencies = Object.keys(
    (manifest.dependencies as Record<string, string> | undefined) ?? {},
  );
  const peers = (manifest.peerDependencies as Record<string, string> | undefined) ?? {};
  const optionalPeers = Object.entries(
    (manifest.peerDependenciesMeta as Record<string, { optional?: boolean }> | undefined) ?? {},
  )
    .filter(([, meta]) => meta.optional)
    .map(([peer]) => peer);
  // The declarations a consumer's compiler loads: those the types entries reach.
  const reachable = new Set<string>();
  const pending = targets
    .map(([, target]) => target.replace(/^\.\//, ''))
    .filter((t) => t.endsWith('.d.ts'));
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (reachable.has(file) || !has.has(file)) continue;
    reachable.add(file);
    for (const s of specifiers(readFileSync(join(dir, file), 'utf8')))
      if (s.startsWith('.'))
        pending.push(relative(dir, resolve(dir, dirname(file), s)).replace(/\.js$/, '.d.ts'));
  }
  const problems: string[] = [];
  for (const file of files.filter((f) => /\.(js|d\.ts|ts)$/.test(f))) {
    const declaration = reachable.has(file);
    for (const specifier of specifiers(readFileSync(join(dir, file), 'utf8'))) {
      if (specifier.startsWith('.') || specifier.startsWith('node:')) continue;
      const pkg = packageOf(specifier);
      if (builtins.has(pkg) || pkg === name) continue;
      if (privates.has(pkg)) problems.push(`${file} imports the private package ${pkg}`);
      else if (!dependencies.includes(pkg) && !(pkg in peers))
        problems.push(`${file} imports ${specifier}, which is not a dependency`);
      else if (declaration && optionalPeers.includes(pkg))
        problems.push(`${file}: a declaration imports the optional peer ${pkg}`);
    }
  }
  return problems;
}
