// `pnpm pack:check`: the packages as a user gets them from the registry. Packs every public
// package (scripts/release.ts), checks what each tarball holds, then installs the tarballs with
// npm into a fresh `npm init -y` project in a temp dir (third-party dependencies from the
// registry, nothing from the monorepo), compiles each package README's first ```ts example with
// strict TypeScript and skipLibCheck off, and runs it — the client's against an apiserver started
// from the installed tarball's bin. One line per rule; any "pack: FAIL" exits 1.
// `--no-build` reuses the packages' dist/ (CI has built them for the typecheck).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { builtinModules } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { promisify, stripVTControlCharacters } from 'node:util';
import ts from 'typescript';
import { readManifest, release, root, type Manifest } from './release.js';

const run = promisify(execFile);
const failures: string[] = [];

function check(rule: string, problems: readonly string[]): void {
  if (problems.length === 0) {
    console.log(`pack: ok   ${rule}`);
    return;
  }
  failures.push(rule);
  console.log(`pack: FAIL ${rule}`);
  for (const p of problems.slice(0, 20)) console.log(`  | ${p}`);
  if (problems.length > 20) console.log(`  | … ${problems.length - 20} more`);
}

/** Runs a command, resolving to its output; a failure resolves to the error's output instead. */
async function attempt(
  file: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeout?: number },
): Promise<{ ok: boolean; output: string }> {
  try {
    const { stdout, stderr } = await run(file, args, {
      timeout: 120_000,
      maxBuffer: 64 << 20,
      ...options,
    });
    return { ok: true, output: `${stdout}${stderr}` };
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    return { ok: false, output: `${e.stdout ?? ''}${e.stderr ?? ''}` || e.message };
  }
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? walk(path) : [path];
  });
}

const freePort = () =>
  new Promise<number>((done) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });

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

