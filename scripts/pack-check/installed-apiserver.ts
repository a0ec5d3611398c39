// The apiserver from the installed tarball's bin: its usage, its refusal of the sqlite default
// without better-sqlite3, serving with memory storage, the README examples run against it, and
// a clean exit on SIGTERM.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { attempt, check, freePort } from './report.js';
import { runClientExample, runOperatorExample } from './run-examples.js';

/** Runs the checks; `exampleFiles` are the compiled README examples, by package name, and
 * `cleanups` receives what must be stopped however the run ends. */
export async function checkInstalledApiserver(
  project: string,
  exampleFiles: Map<string, string>,
  cleanups: (() => void)[],
): Promise<void> {
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
}
