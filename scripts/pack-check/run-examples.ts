// The client README's examples run against a live apiserver as a user runs them: each must
// see what the server does and stop on SIGINT.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

/** A compiled example script, the project it runs in and its environment. */
export interface Example {
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
export async function runClientExample(example: Example, url: string): Promise<string[]> {
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

/** Runs the operator example; a ConfigMap labelled `app` gets its Deployment and an Event. */
export async function runOperatorExample(example: Example, url: string): Promise<string[]> {
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
