// Servers and clients under test run in processes of their own (the cores are shared, and a heap
// or an event loop must be measured alone). A child is a TypeScript file forked through tsx with
// the workspace's source condition; parent and child talk by IPC requests: `{ id, op, ... }` →
// `{ id, result }` or `{ id, error }`.
import { fork, type ChildProcess } from 'node:child_process';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

/** The repository root: children resolve `--import tsx` from here. */
export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Wall-clock milliseconds with sub-millisecond precision, comparable across processes. */
export const wallMs = (): number => performance.timeOrigin + performance.now();

export interface Child {
  readonly pid: number;
  readonly process: ChildProcess;
  request<T = unknown>(op: string, args?: Record<string, unknown>): Promise<T>;
  /** Asks the child to exit, kills it after 5 s. */
  close(): Promise<void>;
}

export interface ForkOptions {
  /** Extra node flags, e.g. ['--expose-gc']. */
  execArgv?: string[];
  env?: Record<string, string>;
}

/** Forks the TypeScript file `file` (a path or file: URL) and waits for its `ready`. */
export async function forkChild(file: string | URL, options: ForkOptions = {}): Promise<Child> {
  const path = typeof file === 'string' ? file : fileURLToPath(file);
  const proc = fork(path, [], {
    cwd: REPO_ROOT,
    execArgv: [
      '--conditions=@listwatch/source',
      '--import',
      'tsx',
      '--max-old-space-size=8192',
      // BENCH_CPU_PROF=1: every child writes a CPU profile (bench/results/profiles) on exit.
      ...(process.env['BENCH_CPU_PROF']
        ? ['--cpu-prof', `--cpu-prof-dir=${REPO_ROOT}bench/results/profiles`]
        : []),
      ...(options.execArgv ?? []),
    ],
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  let next = 1;
  let exited = false;
  const ready = new Promise<void>((resolve, reject) => {
    proc.on('message', (msg: { ready?: true; id?: number; result?: unknown; error?: string }) => {
      if (msg.ready) return resolve();
      const waiter = msg.id !== undefined ? pending.get(msg.id) : undefined;
      if (!waiter) return;
      pending.delete(msg.id!);
      if (msg.error !== undefined) waiter.reject(new Error(`${path}: ${msg.error}`));
      else waiter.resolve(msg.result);
    });
    proc.on('exit', (code, signal) => {
      exited = true;
      const error = new Error(`${path} exited (${code ?? signal})`);
      reject(error);
      for (const w of pending.values()) w.reject(error);
      pending.clear();
    });
    proc.on('error', reject);
  });
  await ready;
  return {
    pid: proc.pid!,
    process: proc,
    request<T>(op: string, args: Record<string, unknown> = {}): Promise<T> {
      if (exited) return Promise.reject(new Error(`${path} has exited`));
      const id = next++;
      return new Promise<T>((resolve, reject) => {
        pending.set(id, { resolve: resolve, reject });
        proc.send({ id, op, ...args });
      });
    },
    async close() {
      if (exited) return;
      const gone = new Promise<void>((r) => proc.once('exit', () => r()));
      proc.send({ op: '__exit' });
      const timer = setTimeout(() => proc.kill('SIGKILL'), 5000);
      await gone;
      clearTimeout(timer);
    },
  };
}

export type Handlers = Record<string, (args: Record<string, unknown>) => unknown>;

/** The child's side: answers the parent's requests with `handlers`, then says it is ready. */
export function serveParent(handlers: Handlers): void {
  if (!process.send) throw new Error('run this file through forkChild (bench/proc.ts)');
  process.on('message', (msg: { id?: number; op: string } & Record<string, unknown>) => {
    if (msg.op === '__exit') process.exit(0);
    const handler = handlers[msg.op];
    void (async () => {
      try {
        if (!handler) throw new Error(`no handler for "${msg.op}"`);
        const result = await handler(msg);
        process.send!({ id: msg.id, result: result ?? null });
      } catch (error) {
        process.send!({ id: msg.id, error: (error as Error).stack ?? String(error) });
      }
    })();
  });
  // A parent that dies takes its children with it.
  process.on('disconnect', () => process.exit(0));
  process.send({ ready: true });
}

/** Memory of this process in MiB, after a GC when --expose-gc is on (unless `collect` is false). */
export function memoryMB(collect = true): { rss: number; heap: number } {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (collect) {
    gc?.();
    gc?.();
  }
  const m = process.memoryUsage();
  return { rss: m.rss / 2 ** 20, heap: m.heapUsed / 2 ** 20 };
}

/** This process's CPU time so far (user + system), in µs. */
export function cpuMicros(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Runs `loops` concurrent loops of `step` until `ms` have passed; a step returns how many
 * operations it did. The write-path children all time their writers this way.
 */
export async function timedLoops(
  loops: number,
  ms: number,
  step: () => Promise<number>,
): Promise<{ ops: number; seconds: number }> {
  let ops = 0;
  const start = performance.now();
  const deadline = start + ms;
  await Promise.all(
    Array.from({ length: loops }, async () => {
      while (performance.now() < deadline) {
        // Not `ops += await step()`: that reads `ops` before the await and loses the other loops' counts.
        const done = await step();
        ops += done;
      }
    }),
  );
  return { ops, seconds: (performance.now() - start) / 1000 };
}

let loopDelay: IntervalHistogram | undefined;

/**
 * A child's handler for the event loop's delay (perf_hooks monitorEventLoopDelay): how late its
 * timers run, so how long any request waits to be read. `{}` starts (again); `{ read: true }`
 * gives p50/p99/max in ms since.
 */
export function eventLoopDelay(args: { read?: boolean }): {
  p50: number;
  p99: number;
  max: number;
} | null {
  if (args.read && loopDelay) {
    const ms = (ns: number) => ns / 1e6;
    return {
      p50: ms(loopDelay.percentile(50)),
      p99: ms(loopDelay.percentile(99)),
      max: ms(loopDelay.max),
    };
  }
  loopDelay?.disable();
  loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  return null;
}
