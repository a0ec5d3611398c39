import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const appDir = fileURLToPath(new URL('../..', import.meta.url));

/** Runs `pnpm demo` (src/main.ts) with `args` to its exit; its output and exit code. */
export async function runDemo(args: string[]): Promise<{ code: number | null; out: string }> {
  const child = spawn(
    process.execPath,
    ['--conditions=@listwatch/source', '--import', 'tsx', 'src/main.ts', '--port', '0', ...args],
    { cwd: appDir, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  try {
    const [code] = (await once(child, 'exit')) as [number | null];
    return { code, out };
  } finally {
    clearTimeout(timer);
  }
}
