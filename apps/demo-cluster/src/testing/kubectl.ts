import { KUBECTL, tempDir } from '@listwatch/testing';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The real kubectl against one server, as a new user with a kubeconfig and its own HOME. */
export class Kubectl {
  private readonly dir = tempDir('listwatch-demo-kubectl-');
  private readonly env: NodeJS.ProcessEnv;

  constructor(server: string) {
    const kubeconfig = join(this.dir.path, 'kubeconfig');
    writeFileSync(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        `clusters: [{name: demo, cluster: {server: "${server}"}}]`,
        'users: [{name: demo, user: {}}]',
        'contexts: [{name: demo, context: {cluster: demo, user: demo}}]',
        'current-context: demo',
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

  /** Writes a manifest into kubectl's working dir; returns its path. */
  write(name: string, text: string): string {
    const path = join(this.dir.path, name);
    writeFileSync(path, text);
    return path;
  }

  run(args: readonly string[], timeoutMs = 60_000): Promise<KubectlResult> {
    return new Promise((resolve) => {
      execFile(
        KUBECTL,
        args,
        { cwd: this.dir.path, env: this.env, timeout: timeoutMs },
        (err, stdout, stderr) => {
          const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
          resolve({ code, stdout, stderr });
        },
      );
    });
  }

  dispose(): void {
    this.dir.remove();
  }
}
