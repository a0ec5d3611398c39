// What every pack-check step shares: one line per rule (`pack: ok` / `pack: FAIL`), commands
// whose failure is a result rather than an exception, and a free local port.
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';

export const run = promisify(execFile);

/** The rules that failed; the runner exits 1 when there is any. */
export const failures: string[] = [];

/** Prints one rule's line: ok when there is no problem, else FAIL and the first 20 problems. */
export function check(rule: string, problems: readonly string[]): void {
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
export async function attempt(
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

/** Every file below `dir`. */
export function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? walk(path) : [path];
  });
}

export const freePort = () =>
  new Promise<number>((done) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
