import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findBuiltinResource, silentLogger } from '@listwatch/api';
import { startApiServer, type RunningApiServer } from '@listwatch/apiserver';
import { MemoryStorage } from '@listwatch/storage';
import { tempDir } from '@listwatch/testing';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { RestClient } from './rest/client.js';
import { eventually } from './testing/eventually.js';
import { configMap } from './testing/fixtures.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

/** The first ```ts block of the package README: the example it opens with. */
function readmeExample(): string {
  const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
  const block = /```ts\n([\s\S]*?)```/.exec(readme);
  if (!block) throw new Error('the README has no ts example');
  return block[1]!;
}

describe("the README's opening example", () => {
  const code = readmeExample();

  it('is about 30 lines, as the issue asks (35 at most)', () => {
    expect(code.trim().split('\n').length).toBeLessThanOrEqual(35);
  });

  it('type-checks against the package as published (strict, the repository tsconfig)', () => {
    // As a file of this package, so `@listwatch/client` resolves to it.
    const file = join(packageDir, 'src', 'readme-example.virtual.ts');
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
    const diagnostics = ts
      .getPreEmitDiagnostics(program, program.getSourceFile(file))
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(diagnostics).toEqual([]);
  }, 60_000);

  describe('run against an apiserver named by $KUBECONFIG', () => {
    let apiserver: RunningApiServer;
    let dir: { path: string; remove(): void };

    beforeAll(async () => {
      apiserver = await startApiServer({
        port: 0,
        storage: new MemoryStorage(),
        logger: silentLogger,
      });
      dir = tempDir('listwatch-readme-');
    });
    afterAll(async () => {
      await apiserver.close();
      dir.remove();
    });

    it('reconciles a ConfigMap as it is created and deleted, then stops cleanly on SIGINT', async () => {
      const kubeconfig = join(dir.path, 'config');
      writeFileSync(
        kubeconfig,
        `apiVersion: v1
kind: Config
current-context: local
clusters: [{name: local, cluster: {server: '${apiserver.url}'}}]
users: [{name: me, user: {token: t}}]
contexts: [{name: local, context: {cluster: local, user: me, namespace: default}}]
`,
      );
      const js = ts.transpileModule(code, {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      }).outputText;
      const child = spawn(
        process.execPath,
        ['--conditions=@listwatch/source', '--import', 'tsx', '--input-type=module', '-e', js],
        {
          cwd: packageDir,
          env: { ...process.env, KUBECONFIG: kubeconfig },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let out = '';
      let err = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      child.stderr.on('data', (c: Buffer) => (err += c.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      // Whatever happens to the test, the example does not outlive it.
      onTestFinished(() => void child.kill('SIGKILL'));

      const writer = new RestClient({ server: apiserver.url });
      try {
        const cms = writer.resource(findBuiltinResource('configmaps')!).namespace('default');
        await cms.create({ ...configMap('default', 'settings'), data: { a: '1', b: '2' } });
        await eventually(() => expect(out).toContain('default/settings: 2 keys'), 20_000);
        await cms.delete('settings');
        await eventually(() => expect(out).toContain('default/settings: deleted'), 20_000);
      } finally {
        await writer.close();
        child.kill('SIGINT');
      }
      const stopped = await Promise.race([
        exited,
        new Promise<string>((resolve) => setTimeout(() => resolve('still running'), 10_000)),
      ]);
      expect(stopped, err).toBe(0);
    }, 60_000);
  });
});
