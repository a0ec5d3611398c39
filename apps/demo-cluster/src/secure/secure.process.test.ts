import { curl as runCurl, curlCode, eventually, KUBECTL, tempDir } from '@listwatch/testing';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { request } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../testing/browser.js';
import { runDemo } from '../testing/run-demo.js';

// `pnpm demo --secure` as a user runs it: the printed admin kubeconfig works with the real
// kubectl, anonymous requests and every component's identity get only what their roles grant
// (plugin/pkg/auth/authorizer/rbac/bootstrappolicy), and the dashboard still shows the cluster.

const appDir = fileURLToPath(new URL('../..', import.meta.url));
const dir = tempDir('listwatch-secure-demo-');
const pki = join(dir.path, 'pki');
let demo: ChildProcess;
let out = '';
let kubeconfig = '';
let server = '';
let dashboardUrl = '';

function run(
  program: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) =>
    execFile(
      program,
      args,
      { env: { PATH: process.env['PATH'] ?? '', HOME: dir.path, ...env }, timeout: 30_000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    ),
  );
}

const kubectl = (...args: string[]) => run(KUBECTL, ['--kubeconfig', kubeconfig, ...args]);

/** curl against the apiserver trusting the demo CA, as `component` (its files) or anonymous. */
async function curl(
  method: string,
  path: string,
  component?: string,
): Promise<{ status: number; body: { message?: string; reason?: string } }> {
  const auth = component
    ? ['--cert', join(pki, `${component}.crt`), '--key', join(pki, `${component}.key`)]
    : [];
  const { stdout } = await runCurl([
    '--cacert',
    join(pki, 'ca.crt'),
    ...auth,
    '-X',
    method,
    '-w',
    '\n%{http_code}',
    `${server}${path}`,
  ]);
  const lines = stdout.trimEnd().split('\n');
  const status = Number(lines.pop());
  return { status, body: JSON.parse(lines.join('\n') || '{}') as { message?: string } };
}

