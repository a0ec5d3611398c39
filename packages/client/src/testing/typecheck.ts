import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

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
