import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { eventually } from './eventually.js';

// Programs the e2e tests run as a user would (kubectl, curl, the demo): to completion, or kept
// running with their output readable as it arrives.

export interface ProcessResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a program to completion; the timeout is a safety net for a hang, not a measurement. */
export function runProgram(
  file: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<ProcessResult> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      {
        ...(options.cwd ? { cwd: options.cwd } : {}),
        env: options.env ?? { PATH: process.env['PATH'] ?? '' },
        timeout: options.timeoutMs ?? 60_000,
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** curl run to completion, without its progress meter. */
export function curl(args: readonly string[]): Promise<ProcessResult> {
  return runProgram('curl', ['-sS', ...args]);
}

/** The HTTP code curl gets for `url`, the body dropped; `options` are curl's (TLS, identity). */
export async function curlCode(url: string, options: readonly string[] = []): Promise<number> {
  const { stdout } = await curl([...options, '-o', '/dev/null', '-w', '%{http_code}', url]);
  return Number(stdout);
}

/** A long-running child (kubectl get -w, kubectl proxy): its output so far, and a way to stop it. */
export class RunningProcess {
  stdout = '';
  stderr = '';
  exitCode: number | null | undefined;
  private readonly exited: Promise<void>;

  /** `latin1` keeps every byte of a binary stream (WebSocket frames) as one character. */
  constructor(
    private readonly child: ChildProcess,
    encoding: 'utf8' | 'latin1' = 'utf8',
  ) {
    child.stdout?.setEncoding(encoding).on('data', (d: string) => (this.stdout += d));
    child.stderr?.setEncoding('utf8').on('data', (d: string) => (this.stderr += d));
    this.exited = new Promise((resolve) =>
      child.once('close', (code) => {
        this.exitCode = code;
        resolve();
      }),
    );
  }

  get lines(): string[] {
    return this.stdout.split('\n').filter((l) => l.trim() !== '');
  }

  /** Waits until stdout has a line matching `pattern` (from line `from` on); returns it. */
  waitForLine(pattern: RegExp, from = 0): Promise<string> {
    return eventually(
      () => {
        if (this.exitCode !== undefined && !this.lines.slice(from).some((l) => pattern.test(l)))
          throw new Error(`exited (${this.exitCode}) before ${pattern}: ${this.stderr}`);
        return this.lines.slice(from).find((l) => pattern.test(l));
      },
      () => `a line matching ${pattern}; got:\n${this.stdout}\n${this.stderr}`,
    );
  }

  /** Waits until stdout contains `text`. */
  waitForOutput(text: string): Promise<true> {
    return eventually(
      () => {
        if (this.stdout.includes(text)) return true;
        if (this.exitCode !== undefined)
          throw new Error(`exited (${this.exitCode}) before ${text}: ${this.stdout}${this.stderr}`);
        return undefined;
      },
      () => `${text} in:\n${this.stdout}\n${this.stderr}`,
    );
  }

  /** Ends the process (by its pid) and waits for it to be gone. */
  async stop(): Promise<void> {
    if (this.exitCode === undefined) this.child.kill('SIGTERM');
    await this.exited;
  }

  /** Resolves when the process exits on its own. */
  async exit(): Promise<number | null | undefined> {
    await this.exited;
    return this.exitCode;
  }
}

/** Node's arguments before a TypeScript file of the repo run from source: tsx, and the
 * packages' `@listwatch/source` export condition (what `pnpm apiserver` and `pnpm demo` use). */
export const TSX_NODE_ARGS = ['--conditions=@listwatch/source', '--import', 'tsx'] as const;

/** A program of the repo running in a child node: stdout and stderr read together. */
export interface SourceProcess {
  child: ChildProcess;
  readonly output: () => string;
  exit: Promise<unknown[]>;
}

/** Runs `file` (a .ts path, relative to `cwd`) from source with `args`, as `pnpm` scripts do. */
export function spawnSource(cwd: string, file: string, args: readonly string[]): SourceProcess {
  const child = spawn(process.execPath, [...TSX_NODE_ARGS, file, ...args], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
  return { child, output: () => out, exit: once(child, 'exit') };
}

/** curl kept running (a watch), its output readable as it arrives. */
export function spawnCurl(args: readonly string[]): RunningProcess {
  return new RunningProcess(
    spawn('curl', ['-sS', ...args], { stdio: ['ignore', 'pipe', 'pipe'] }),
    'latin1',
  );
}