async function main(): Promise<void> {
  const build = !process.argv.includes('--no-build');
  const work = mkdtempSync(join(tmpdir(), 'listwatch-pack-'));
  const cleanups: (() => void)[] = [() => rmSync(work, { recursive: true, force: true })];
  try {
    const tarballs = release(join(work, 'tarballs'), { build });
    const rootManifest = readManifest(root);
    const license = readFileSync(join(root, 'LICENSE'), 'utf8');
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

    // 1. What each tarball holds.
    const extracted = new Map<string, { dir: string; manifest: Manifest; files: string[] }>();
    for (const [name, tarball] of tarballs) {
      const dir = join(work, 'extracted', name);
      mkdirSync(dir, { recursive: true });
      await run('tar', ['-xzf', tarball, '-C', dir, '--strip-components=1']);
      const files = walk(dir).map((f) => relative(dir, f));
      extracted.set(name, { dir, manifest: readManifest(dir), files });
    }
    for (const [name, { dir, manifest, files }] of extracted) {
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
        ['scripts', 'devDependencies']
          .filter((f) => manifest[f] !== undefined)
          .map((f) => `has ${f}`),
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
      check(
        `${name}: published files import only dependencies and peers (no devDependency, no private package); the declarations the types entry reaches no optional peer`,
        problems,
      );
    }

    const BROWSER_MAPPED = new Set(['@listwatch/client', '@listwatch/codec']);
    // 2. publint and @arethetypeswrong/cli on each tarball (ESM only: node10 and CJS-from-ESM
    // resolutions are the ones `--profile esm-only` leaves out).
    const bin = (tool: string) => join(root, 'node_modules', '.bin', tool);
    const linting = (async () => {
      for (const [name, tarball] of tarballs) {
        const lint = await attempt(
          bin('publint'),
          ['run', tarball, '--strict', '--pack', 'false'],
          {
            cwd: work,
          },
        );
        // The one suggestion taken on purpose: the "browser" object of @listwatch/client (and
        // @listwatch/codec) maps Node-only modules to browser ones, which bundlers apply inside
        // the package (an "imports" map would put '#…' specifiers in published declarations).
        const suggestions = stripVTControlCharacters(lint.output)
          .split('\n')
          .filter((l) => /^\d+\. /.test(l))
          .filter(
            (l) => !(BROWSER_MAPPED.has(name) && /pkg\.browser with an object value/.test(l)),
          );
        const onlyTaken = lint.ok && /Suggestions:/.test(lint.output) && suggestions.length === 0;
        check(
          `${name}: publint --strict reports nothing${BROWSER_MAPPED.has(name) ? ' (but the "browser" map)' : ''}`,
          lint.ok && (/All good/.test(lint.output) || onlyTaken)
            ? []
            : lint.output.trim().split('\n'),
        );
        const attw = await attempt(
          bin('attw'),
          [tarball, '--profile', 'esm-only', '--format', 'table-flipped'],
          { cwd: work },
        );
        check(
          `${name}: @arethetypeswrong/cli (esm-only profile) finds no problem`,
          attw.ok ? [] : attw.output.trim().split('\n'),
        );
      }
    })();

    // 3. A fresh npm project with the tarballs installed, as a user's (while the linters run).
    const project = join(work, 'project');
    mkdirSync(project);
    await run('npm', ['init', '-y'], { cwd: project });
    const pkg = readManifest(project);
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ ...pkg, type: 'module' }, null, 2),
    );
    const devDeps = rootManifest.devDependencies as Record<string, string>;
    const install = await attempt(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--loglevel=error',
        ...tarballs.values(),
        `typescript@${devDeps.typescript}`,
        `@types/node@${devDeps['@types/node']}`,
        `vitest@${devDeps.vitest}`,
      ],
      { cwd: project, timeout: 300_000 },
    );
    await linting;
    check('npm installs every tarball into a fresh project', install.ok ? [] : [install.output]);
    if (!install.ok) return;
    check(
      'a memory-storage install has no native build and no gRPC: better-sqlite3, etcd3 and @grpc/grpc-js are absent',
      ['better-sqlite3', 'etcd3', '@grpc/grpc-js'].filter((dep) =>
        existsSync(join(project, 'node_modules', dep)),
      ),
    );

    const names = [...tarballs.keys()];
    const requireAll = await attempt(
      process.execPath,
      ['--no-warnings', '-e', `for (const p of ${JSON.stringify(names)}) require(p);`],
      { cwd: project },
    );
    check(
      `every package loads with require() (Node ${process.versions.node}, require(esm))`,
      requireAll.ok ? [] : [requireAll.output],
    );

    // README examples: each package's first ```ts block, one file each.
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
    // Issue 33's "done when": the reconciler example and its envtest test (the repository's
    // files, as the client README quotes them), the operator example of the client README, and
    // an informer against a closed port.
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
    writeFileSync(join(examples, 'unreachable.ts'), UNREACHABLE);
    const compilerOptions = {
      target: 'ES2023',
      strict: true,
      skipLibCheck: false,
      types: ['node'],
      noUncheckedIndexedAccess: true,
      exactOptionalPropertyTypes: true,
    };
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { ...compilerOptions, module: 'nodenext', rootDir: '.', outDir: 'out' },
        include: ['examples', 'reconciler', 'contract.test.ts'],
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
        include: ['examples', 'reconciler', 'contract.test.ts'],
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
    // One vitest run for both test files (a run's start-up is most of its time).
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
    const closedPort = await freePort();
    const unreachable = await attempt(
      process.execPath,
      [join(project, 'out', 'examples', 'unreachable.js'), `http://127.0.0.1:${closedPort}`],
      { cwd: project, env: { ...process.env, NODE_OPTIONS: '' }, timeout: 30_000 },
    );
    const reported = /reported (\d+) ms: 503/.exec(unreachable.output);
    check(
      '@listwatch/client: an informer against a closed port reports the failure within 1 s',
      reported && Number(reported[1]) < 1000 ? [] : unreachable.output.trim().split('\n'),
    );

    // The apiserver from the installed tarball's bin.
    const apiserver = join(project, 'node_modules', '.bin', 'listwatch-apiserver');
    const help = await attempt('npx', ['--no', '--', '@listwatch/apiserver', '--help'], {
      cwd: project,
    });
    check(
      '`npx @listwatch/apiserver -- --help` runs the installed bin and prints the usage',
      help.ok && help.output.includes('--port') ? [] : [help.output],
    );
    const sqlite = await attempt(
      'npx',
      ['--no', '--', '@listwatch/apiserver', '--port', String(await freePort())],
      {
        cwd: project,
        timeout: 30_000,
      },
    );
    check(
      '`npx @listwatch/apiserver --port N` without better-sqlite3 installed refuses the sqlite default, naming `npm i better-sqlite3`',
      !sqlite.ok && sqlite.output.includes('npm i better-sqlite3') ? [] : [sqlite.output],
    );
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const server = spawn(apiserver, ['--port', String(port), '--storage-backend', 'memory'], {
      cwd: project,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const serverLog: string[] = [];
    server.stdout.on('data', (d: Buffer) => serverLog.push(d.toString()));
    server.stderr.on('data', (d: Buffer) => serverLog.push(d.toString()));
    cleanups.push(() => server.kill('SIGKILL'));
    let ready = false;
    for (let i = 0; i < 150 && !ready && server.exitCode === null; i++) {
      ready = await fetch(`${url}/readyz`).then(
        (r) => r.ok,
        () => false,
      );
      if (!ready) await new Promise((r) => setTimeout(r, 200));
    }
    check(
      '`listwatch-apiserver --port N --storage-backend memory` from the tarball serves /readyz',
      ready ? [] : serverLog.join('').split('\n').slice(-20),
    );
    if (!ready) return;

    const kubeconfig = join(project, 'kubeconfig');
    writeFileSync(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters: [{name: local, cluster: {server: "' + url + '"}}]',
        'users: [{name: local, user: {}}]',
        'contexts: [{name: local, context: {cluster: local, user: local, namespace: default}}]',
        'current-context: local',
        '',
      ].join('\n'),
    );
    const env = { ...process.env, KUBECONFIG: kubeconfig, NODE_OPTIONS: '' };
    check(
      "@listwatch/client: the README's operator example, run against the installed apiserver, creates a Deployment owned by a labelled ConfigMap and records an Event",
      await runOperatorExample(
        { js: join(project, 'out', 'examples', 'client-operator.js'), cwd: project, env },
        url,
      ),
    );
    for (const [name, file] of exampleFiles) {
      const js = join(project, 'out', 'examples', file.replace(/\.ts$/, '.js'));
      if (name === '@listwatch/client') {
        check(
          `${name}: the README example, run against the installed apiserver, sees a ConfigMap created and stops on SIGINT`,
          await runClientExample({ js, cwd: project, env }, url),
        );
        continue;
      }
      const ran = await attempt(process.execPath, [js], { cwd: project, env, timeout: 60_000 });
      check(`${name}: the README example runs`, ran.ok ? [] : ran.output.trim().split('\n'));
    }

    server.kill('SIGTERM');
    const [code] = (await Promise.race([
      once(server, 'exit'),
      new Promise((r) => setTimeout(() => r(['timeout']), 20_000)),
    ])) as [number | string | null];
    check('the installed apiserver exits 0 on SIGTERM', code === 0 ? [] : [`exit ${code}`]);
  } finally {
    for (const cleanup of cleanups.reverse()) cleanup();
  }
}