beforeAll(async () => {
  demo = spawn(
    process.execPath,
    [
      '--conditions=@listwatch/source',
      '--import',
      'tsx',
      'src/main.ts',
      '--secure',
      '--port',
      '0',
      '--dashboard-port',
      '0',
      '--storage-backend',
      'memory',
      '--data-dir',
      dir.path,
      '--events',
    ],
    { cwd: appDir, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  demo.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  demo.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  await eventually(
    () => (/dashboard on http/.test(out) ? true : undefined),
    () => `the demo to start: ${out}`,
    60_000,
  );
  kubeconfig = /admin kubeconfig: (\S+)/.exec(out)![1]!;
  server = /apiserver on (https:\/\/\S+)/.exec(out)![1]!;
  dashboardUrl = /dashboard on (http:\/\/\S+)/.exec(out)![1]!;
}, 90_000);

afterAll(async () => {
  if (demo.exitCode === null) {
    const exited = once(demo, 'exit');
    demo.kill('SIGTERM');
    await exited;
  }
  dir.remove();
});

describe('pnpm demo --secure', () => {
  it('serves TLS only and prints an admin kubeconfig with which kubectl sees the web pods Running', async () => {
    expect(server).toMatch(/^https:/);
    expect(kubeconfig).toBe(join(pki, 'admin.kubeconfig'));
    await expect
      .poll(
        async () =>
          (
            await kubectl(
              'get',
              'pods',
              '-n',
              'demo',
              '-l',
              'app=web',
              '-o',
              'jsonpath={.items[*].status.phase}',
            )
          ).stdout,
        { timeout: 60_000, interval: 500 },
      )
      .toBe('Running Running Running');
    const whoami = await kubectl('auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}');
    expect(whoami.stdout).toBe('kubernetes-admin');
    // Plain HTTP is not answered as an API.
    expect(await curlCode(server.replace('https', 'http') + '/api')).not.toBe(200);
  });

  it('answers anonymous requests 403 in kube words, and unknown certificates are refused at the handshake', async () => {
    const pods = await curl('GET', '/api/v1/pods');
    expect(pods.status).toBe(403);
    expect(pods.body.message).toBe(
      'pods is forbidden: User "system:anonymous" cannot list resource "pods" in API group "" at the cluster scope',
    );
    expect(await curlCode(`${server}/api/v1/namespaces/kube-system/secrets`, ['-k'])).toBe(403);
  });

  it('gives each component only its role: the scheduler binds but cannot delete pods, a kubelet cannot create roles, a controller cannot touch what it does not own', async () => {
    const pod = (
      await kubectl('get', 'pods', '-n', 'demo', '-o', 'jsonpath={.items[0].metadata.name}')
    ).stdout;
    expect(pod).not.toBe('');
    const podPath = `/api/v1/namespaces/demo/pods/${pod}`;
    // Each can read what it watches…
    expect((await curl('GET', '/api/v1/nodes', 'kube-scheduler')).status).toBe(200);
    expect(
      (await curl('GET', '/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-1', 'node-node-1'))
        .status,
    ).toBe(200);
    // …and no more.
    const del = await curl('DELETE', podPath, 'kube-scheduler');
    expect(del.status).toBe(403);
    expect(del.body.message).toBe(
      `pods "${pod}" is forbidden: User "system:kube-scheduler" cannot delete resource "pods" in API group "" in the namespace "demo"`,
    );
    const roles = await curl(
      'POST',
      '/apis/rbac.authorization.k8s.io/v1/clusterroles',
      'node-node-1',
    );
    expect(roles.status).toBe(403);
    expect(roles.body.message).toMatch(
      /User "system:node:node-1" cannot create resource "clusterroles"/,
    );
    const secrets = await curl(
      'GET',
      '/api/v1/namespaces/kube-system/secrets',
      'deployment-controller',
    );
    expect(secrets.status).toBe(403);
    expect(secrets.body.message).toMatch(
      /User "system:serviceaccount:kube-system:deployment-controller" cannot list resource "secrets"/,
    );
    const nodes = await curl('DELETE', '/api/v1/nodes/node-1', 'replicaset-controller');
    expect(nodes.status).toBe(403);
    const dashboard = await curl('DELETE', podPath, 'dashboard');
    expect(dashboard.status).toBe(403);
    // The pod survived all of them.
    expect((await kubectl('get', 'pod', '-n', 'demo', pod)).code).toBe(0);
    // kubectl auth can-i agrees, asked by the admin on a component's behalf.
    const canI = await kubectl(
      'auth',
      'can-i',
      'create',
      'pods',
      '--subresource=binding',
      '--as',
      'system:kube-scheduler',
    );
    expect(canI.stdout.trim()).toBe('yes');
    const cannot = await kubectl(
      'auth',
      'can-i',
      'delete',
      'pods',
      '--as',
      'system:kube-scheduler',
    );
    expect(cannot.stdout.trim()).toBe('no');
  });

  it('the dashboard watches through its own origin as its read-only identity; other origins are refused', async () => {
    const config = (await (await fetch(`${dashboardUrl}config.json`)).json()) as {
      apiserver: string;
    };
    expect(`${config.apiserver}/`).toBe(dashboardUrl);
    const upgrade = (origin?: string) =>
      new Promise<{ status: number; first: string }>((resolve, reject) => {
        const req = request(`${dashboardUrl}api/v1/nodes?watch=1`, {
          headers: {
            Connection: 'Upgrade',
            Upgrade: 'websocket',
            'Sec-WebSocket-Version': '13',
            'Sec-WebSocket-Key': Buffer.from('0123456789abcdef').toString('base64'),
            ...(origin ? { Origin: origin } : {}),
          },
        });
        req.on('upgrade', (res, socket, head: Buffer) => {
          let first = head.toString('latin1');
          const done = () => {
            socket.destroy();
            resolve({ status: res.statusCode ?? 0, first });
          };
          if (first.includes('ADDED')) return done();
          socket.on('data', (chunk: Buffer) => {
            first += chunk.toString('latin1');
            if (first.includes('ADDED')) done();
          });
        });
        req.on('response', (res) => {
          res.resume();
          resolve({ status: res.statusCode ?? 0, first: '' });
        });
        req.on('error', reject);
        req.end();
      });
    const own = await upgrade(dashboardUrl.replace(/\/$/, ''));
    expect(own.status).toBe(101);
    expect(own.first).toContain('"type":"ADDED"');
    expect(own.first).toContain('"kind":"Node"');
    expect((await upgrade('http://evil.example')).status).toBe(403);
    expect((await upgrade()).status).toBe(403);

    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(dashboardUrl);
      await expect
        .poll(() => page.locator('.node[data-node^="node-"]').count(), { timeout: 30_000 })
        .toBe(3);
      await expect
        .poll(
          () => page.locator('[data-deployment="demo/web"] .pod[data-phase="Running"]').count(),
          { timeout: 30_000 },
        )
        .toBe(3);
      // The sample-controller's Foo, read through the same proxied watch as the rest.
      await expect
        .poll(() => page.locator('[data-foo="demo/example-foo"][data-available="1"]').count(), {
          timeout: 30_000,
        })
        .toBe(1);
    } finally {
      await browser.close();
    }
  });
});

it('the --duration scenario converges with every controller held to its role', async () => {
  const data = tempDir('listwatch-secure-scenario-');
  try {
    const { code, out: output } = await runDemo([
      '--secure',
      '--storage-backend',
      'memory',
      '--data-dir',
      data.path,
      '--duration',
      '60',
    ]);
    expect(output).toMatch(/admin kubeconfig: /);
    expect(output).toMatch(/scenario: every step converged/);
    expect(code).toBe(0);
  } finally {
    data.remove();
  }
}, 100_000);
