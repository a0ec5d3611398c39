// The code a user writes against the installed packages, compiled with strict TypeScript and
// skipLibCheck off under both nodenext and bundler resolution: each package README's first
// ```ts example, the client README's operator example, the reconciler example and its envtest
// test (issue 33's "done when", the repository's files as the client README quotes them) and an
// informer against a closed port. The tsconfigs include contract.test.ts, which
// vitest-suites.ts writes only after this compile (as pack-check always has).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from '../release.js';
import { attempt, check } from './report.js';
import type { Extracted } from './tarball-contents.js';
import { UNREACHABLE_EXAMPLE } from './unreachable.js';

/** Writes the examples into `project` and compiles them to `project/out`; returns each
 * package's README example file (in `examples/`), by package name. */
export async function compileExamples(
  project: string,
  extracted: Map<string, Extracted>,
): Promise<Map<string, string>> {
  const examples = join(project, 'examples');
  mkdirSync(examples);
  const exampleFiles = new Map<string, string>();
  for (const [name, { dir }] of extracted) {
    const readme = readFileSync(join(dir, 'README.md'), 'utf8');
    const block = /```ts\n([\s\S]*?)```/.exec(readme);
    if (!block) {
      check(`${name}: the README has a TypeScript example`, ['no ```ts block']);
      continue;
    }
    const file = `${name.split('/')[1]}.ts`;
    writeFileSync(join(examples, file), block[1]!);
    exampleFiles.set(name, file);
  }
  const exampleDir = join(root, 'packages/client/src/testing/envtest-example');
  mkdirSync(join(project, 'reconciler', 'crd'), { recursive: true });
  for (const file of ['web-controller.ts', 'web-controller.test.ts', 'crd/webs.yaml'])
    writeFileSync(join(project, 'reconciler', file), readFileSync(join(exampleDir, file)));
  const clientReadme = readFileSync(
    join(extracted.get('@listwatch/client')!.dir, 'README.md'),
    'utf8',
  );
  const operator = [...clientReadme.matchAll(/```ts\n([\s\S]*?)```/g)][1]?.[1] ?? '';
  writeFileSync(join(examples, 'client-operator.ts'), operator);
  writeFileSync(join(examples, 'unreachable.ts'), UNREACHABLE_EXAMPLE);
  const compilerOptions = {
    target: 'ES2023',
    strict: true,
    skipLibCheck: false,
    types: ['node'],
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
  };
  const include = ['examples', 'reconciler', 'contract.test.ts'];
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { ...compilerOptions, module: 'nodenext', rootDir: '.', outDir: 'out' },
      include,
    }),
  );
  writeFileSync(
    join(project, 'tsconfig.bundler.json'),
    JSON.stringify({
      compilerOptions: {
        ...compilerOptions,
        module: 'preserve',
        moduleResolution: 'bundler',
        noEmit: true,
      },
      include,
    }),
  );
  const tsc = join(project, 'node_modules', 'typescript', 'bin', 'tsc');
  for (const config of ['tsconfig.json', 'tsconfig.bundler.json']) {
    const compiled = await attempt(process.execPath, [tsc, '-p', config], { cwd: project });
    check(
      `the README examples and a contract test compile with strict TypeScript, skipLibCheck off (${config === 'tsconfig.json' ? 'nodenext' : 'bundler'} resolution)`,
      compiled.ok ? [] : compiled.output.trim().split('\n'),
    );
  }
  return exampleFiles;
}