/** A compiled example script, the project it runs in and its environment. */
interface Example {
  js: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/** Starts an example script the way a user runs it, collecting what it prints. */
function startExample({ js, cwd, env }: Example): { child: ChildProcess; output: () => string } {
  const child: ChildProcess = spawn(process.execPath, [js], {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  return { child, output: () => output };
}

/** Interrupts an example as Ctrl-C would: it must exit 0 within 15 s. */
async function interruptExample(child: ChildProcess, output: () => string): Promise<string[]> {
  child.kill('SIGINT');
  const [code] = (await Promise.race([
    once(child, 'exit'),
    new Promise((r) => setTimeout(() => r(['timeout']), 15_000)),
  ])) as [number | string | null];
  return code === 0 ? [] : [`exit ${code} after SIGINT`, ...output().split('\n').slice(-20)];
}

/** Runs the client example; creates a ConfigMap and waits for the example to report it. */
async function runClientExample(example: Example, url: string): Promise<string[]> {
  const { child, output } = startExample(example);
  const name = `pack-check-${Date.now()}`;
  try {
    const created = await fetch(`${url}/api/v1/namespaces/default/configmaps`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name },
        data: { a: '1', b: '2' },
      }),
    });
    if (created.status !== 201) return [`creating the ConfigMap: HTTP ${created.status}`];
    const deadline = Date.now() + 30_000;
    while (
      !output().includes(`default/${name}`) &&
      Date.now() < deadline &&
      child.exitCode === null
    )
      await new Promise((r) => setTimeout(r, 100));
    if (!output().includes(`default/${name}`))
      return [`the example never reported default/${name}`, ...output().split('\n').slice(-20)];
    return await interruptExample(child, output);
  } finally {
    child.kill('SIGKILL');
  }
}

/** An informer against the server named by argv[2]: how long until its watch-error handler hears. */
const UNREACHABLE = `import { coreV1, RestClient, SharedInformerFactory } from '@listwatch/client';

const client = new RestClient({ server: process.argv[2]! });
const factory = new SharedInformerFactory({ client });
const started = performance.now();
factory.informerFor(coreV1.configmaps).setWatchErrorHandler((err) => {
  console.log(\`reported \${Math.round(performance.now() - started)} ms: \${err.code} \${err.message}\`);
  void factory.shutdown().then(() => client.close());
});
factory.start();
`;

/** Runs the operator example; a ConfigMap labelled `app` gets its Deployment and an Event. */
async function runOperatorExample(example: Example, url: string): Promise<string[]> {
  const { child, output } = startExample(example);
  const name = 'pack-check-web';
  const api = `${url}/api/v1/namespaces/default`;
  try {
    const created = await fetch(`${api}/configmaps`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ metadata: { name, labels: { app: name } } }),
    });
    if (created.status !== 201) return [`creating the ConfigMap: HTTP ${created.status}`];
    const deadline = Date.now() + 30_000;
    let deployment: { metadata?: { ownerReferences?: { kind?: string }[] } } | undefined;
    let reasons: string[] = [];
    while (Date.now() < deadline && child.exitCode === null) {
      const d = await fetch(`${url}/apis/apps/v1/namespaces/default/deployments/${name}`);
      if (d.ok) deployment = (await d.json()) as typeof deployment;
      const events = (await (await fetch(`${api}/events`)).json()) as {
        items: { reason?: string }[];
      };
      reasons = events.items.map((e) => e.reason ?? '');
      if (deployment && reasons.includes('CreatedDeployment')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const problems = [
      ...(deployment?.metadata?.ownerReferences?.[0]?.kind === 'ConfigMap'
        ? []
        : [`no Deployment ${name} owned by the ConfigMap`]),
      ...(reasons.includes('CreatedDeployment')
        ? []
        : [`no CreatedDeployment Event: ${reasons.join(', ')}`]),
    ];
    if (problems.length > 0) return [...problems, ...output().split('\n').slice(-20)];
    return await interruptExample(child, output);
  } finally {
    child.kill('SIGKILL');
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
