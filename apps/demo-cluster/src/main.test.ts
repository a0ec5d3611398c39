import { tempDir } from '@listwatch/testing';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const appDir = fileURLToPath(new URL('..', import.meta.url));

it('pnpm demo serves the API, writes through it and prints the watch events, then stops cleanly on SIGTERM', async () => {
  const dir = tempDir('listwatch-demo-');
  const child = spawn(
    process.execPath,
    [
      '--conditions=@listwatch/source',
      '--import',
      'tsx',
      'src/main.ts',
      '--port',
      '0',
      '--data-dir',
      dir.path,
      '--interval',
      '50',
    ],
    { cwd: appDir, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  try {
    await expect
      .poll(() => out, { timeout: 30_000, interval: 200 })
      .toMatch(/MODIFIED\s+configmap\/config-0/);
    expect(out).toMatch(/apiserver on http:\/\/127\.0\.0\.1:\d+/);
    expect(out).toMatch(/ADDED\s+configmap\/config-0/);
    const url = /apiserver on (http:\/\/\S+)/.exec(out)![1]!;
    const list = (await (await fetch(`${url}/api/v1/namespaces/demo/configmaps`)).json()) as {
      items: unknown[];
    };
    expect(list.items.length).toBeGreaterThan(0);
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const [code] = (await exited) as [number | null];
    expect(code).toBe(0);
  } finally {
    child.kill('SIGKILL');
    dir.remove();
  }
});
