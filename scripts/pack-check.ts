// `pnpm pack:check`: the packages as a user gets them from the registry. Packs every public
// package (scripts/release.ts), checks what each tarball holds, then installs the tarballs with
// npm into a fresh `npm init -y` project in a temp dir (third-party dependencies from the
// registry, nothing from the monorepo), compiles each package README's first ```ts example with
// strict TypeScript and skipLibCheck off, and runs it — the client's against an apiserver started
// from the installed tarball's bin. One line per rule; any "pack: FAIL" exits 1.
// `--no-build` reuses the packages' dist/ (CI has built them for the typecheck).
// The steps are in scripts/pack-check/, one file each; this file runs them in order.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { attw } from './pack-check/attw.js';
import { compileExamples } from './pack-check/compile-examples.js';
import { checkInstall, installTarballs } from './pack-check/install.js';
import { checkInstalledApiserver } from './pack-check/installed-apiserver.js';
import { publint } from './pack-check/publint.js';
import { failures } from './pack-check/report.js';
import {
  checkTarballContents,
  extractTarballs,
  type Workspace,
} from './pack-check/tarball-contents.js';
import { checkUnreachable } from './pack-check/unreachable.js';
import { checkVitestSuites } from './pack-check/vitest-suites.js';
import { readManifest, release, root } from './release.js';

/** The repository's manifest, LICENSE and each workspace package's version and privacy. */
function readWorkspace(): Workspace {
  const versions = new Map<string, string>();
  const privates = new Set<string>();
  for (const dir of ['packages', 'apps'].flatMap((g) =>
    readdirSync(join(root, g)).map((n) => join(root, g, n)),
  )) {
    if (!existsSync(join(dir, 'package.json'))) continue;
    const m = readManifest(dir);
    versions.set(m.name, m.version);
    if (m.private) privates.add(m.name);
  }
  return {
    rootManifest: readManifest(root),
    license: readFileSync(join(root, 'LICENSE'), 'utf8'),
    versions,
    privates,
  };
}

async function main(): Promise<void> {
  const build = !process.argv.includes('--no-build');
  const work = mkdtempSync(join(tmpdir(), 'listwatch-pack-'));
  const cleanups: (() => void)[] = [() => rmSync(work, { recursive: true, force: true })];
  try {
    const tarballs = release(join(work, 'tarballs'), { build });
    const workspace = readWorkspace();

    // 1. What each tarball holds.
    const extracted = await extractTarballs(tarballs, work);
    for (const [name, tarball] of extracted) checkTarballContents(name, tarball, workspace);

    // 2. publint and @arethetypeswrong/cli on each tarball, while npm installs them.
    const linting = (async () => {
      for (const [name, tarball] of tarballs) {
        await publint(name, tarball, work);
        await attw(name, tarball, work);
      }
    })();

    // 3. A fresh npm project with the tarballs installed, as a user's.
    const project = join(work, 'project');
    const install = await installTarballs(project, tarballs, workspace.rootManifest);
    await linting;
    if (!(await checkInstall(project, install, [...tarballs.keys()]))) return;

    // 4. What a user writes against them: compiled, tested, run.
    const exampleFiles = await compileExamples(project, extracted);
    await checkVitestSuites(project);
    await checkUnreachable(project);
    await checkInstalledApiserver(project, exampleFiles, cleanups);
  } finally {
    for (const cleanup of cleanups.reverse()) cleanup();
  }
}

const started = Date.now();
await main().catch((err: unknown) => {
  failures.push('the check itself');
  console.log(`pack: FAIL ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
});
console.log(
  `pack: ${failures.length === 0 ? 'every check passed' : `${failures.length} failed`} in ${Math.round((Date.now() - started) / 1000)} s`,
);
process.exit(failures.length === 0 ? 0 : 1);
