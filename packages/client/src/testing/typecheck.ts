import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { onTestFinished } from 'vitest';

export const packageDir = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Type-checks `code` as a file of this package (strict, the package's tsconfig), so
 * `@listwatch/client` resolves to it and the package's devDependencies are importable; returns
 * the diagnostics' messages.
 */
export function typecheck(code: string, name = 'example.virtual.ts'): string[] {
  const file = join(packageDir, 'src', name);
  const config = ts.getParsedCommandLineOfConfigFile(
    join(packageDir, 'tsconfig.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
  )!;
  const options = { ...config.options, noEmit: true, composite: false, incremental: false };
  const host = ts.createCompilerHost(options);
  const fileExists = host.fileExists.bind(host);
  const readFile = host.readFile.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.fileExists = (f) => f === file || fileExists(f);
  host.readFile = (f) => (f === file ? code : readFile(f));
  host.getSourceFile = (f, lang, ...rest) =>
    f === file ? ts.createSourceFile(f, code, lang) : getSourceFile(f, lang, ...rest);
  const program = ts.createProgram({ rootNames: [file], options, host });
  return ts
    .getPreEmitDiagnostics(program, program.getSourceFile(file))
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

/** `code` as JavaScript a child `node --import tsx` runs. */
export function transpile(code: string): string {
  return ts.transpileModule(code, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  }).outputText;
}

/** A TypeScript program run in a child node (with tsx), and what it has written so far. */
export interface ModuleRun {
  child: ChildProcess;
  readonly out: string;
  readonly err: string;
  /** The exit code. */
  exited: Promise<number | null>;
}

/**
 * Runs `code` (transpiled) as a module in a child `node --import tsx` from this package, with
 * `env` added to the environment; the child does not outlive the test that started it.
 */
export function runModule(code: string, env: Record<string, string>): ModuleRun {
  const child = spawn(
    process.execPath,
    [
      '--conditions=@listwatch/source',
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      transpile(code),
    ],
    { cwd: packageDir, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const run = {
    child,
    out: '',
    err: '',
    exited: new Promise<number | null>((resolve) => child.on('exit', resolve)),
  };
  child.stdout?.on('data', (c: Buffer) => (run.out += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (run.err += c.toString()));
  onTestFinished(() => void child.kill('SIGKILL'));
  return run;
}
