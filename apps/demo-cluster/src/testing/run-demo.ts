import { spawnSource } from '@listwatch/testing';
import { fileURLToPath } from 'node:url';

const appDir = fileURLToPath(new URL('../..', import.meta.url));

/** Runs `pnpm demo` (src/main.ts) with `args` to its exit; its output and exit code. */
export async function runDemo(args: string[]): Promise<{ code: number | null; out: string }> {
  const { child, output, exit } = spawnSource(appDir, 'src/main.ts', ['--port', '0', ...args]);
  const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  try {
    const [code] = (await exit) as [number | null];
    return { code, out: output() };
  } finally {
    clearTimeout(timer);
  }
}
