import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runProgram, RunningProcess, type ProcessResult } from './process.js';
import { KUBECTL } from './programs.js';
import { tempDir } from './temp-dir.js';

/**
 * kubectl as a new user runs it: a kubeconfig whose current context points at the server (TLS
 * without verification for a throwaway cert), a fresh HOME and KUBECACHEDIR, a working dir for
 * manifests. One session per test file: discovery is cached across its commands, like a user's.
 */
export class KubectlSession {
  readonly dir = tempDir('listwatch-kubectl-');
  private readonly env: NodeJS.ProcessEnv;

  constructor(server: string) {
    const kubeconfig = join(this.dir.path, 'kubeconfig');
    writeFileSync(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        '- name: listwatch',
        '  cluster:',
        `    server: ${server}`,
        ...(server.startsWith('https:') ? ['    insecure-skip-tls-verify: true'] : []),
        'users:',
        '- name: developer',
        // Over https kubectl asks for a password when the user has no credentials at all.
        `  user: {${server.startsWith('https:') ? 'token: listwatch-e2e' : ''}}`,
        'contexts:',
        '- name: listwatch',
        '  context: {cluster: listwatch, user: developer}',
        'current-context: listwatch',
        '',
      ].join('\n'),
    );
    this.env = {
      PATH: process.env['PATH'] ?? '',
      HOME: this.dir.path,
      KUBECONFIG: kubeconfig,
      KUBECACHEDIR: join(this.dir.path, 'cache'),
    };
  }

  /** Writes a file into kubectl's working dir; returns its path. */
  write(name: string, text: string): string {
    const path = join(this.dir.path, name);
    writeFileSync(path, text, { mode: 0o755 });
    return path;
  }

  run(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<ProcessResult> {
    return runProgram(KUBECTL, args, { cwd: this.dir.path, env: { ...this.env, ...env } });
  }

  /** Starts a kubectl that keeps running (a watch, a proxy). */
  spawn(args: readonly string[]): RunningProcess {
    return new RunningProcess(
      spawn(KUBECTL, args, {
        cwd: this.dir.path,
        env: this.env,
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
  }

  dispose(): void {
    this.dir.remove();
  }
}
