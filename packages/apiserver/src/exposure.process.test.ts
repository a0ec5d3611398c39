import { runProgram, spawnSource, tempDir, type SourceProcess } from '@listwatch/testing';
import { readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { client } from './testing/test-server.js';

// `pnpm apiserver --bind-address 0.0.0.0` with the defaults would give the network anonymous
// cluster-admin: it refuses to start, naming the flags to add. The README's "Serving other
// machines" commands (token, certificate, RBAC) start and serve.

const pkg = fileURLToPath(new URL('..', import.meta.url));
const apiserver = (args: readonly string[]): SourceProcess =>
  spawnSource(pkg, 'src/main.ts', [
    '--port=0',
    '--storage-backend=memory',
    '--log-level=warn',
    ...args,
  ]);

async function serving(server: SourceProcess): Promise<string> {
  await expect.poll(server.output, { timeout: 30_000 }).toMatch(/serving on \S+/);
  return /serving on (\S+)/.exec(server.output())![1]!;
}

async function stop(server: SourceProcess): Promise<void> {
  if (server.child.exitCode === null) server.child.kill('SIGTERM');
  await server.exit;
}

describe('pnpm apiserver off loopback', () => {
  it('--bind-address 0.0.0.0 with the defaults refuses to start, exits 1 and names the flags to add', async () => {
    const server = apiserver(['--bind-address', '0.0.0.0']);
    const [code] = await server.exit;
    expect(code).toBe(1);
    expect(server.output()).toMatch(/refusing to serve on 0\.0\.0\.0/);
    for (const flag of [
      '--token-auth-file',
      '--anonymous-auth=false',
      '--authorization-mode RBAC',
      '--insecure-allow-anonymous-admin',
    ])
      expect(server.output()).toContain(flag);
    expect(server.output()).not.toMatch(/serving on/);
  });

  it('--insecure-allow-anonymous-admin serves anonymous requests anyway, and says so', async () => {
    const server = apiserver(['--bind-address', '0.0.0.0', '--insecure-allow-anonymous-admin']);
    try {
      const url = await serving(server);
      expect((await client(url).get('/api/v1/namespaces')).status).toBe(200);
      expect(server.output()).toContain('--insecure-allow-anonymous-admin');
    } finally {
      await stop(server);
    }
  });

  it("the README's commands (a token in system:masters, a certificate, RBAC) serve the token and refuse anonymous requests", async () => {
    const dir = tempDir('listwatch-exposed-');
    try {
      const file = (name: string) => join(dir.path, name);
      const token = 'b1946ac92492d2347c6235b4d2611184';
      writeFileSync(file('tokens.csv'), `${token},admin,admin,"system:masters"\n`);
      // The README's openssl command, for the name the test connects by.
      const made = await runProgram('openssl', [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '365',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost',
        '-keyout',
        file('server.key'),
        '-out',
        file('server.crt'),
      ]);
      expect(made.code).toBe(0);
      const server = apiserver([
        '--bind-address',
        '0.0.0.0',
        '--tls-cert-file',
        file('server.crt'),
        '--tls-private-key-file',
        file('server.key'),
        '--token-auth-file',
        file('tokens.csv'),
        '--anonymous-auth=false',
        '--authorization-mode',
        'RBAC',
      ]);
      try {
        const port = new URL(await serving(server)).port;
        const get = (headers: Record<string, string>) =>
          new Promise<number>((resolve, reject) =>
            request(
              {
                host: '127.0.0.1',
                servername: 'localhost',
                port,
                path: '/api/v1/namespaces',
                ca: readFileSync(file('server.crt')),
                headers,
              },
              (res) => resolve(res.resume().statusCode ?? 0),
            )
              .on('error', reject)
              .end(),
          );
        expect(await get({ Authorization: `Bearer ${token}` })).toBe(200);
        expect(await get({})).toBe(401);
      } finally {
        await stop(server);
      }
    } finally {
      dir.remove();
    }
  });
});
