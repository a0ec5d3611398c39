import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ApiError, builtinResources, type ResourceDefinition } from '@listwatch/api';
import { KUBECTL, tempDir } from '@listwatch/testing';
import Koa from 'koa';
import { discoveryMiddleware, type DiscoverySource } from './discovery-router.js';

// Shared by the discovery tests: a real koa server with only the discovery middleware and a
// 404 fallback that records what reached it, and a way to run the real kubectl against it.

export interface DiscoveryServer {
  url: string;
  /** Requests discovery passed on (method and URL), in arrival order. */
  passedOn: string[];
  close(): Promise<void>;
}

export async function startDiscoveryServer(
  definitions: readonly ResourceDefinition[] | DiscoverySource = builtinResources,
): Promise<DiscoveryServer> {
  const passedOn: string[] = [];
  const app = new Koa();
  app.use(discoveryMiddleware(definitions));
  app.use((ctx) => {
    passedOn.push(`${ctx.method} ${ctx.url}`);
    ctx.status = 404;
    ctx.set('Content-Type', 'application/json');
    ctx.body = Buffer.from(JSON.stringify(ApiError.pathNotFound().status));
  });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    passedOn,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the real kubectl against `server` with an empty kubeconfig, a fresh HOME and a fresh
 * discovery cache, so nothing leaks between runs. `files` are written to its working dir.
 */
export async function kubectl(
  server: string,
  args: readonly string[],
  files: Record<string, string> = {},
): Promise<KubectlResult> {
  const dir = tempDir('listwatch-kubectl-');
  try {
    const kubeconfig = join(dir.path, 'kubeconfig');
    writeFileSync(kubeconfig, '');
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir.path, name), text);
    const cacheDir = join(dir.path, 'cache');
    return await new Promise((resolve) => {
      execFile(
        KUBECTL,
        ['--server', server, '--cache-dir', cacheDir, ...args],
        {
          cwd: dir.path,
          env: {
            PATH: process.env['PATH'] ?? '',
            HOME: dir.path,
            KUBECONFIG: kubeconfig,
            KUBECACHEDIR: cacheDir,
          },
          // A safety net for a hung kubectl, not a measurement.
          timeout: 60_000,
          maxBuffer: 64 * 1024 * 1024,
        },
        (error, stdout, stderr) => {
          const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
          resolve({ code, stdout, stderr });
        },
      );
    });
  } finally {
    dir.remove();
  }
}
